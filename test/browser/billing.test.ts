/**
 * The revenue page (#/revenue) in a real headless Chromium, in Vietnamese and in English, against a stack on
 * its own database holding this file's subscription only: a FIXED monthly plan, one customer who authorized
 * it. MRR, the counts and the charts must show that subscription, labelled from the page's language, with
 * the numbers as a text alternative, and fit the window at 200% zoom; the Vietnamese page shows no English.
 * Screenshots: test-output/screenshots/revenue-{en,vi}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { subscriptionSettingsFrom } from '../../api/subscriptions/settings';
import { loadConfig } from '../../platform/config';
import { callApi } from '../support/api';
import {
  describeFindings,
  englishOnPage,
  englishWordList,
  type ConsoleCatalogue,
} from '../support/english-on-page';
import { freshId } from '../support/ids';
import { signInThroughProvider, useTestProvider } from '../support/identity';
import { useScratchStack } from '../support/stack';
import { eventually, WAIT_LIMIT_MS } from '../support/wait';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/screenshots');
const CHARTS = ['chart-revenue-mrr', 'chart-revenue-movement', 'chart-revenue-recovery'];
const taskQueue = `billing-ui-${freshId('', 8)}`;
const subscriptions = { ...subscriptionSettingsFrom(loadConfig({}), taskQueue), desk: false };

/** People sign in through the provider (payrun's own, in this process); keys stay for the test's machines. */
const people = useTestProvider();
const t = useScratchStack<'billing' | 'viewer'>('billing-ui', {
  taskQueue,
  clock: 'server',
  keys: {
    billing: { name: 'Bao Billing', roles: ['billing'] },
    viewer: { name: 'Vy Viewer', roles: ['viewer'] },
  },
  app: { subscriptions: { ...subscriptions, linksWaitMs: 5_000 } },
  get identity() {
    return people.dependencies;
  },
});
people.startFor(() => t.stack.api.baseUrl);

let browser: Browser | undefined;
let messages: ConsoleCatalogue;
let englishWords: Set<string>;
const planCode = freshId('GYM', 6);

beforeAll(async () => {
  messages = await import(pathToFileURL(path.resolve('api/console/messages-vi.js')).href);
  englishWords = englishWordList(messages);
  fs.mkdirSync(SHOTS, { recursive: true });
  const plan = await callApi(t.stack.api, t.stack.billing, 'POST', '/v1/plans', {
    code: planCode,
    name: { en: 'Gym monthly', vi: 'Phòng tập hằng tháng' },
    amount: 250_000,
    currency: 'VND',
    frequency: 'MONTHLY',
    type: 'FIXED',
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  const subscriptionId = freshId('rv', 10);
  const created = await callApi(t.stack.api, t.stack.billing, 'POST', `/v1/plans/${planCode}/subscriptions`, {
    subscriptionId,
    partnerClientId: freshId('member', 6),
    orderInfo: 'Gym',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  t.stack.sandbox.admin.approvePayment(subscriptionId);
  await eventually(async () => {
    const view = await callApi(t.stack.api, t.stack.viewer, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(view.body.status).toBe('active');
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
  const context = await browser.newContext({
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
  await page.goto(`${t.stack.api.baseUrl}/console#/revenue`);
  return page;
}

/** What Chart.js drew on a canvas (written as text: this file is type-checked without the DOM library). */
const drawn = (page: Page, id: string) =>
  page.evaluate(`(() => {
    const canvas = document.getElementById(${JSON.stringify(`${id}-canvas`)});
    const chart = canvas && window.Chart && window.Chart.getChart(canvas);
    if (!canvas || !chart) return null;
    return {
      labels: chart.data.datasets.map((set) => set.label ?? ''),
      values: chart.data.datasets.flatMap((set) => set.data).filter((v) => v),
      boxWidth: canvas.parentElement.getBoundingClientRect().width,
      width: canvas.getBoundingClientRect().width,
    };
  })()`) as Promise<{ labels: string[]; values: number[]; boxWidth: number; width: number } | null>;

for (const language of ['vi', 'en'] as const) {
  const tr = (english: string) => (language === 'vi' ? (messages.VI[english] ?? english) : english);

  describe(`revenue in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    it('shows MRR, the counts and the charts with their numbers, and fits at 200% zoom', async () => {
      for (const zoom of [1, 2]) {
        const page = await openPage(language, zoom);
        await expect.poll(() => page.locator('#revenue-mrr').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
        expect(await page.locator('#revenue-mrr').innerText()).toContain('250.000');
        const summary = await page.locator('#revenue-summary table').innerText();
        expect(summary).toContain(planCode);
        expect(summary).toContain(tr('Monthly recurring revenue'));
        for (const id of CHARTS)
          await expect.poll(() => drawn(page, id), { timeout: WAIT_LIMIT_MS }).not.toBeNull();
        const mrr = (await drawn(page, 'chart-revenue-mrr'))!;
        expect(mrr.values).toContain(250_000);
        expect(mrr.labels).toEqual([tr('Monthly recurring revenue')]);
        const movement = (await drawn(page, 'chart-revenue-movement'))!;
        expect(movement.labels).toEqual([tr('New'), tr('Churned')]);
        expect(movement.values).toContain(1);
        expect(await page.locator('#chart-revenue-recovery h2').innerText()).toBe(
          tr('Failed charges and those recovered per month'),
        );
        expect(await page.locator('#chart-revenue-mrr table').textContent()).toContain('250.000');
        for (const id of CHARTS) {
          const seen = (await drawn(page, id))!;
          expect(seen.width, id).toBeLessThanOrEqual(seen.boxWidth + 1);
        }
        const overflow = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow).toBeLessThanOrEqual(0);
        if (zoom === 1) {
          await page.screenshot({ path: path.join(SHOTS, `revenue-${language}.png`), fullPage: true });
          if (language === 'vi') {
            const found = await englishOnPage(page, englishWords, [planCode]);
            expect(describeFindings('#/revenue', found)).toEqual([]);
          }
        }
        await page.context().close();
      }
    });
  });
}
