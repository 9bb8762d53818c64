/**
 * The dashboard's and the report page's charts in a real headless Chromium, in Vietnamese and in English,
 * against a stack on its own database (time-skipping server, sandbox gateway, a worker) holding this
 * file's movements only: a paid run row, a refused one, an ineligible one, and two disbursements. Each
 * chart must be drawn with data, labelled from the page's language, and fit the page at 200% zoom.
 * Screenshots: test-output/screenshots/{dashboard,report}-{en,vi}.png (and report-<lang>-zoom200.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { callApi } from '../support/api';
import { TEST_APPROVAL_POLICY } from '../support/approvals';
import { freshId } from '../support/ids';
import { PAYOUT_HEADER } from '../support/payout-stack';
import {
  describeFindings,
  englishOnPage,
  englishWordList,
  type ConsoleCatalogue,
} from '../support/english-on-page';
import { signInThroughProvider, useTestProvider } from '../support/identity';
import { useScratchStack } from '../support/stack';
import { eventually, WAIT_LIMIT_MS } from '../support/wait';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/screenshots');
const CHARTS = ['chart-money-out', 'chart-success-rate', 'chart-failure-reasons'];

/** People sign in through the provider (payrun's own, in this process); keys stay for the test's machines. */
const people = useTestProvider();
const t = useScratchStack<'maker' | 'approver' | 'viewer'>('report-charts', {
  taskQueue: `report-charts-${freshId('', 8)}`,
  keys: {
    maker: { name: 'maker', roles: ['payouts-maker'] },
    approver: { name: 'approver', roles: ['payouts-approver'] },
    viewer: { name: 'Vy Viewer', roles: ['viewer'] },
  },
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: TEST_APPROVAL_POLICY } },
  get identity() {
    return people.dependencies;
  },
});
people.startFor(() => t.stack.api.baseUrl);

let browser: Browser | undefined;
let VI: Record<string, string>;
let englishWords: Set<string>;

beforeAll(async () => {
  const messages = (await import(
    pathToFileURL(path.resolve('api/console/messages-vi.js')).href
  )) as ConsoleCatalogue & { VI: Record<string, string> };
  VI = messages.VI;
  englishWords = englishWordList(messages);
  fs.mkdirSync(SHOTS, { recursive: true });
  const prefix = freshId('chart');
  const file =
    [
      PAYOUT_HEADER,
      `${prefix}-1,0912345678,Nguyen Van An,,150000,salary,`,
      `${prefix}-2,0912341008,Tran Thi Binh,,250000,salary,`,
      `${prefix}-3,0912344001,Le Van Cuong,,350000,salary,`,
    ].join('\n') + '\n';
  const uploaded = await fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=charts.csv`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${t.stack.maker}`,
      'content-type': 'text/csv',
      'idempotency-key': prefix,
    },
    body: file,
  });
  const runId = ((await uploaded.json()) as { runId: string }).runId;
  await callApi(t.stack.api, t.stack.approver, 'POST', `/v1/payout-runs/${runId}/approve`, {});
  await callApi(t.stack.api, t.stack.maker, 'POST', '/v1/disbursements', {
    disbursementId: `${prefix}-d`,
    amount: 600_000,
    description: 'deposit back',
    wallet: { walletId: '0987654321', walletName: 'Pham Thi Dung', personalId: null },
  });
  await eventually(async () => {
    const view = await callApi(t.stack.api, t.stack.viewer, 'GET', `/v1/payout-runs/${runId}`);
    expect(['reconciled', 'needs_attention']).toContain(view.body.status);
    const single = await callApi(t.stack.api, t.stack.viewer, 'GET', `/v1/disbursements/${prefix}-d`);
    expect(single.body.status).toBe('succeeded');
  });
});

afterAll(async () => {
  await browser?.close();
});

async function openPage(language: 'vi' | 'en', zoom = 1): Promise<Page> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install it with scripts/install-browser.sh`);
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  // 200% zoom: a 1280-pixel window at zoom 2 lays the page out in 640 CSS pixels, drawn at twice the density.
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: Math.round(1280 / zoom), height: 900 },
    deviceScaleFactor: zoom,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.addInitScript(`localStorage.setItem('payrun.console.language', '${language}')`);
  const page = await context.newPage();
  await signInThroughProvider(page, t.stack.api.baseUrl, 'lan.viewer');
  await expect
    .poll(() => page.locator('#signed-in-name').textContent(), { timeout: WAIT_LIMIT_MS })
    .toMatch(/^Ngô Lan/);
  return page;
}

/**
 * What Chart.js drew on a canvas: its dataset labels and values, how many pixels it painted, and its width
 * against its box's. Runs in the page (written as text: this file is type-checked without the DOM library).
 */
const drawn = (page: Page, id: string) =>
  page.evaluate(`(() => {
    const canvas = document.getElementById(${JSON.stringify(`${id}-canvas`)});
    const chart = canvas && window.Chart && window.Chart.getChart(canvas);
    if (!canvas || !chart) return null;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted += 1;
    return {
      labels: chart.data.datasets.map((set) => set.label ?? ''),
      values: chart.data.datasets.flatMap((set) => set.data).filter((v) => v),
      painted,
      boxWidth: canvas.parentElement.getBoundingClientRect().width,
      width: canvas.getBoundingClientRect().width,
    };
  })()`) as Promise<{
    labels: string[];
    values: number[];
    painted: number;
    boxWidth: number;
    width: number;
  } | null>;

for (const language of ['vi', 'en'] as const) {
  const tr = (english: string) => (language === 'vi' ? (VI[english] ?? english) : english);
  /** A Vietnamese page shows no English word (test/support/english-on-page.ts), as the console test checks. */
  const expectNoEnglish = async (page: Page, name: string) => {
    if (language !== 'vi') return;
    expect(describeFindings(name, await englishOnPage(page, englishWords, ['Nguyen Van An']))).toEqual([]);
  };

  describe(`charts in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    async function expectChartsDrawn(page: Page) {
      for (const id of CHARTS) {
        await expect
          .poll(() => drawn(page, id), { timeout: WAIT_LIMIT_MS })
          .toMatchObject({ values: expect.arrayContaining([expect.any(Number)]) });
        const seen = (await drawn(page, id))!;
        expect(seen.painted, id).toBeGreaterThan(500);
        expect(seen.width, id).toBeLessThanOrEqual(seen.boxWidth + 1);
      }
      const moneyOut = (await drawn(page, 'chart-money-out'))!;
      expect(moneyOut.labels).toEqual(
        ['Payout run items', 'Disbursements', 'Remittances', 'Refunds'].map(tr),
      );
      expect(await page.locator('#chart-money-out h2').innerText()).toBe(tr('Money out per day, by kind'));
      expect(await page.locator('#chart-failure-reasons-canvas').getAttribute('aria-label')).toContain(
        tr('Why movements failed'),
      );
      // The text alternative holds the same numbers: 150.000 ₫ paid by the run, 600.000 ₫ by the disbursement.
      const numbers = await page.locator('#chart-money-out table').textContent();
      expect(numbers).toContain('150.000');
      expect(numbers).toContain('600.000');
    }

    it('draws the dashboard charts with data, the balance against the forecast among them', async () => {
      const page = await openPage(language);
      await page.goto(`${t.stack.api.baseUrl}/console#/dashboard`);
      await expectChartsDrawn(page);
      // GET /v1/balance-forecast answers (scheduled runs): the balance is drawn against the next 14 days.
      await expect
        .poll(() => page.locator('#chart-forecast-canvas').getAttribute('aria-label'), {
          timeout: WAIT_LIMIT_MS,
        })
        .toContain(tr('Balance against scheduled payouts'));
      expect(await page.locator('#chart-forecast table').textContent()).toContain(tr('Balance left'));
      const reasons = await page.locator('#chart-failure-reasons table').textContent();
      expect(reasons).toContain(tr('Receiver not eligible'));
      await page.screenshot({ path: path.join(SHOTS, `dashboard-${language}.png`), fullPage: true });
      await expectNoEnglish(page, 'dashboard');
    });

    it('shows the report page: totals, charts and downloads', async () => {
      const page = await openPage(language);
      await page.goto(`${t.stack.api.baseUrl}/console#/reports?period=week`);
      await expect.poll(() => page.locator('#report-totals').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      const totals = await page.locator('#report-totals').innerText();
      expect(totals).toContain(tr('Money out (succeeded)'));
      expect(totals).toContain('750.000');
      await expectChartsDrawn(page);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('#download-report-xlsx').click(),
      ]);
      expect(download.suggestedFilename()).toBe('payrun-movements.xlsx');
      await page.screenshot({ path: path.join(SHOTS, `report-${language}.png`), fullPage: true });
      await expectNoEnglish(page, 'report');
    });

    it('fits the report page at 200% zoom: nothing wider than the window, every chart drawn', async () => {
      const page = await openPage(language, 2);
      await page.goto(`${t.stack.api.baseUrl}/console#/reports?period=week`);
      await expectChartsDrawn(page);
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SHOTS, `report-${language}-zoom200.png`), fullPage: true });
      await expectNoEnglish(page, 'report');
    });
  });
}
