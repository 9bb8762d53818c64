/**
 * The plans page (#/plans) in a real headless Chromium, in Vietnamese and in English, against a stack on its
 * own database. As the billing role: create a plan through the form, subscribe a customer to it through the
 * API, see the plan listed with its subscription, preview a price rise (the preview names the subscription,
 * its old and new amount and that the customer must authorize again), confirm it and see it listed; archive
 * another plan behind its confirmation; then open #/revenue and see its charts. The Vietnamese pages show no
 * English. Screenshots: test-output/screenshots/plans-{en,vi}.png and revenue-{en,vi}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { addDays, dayOfGmt7 } from '../../contracts/subscriptions';
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
const taskQueue = `plans-ui-${freshId('', 8)}`;
const subscriptions = { ...subscriptionSettingsFrom(loadConfig({}), taskQueue), desk: false };

/** People sign in through the provider (payrun's own, in this process); keys stay for the test's machines. */
const PEOPLE = {
  billing: { subject: 'dung.billing', name: 'Hoàng Dung' },
  viewer: { subject: 'lan.viewer', name: 'Ngô Lan' },
};
const people = useTestProvider();
const t = useScratchStack<'billing' | 'viewer'>('plans-ui', {
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

beforeAll(async () => {
  messages = await import(pathToFileURL(path.resolve('api/console/messages-vi.js')).href);
  englishWords = englishWordList(messages);
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

const api = (method: string, route: string, body?: unknown) =>
  callApi(t.stack.api, t.stack.billing, method, route, body);

async function signedIn(
  language: 'vi' | 'en',
  as: 'billing' | 'viewer' = 'billing',
  zoom = 1,
): Promise<Page> {
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
  await signInThroughProvider(page, t.stack.api.baseUrl, PEOPLE[as].subject);
  await expect
    .poll(() => page.locator('#signed-in-name').textContent(), { timeout: WAIT_LIMIT_MS })
    .toMatch(new RegExp(`^${PEOPLE[as].name}`));
  return page;
}

/** The text of each row of a table, cell by cell. */
const rowsOf = (page: Page, selector: string) =>
  page
    .locator(`${selector} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
    );

/** What Chart.js drew on a canvas (written as text: this file is type-checked without the DOM library). */
const drawn = (page: Page, id: string) =>
  page.evaluate(`(() => {
    const canvas = document.getElementById(${JSON.stringify(`${id}-canvas`)});
    const chart = canvas && window.Chart && window.Chart.getChart(canvas);
    return chart ? chart.data.datasets.flatMap((set) => set.data).filter((v) => v) : null;
  })()`) as Promise<number[] | null>;

async function noEnglish(page: Page, name: string, data: string[]) {
  const found = await englishOnPage(page, englishWords, data);
  expect(describeFindings(name, found)).toEqual([]);
}

for (const language of ['vi', 'en'] as const) {
  const tr = (english: string) => (language === 'vi' ? (messages.VI[english] ?? english) : english);
  const amount = (vnd: string) => `${vnd}\u00a0₫`;
  /** A status or code as the console's label() writes it: `monthly` → `Monthly` or `Hằng tháng`. */
  const word = (code: string) =>
    language === 'vi' ? messages.VI_STATUS[code]! : code.charAt(0).toUpperCase() + code.slice(1);

  describe(`plans in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    it('creates a plan, previews and confirms a price rise, archives after asking, and shows the revenue charts', async () => {
      const page = await signedIn(language);
      const code = freshId(`GYM${language.toUpperCase()}`, 6);
      const names = { vi: 'Phòng tập hằng tháng', en: 'Gym monthly' };
      await page.locator('nav a[href="#/plans"]').click();
      await page.locator('#plan-code').fill(code);
      await page.locator('#plan-name-vi').fill(names.vi);
      await page.locator('#plan-name-en').fill(names.en);
      await page.locator('#plan-amount').fill('200000');
      await page.locator('#plan-frequency').selectOption('MONTHLY');
      await page.locator('#plan-type').selectOption('FIXED');
      await page.locator('#plan-form-submit').click();
      await expect
        .poll(() => page.locator('#page-heading').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(tr('Plan {id}').replace('{id}', code));
      expect(await page.locator('#plan-amount').innerText()).toBe(amount('200.000'));

      const subscriptionId = freshId('pl', 10);
      const customer = freshId('member', 6);
      const created = await api('POST', `/v1/plans/${code}/subscriptions`, {
        subscriptionId,
        partnerClientId: customer,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      t.stack.sandbox.admin.approvePayment(subscriptionId);
      await eventually(async () => {
        const view = await api('GET', `/v1/subscriptions/${subscriptionId}`);
        expect(view.body.status).toBe('active');
      });

      await page.locator('.crumbs a[href="#/plans"]').click();
      await expect
        .poll(async () => (await rowsOf(page, '.list-plans')).find((row) => row[0] === code), {
          timeout: WAIT_LIMIT_MS,
        })
        .toEqual([
          code,
          names[language],
          amount('200.000'),
          word('monthly'),
          word('fixed'),
          tr('No trial'),
          '1 / 1',
          word('active'),
        ]);
      if (language === 'vi') await noEnglish(page, '#/plans', [code]);
      await page.locator(`.list-plans a[href="#/plans/${code}"]`).click();
      await expect
        .poll(async () => (await rowsOf(page, '#plan-subscriptions')).map((row) => row[0]), {
          timeout: WAIT_LIMIT_MS,
        })
        .toEqual([subscriptionId]);

      const effective = addDays(dayOfGmt7(Date.now()), 3);
      await page.locator('#price-amount').fill('250000');
      await page.locator('#price-cycle').fill(effective);
      await page.locator('#price-fallback').selectOption('charge_old');
      await page.locator('#price-preview-button').click();
      await expect.poll(() => page.locator('#price-confirm').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      const preview = await rowsOf(page, '.price-preview');
      expect(preview).toHaveLength(1);
      expect(preview[0]).toEqual([
        subscriptionId,
        `****${customer.slice(-4)}`,
        word('active'),
        expect.stringMatching(/^\d\d\/\d\d\/\d{4}$/),
        amount('200.000'),
        amount('250.000'),
        tr('Yes'),
        amount('200.000'),
      ]);
      await page.screenshot({ path: path.join(SHOTS, `plans-${language}.png`), fullPage: true });
      if (language === 'vi')
        await noEnglish(page, '#/plans/<code> with its preview', [
          code,
          subscriptionId,
          customer,
          `****${customer.slice(-4)}`,
          names.en,
          PEOPLE.billing.name,
        ]);
      // A value changed after the preview withdraws the confirmation: what is confirmed is what was previewed.
      await page.locator('#price-amount').fill('260000');
      expect(await page.locator('#price-confirm').count()).toBe(0);
      await page.locator('#price-amount').fill('250000');
      await page.locator('#price-preview-button').click();
      await expect.poll(() => page.locator('#price-confirm').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      await page.locator('#price-confirm').click();
      await expect
        .poll(() => page.locator('#price-outcome').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(tr('Price change scheduled.'));
      await expect
        .poll(async () => (await rowsOf(page, '.price-changes'))[0]?.slice(0, 4), { timeout: WAIT_LIMIT_MS })
        .toEqual([
          effective.split('-').reverse().join('/'),
          amount('250.000'),
          tr('Charge the old amount'),
          '1',
        ]);
      expect(await page.locator('#plan-amount').innerText()).toBe(amount('250.000'));
      const changes = await api('GET', `/v1/subscriptions/${subscriptionId}/price-changes`);
      expect(changes.body.priceChanges).toEqual([
        expect.objectContaining({ oldAmount: 200_000, newAmount: 250_000, needsReauthorization: true }),
      ]);
      if (language === 'vi')
        await noEnglish(page, '#/plans/<code> after confirming', [
          code,
          subscriptionId,
          customer,
          `****${customer.slice(-4)}`,
          names.en,
          PEOPLE.billing.name,
        ]);

      const spare = freshId('SPARE', 6);
      const made = await api('POST', '/v1/plans', {
        code: spare,
        name: names,
        amount: 90_000,
        currency: 'VND',
        frequency: 'WEEKLY',
        type: 'FIXED',
      });
      expect(made.status).toBe(201);
      await page.goto(`${t.stack.api.baseUrl}/console#/plans/${spare}`);
      await page.locator('#archive').click();
      expect(await page.locator('#archive-question').innerText()).toContain(names[language]);
      await page.locator('#archive-keep').click();
      expect((await api('GET', `/v1/plans/${spare}`)).body.status).toBe('active');
      await page.locator('#archive').click();
      await page.locator('#archive-confirm').click();
      await expect
        .poll(() => page.locator('#plan-status').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(word('archived'));
      expect((await api('GET', `/v1/plans/${spare}`)).body.status).toBe('archived');

      await page.locator('nav a[href="#/revenue"]').click();
      await expect.poll(() => page.locator('#revenue-mrr').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      for (const id of CHARTS)
        await expect.poll(() => drawn(page, id), { timeout: WAIT_LIMIT_MS }).not.toBeNull();
      expect(await page.locator('#revenue-summary table').innerText()).toContain(code);
      expect(await drawn(page, 'chart-revenue-mrr')).toContain(200_000);
      await page.screenshot({ path: path.join(SHOTS, `revenue-${language}.png`), fullPage: true });
      if (language === 'vi') await noEnglish(page, '#/revenue', [code]);
      await page.context().close();
    });
  });
}

describe('plans as a viewer', () => {
  it('reads the plans and a plan, with no form to create, re-price or archive, and both fit at 200% zoom', async () => {
    const code = freshId('READ', 6);
    const made = await api('POST', '/v1/plans', {
      code,
      name: { vi: 'Gói chỉ xem', en: 'Read only plan' },
      amount: 120_000,
      currency: 'VND',
      frequency: 'MONTHLY',
      type: 'FIXED',
    });
    expect(made.status).toBe(201);
    const page = await signedIn('en', 'viewer', 2);
    const overflow = () =>
      page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await page.locator('nav a[href="#/plans"]').click();
    await expect
      .poll(async () => (await rowsOf(page, '.list-plans')).some((row) => row[0] === code), {
        timeout: WAIT_LIMIT_MS,
      })
      .toBe(true);
    expect(await page.locator('#plan-form').count()).toBe(0);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.locator(`.list-plans a[href="#/plans/${code}"]`).click();
    await expect
      .poll(() => page.locator('#plan-amount').textContent(), { timeout: WAIT_LIMIT_MS })
      .toBe('120.000\u00a0₫');
    await expect.poll(() => page.locator('#price-changes-empty').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
    expect(await page.locator('#price-form, #archive').count()).toBe(0);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
