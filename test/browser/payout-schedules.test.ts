/**
 * Recurring payouts in the console (#/payout-schedules) in a real headless Chromium, in Vietnamese and in
 * English, against a stack on its own database and the dev server (real Temporal Schedules): a payouts-maker
 * creates a schedule with the form, sees it listed with its calendar and next occurrence in GMT+7, its
 * Schedule is triggered (as test/payouts/payout-schedules.test.ts does), and the occurrence's run, listed on
 * the schedule's page, is followed to the run's page, which links back. The Vietnamese pages show no English.
 * Screenshots: test-output/screenshots/payout-schedules-{en,vi}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { payoutScheduleTemporalId } from '../../contracts/payouts';
import { dayOfGmt7 } from '../../contracts/subscriptions';
import { callApi } from '../support/api';
import { useScratchDatabase } from '../support/database';
import {
  describeFindings,
  englishOnPage,
  englishWordList,
  type ConsoleCatalogue,
} from '../support/english-on-page';
import { freshId } from '../support/ids';
import {
  identityDependencies,
  prepareTestIdentity,
  signInThroughProvider,
  type TestIdentity,
} from '../support/identity';
import type { IdentityServer } from '../../platform/identity/server';
import { PAYOUT_HEADER } from '../support/payout-stack';
import { startStack, type Stack } from '../support/stack';
import { connectDevServer } from '../support/temporal';
import { WAIT_LIMIT_MS } from '../support/wait';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/screenshots');
const DAY = 86_400_000;

// Its own database: the list shows every schedule, and only this file's names may be on its pages.
const scratch = useScratchDatabase('schedules_ui');
let env: TestWorkflowEnvironment;
let stack: Stack<'maker' | 'approver'>;
let browser: Browser | undefined;
let messages: ConsoleCatalogue;
let englishWords: Set<string>;
const made: string[] = [];
/** People sign in through the provider (payrun's own, in this process); keys stay for the test's machines. */
let identity: TestIdentity;
let provider: IdentityServer | undefined;

beforeAll(async () => {
  env = await connectDevServer();
  identity = await prepareTestIdentity();
  stack = await startStack(env, scratch.db, {
    taskQueue: `schedules-ui-${freshId('', 8)}`,
    sandbox: { balances: { VND: 100_000_000_000 } },
    keys: {
      maker: { name: 'Mai Maker', roles: ['payouts-maker'] },
      approver: { name: 'An Approver', roles: ['payouts-approver'] },
    },
    identity: identityDependencies(identity),
  });
  identity.settings.publicBaseUrl = stack.api.baseUrl;
  provider = await identity.start();
  messages = await import(pathToFileURL(path.resolve('api/console/messages-vi.js')).href);
  englishWords = englishWordList(messages);
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  // A Schedule outlives the test on the shared dev server: delete each, so none fires later.
  for (const scheduleId of made)
    await callApi(stack.api, stack.maker, 'POST', `/v1/payout-schedules/${scheduleId}/delete`, {});
  await stack?.close();
  await provider?.close();
});

async function openConsole(language: 'vi' | 'en'): Promise<Page> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install it with scripts/install-browser.sh`);
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.addInitScript(`localStorage.setItem('payrun.console.language', '${language}')`);
  const page = await context.newPage();
  await signInThroughProvider(page, stack.api.baseUrl, 'binh.maker');
  await expect
    .poll(() => page.locator('#signed-in-name').textContent(), { timeout: WAIT_LIMIT_MS })
    .toMatch(/^Lê Văn Bình/);
  return page;
}

/** An instant as the console writes it: day first, in GMT+7. */
const inGmt7 = (iso: string) => {
  const local = new Date(Date.parse(iso) + 7 * 3600_000).toISOString();
  return `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)} ${local.slice(11, 19)}`;
};

for (const language of ['vi', 'en'] as const) {
  const tr = (english: string) => (language === 'vi' ? (messages.VI[english] ?? english) : english);

  describe(`recurring payouts in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    it('creates a schedule, lists its next occurrence in GMT+7, and follows a triggered occurrence to its run', async () => {
      const name = `Luong ${freshId('', 6)}`;
      const prefix = freshId('sal', 6);
      const rows = [
        PAYOUT_HEADER,
        `${prefix}-1,0912345678,Nguyen Van A,,10000,Luong 1,`,
        `${prefix}-2,0912345678,Tran Thi B,,25000,Luong 2,`,
      ].join('\n');
      // Two days ahead in GMT+7 (the 1st past the 28th): the next occurrence is that day at 09:30.
      const ahead = Number(dayOfGmt7(Date.now() + 2 * DAY).slice(8, 10));
      const dayOfMonth = ahead > 28 ? 1 : ahead;

      const page = await openConsole(language);
      await page.locator('nav a[href="#/payout-schedules"]').click();
      await expect.poll(() => page.locator('#page-heading').innerText()).toBe(tr('Recurring payouts'));
      await page.locator('#create-link').click();
      await page.locator('#schedule-name-input').fill(name);
      await page.locator('#schedule-day').selectOption(String(dayOfMonth));
      await page.locator('#schedule-hour').fill('9');
      await page.locator('#schedule-minute').fill('30');
      await page.locator('#schedule-rows').fill(rows);
      await page.locator('#schedule-form-submit').click();
      await expect
        .poll(() => page.locator('#schedule-name').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(name);
      const scheduleId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
      made.push(scheduleId);
      const shown = await callApi(stack.api, stack.maker, 'GET', `/v1/payout-schedules/${scheduleId}`);
      const next = shown.body.nextOccurrences[0] as string;
      expect(inGmt7(next).slice(0, 2)).toBe(String(dayOfMonth).padStart(2, '0'));
      expect(inGmt7(next).slice(11)).toBe('09:30:00');

      // The list: the calendar in words and the next occurrence in GMT+7.
      await page.goto(`${stack.api.baseUrl}/console#/payout-schedules`);
      const row = page.locator(`table.list-payout-schedules tr:has(a[data-schedule="${scheduleId}"])`);
      await expect.poll(() => row.count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      const rowText = await row.innerText();
      expect(rowText).toContain(
        tr('Day {day} of each month, {time} GMT+7')
          .replace('{day}', String(dayOfMonth))
          .replace('{time}', '09:30'),
      );
      expect(await row.locator('.next-occurrence').innerText()).toBe(`${inGmt7(next)} GMT+7`);
      expect(rowText).toContain('35.000');
      if (language === 'vi') {
        const found = await englishOnPage(page, englishWords, [name, scheduleId]);
        expect(describeFindings('#/payout-schedules', found)).toEqual([]);
      }

      // An occurrence: the Schedule triggered now makes a run awaiting approval, listed on the schedule's page.
      await env.client.schedule.getHandle(payoutScheduleTemporalId(scheduleId)).trigger();
      await row.locator('a').click();
      const occurrence = page.locator('a.occurrence-run');
      await expect.poll(() => occurrence.count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      const runId = await occurrence.innerText();
      expect(await page.locator('table.schedule-runs').innerText()).toContain(
        language === 'vi' ? messages.VI_STATUS.awaiting_approval : 'Awaiting approval',
      );
      await page.screenshot({ path: path.join(SHOTS, `payout-schedules-${language}.png`), fullPage: true });
      if (language === 'vi') {
        const found = await englishOnPage(page, englishWords, [
          name,
          scheduleId,
          runId,
          'Nguyen Van A',
          'Tran Thi B',
          'Luong 1',
          'Luong 2',
          `${prefix}-1`,
          `${prefix}-2`,
        ]);
        expect(describeFindings(`#/payout-schedules/${scheduleId}`, found)).toEqual([]);
      }

      // Followed to the run, which names its schedule and links back to it.
      await occurrence.click();
      await expect.poll(() => page.locator('#run-schedule').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      expect(await page.locator('#run-schedule').innerText()).toBe(scheduleId);
      const run = await callApi(stack.api, stack.maker, 'GET', `/v1/payout-runs/${runId}`);
      expect(run.body).toMatchObject({ scheduleId, status: 'awaiting_approval', totalAmount: 35_000 });
      await page.locator('#run-schedule').click();
      await expect
        .poll(() => page.locator('#schedule-name').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(name);

      // Pausing asks first; kept as it is nothing changes, confirmed the schedule is paused.
      await page.locator('#pause-schedule').click();
      expect(await page.locator('#pause-schedule-question').innerText()).toBe(
        tr('Pause it? No occurrence makes a run until it is resumed.'),
      );
      await page.locator('#pause-schedule-keep').click();
      expect(
        (await callApi(stack.api, stack.maker, 'GET', `/v1/payout-schedules/${scheduleId}`)).body.status,
      ).toBe('active');
      await page.locator('#pause-schedule').click();
      await page.locator('#pause-schedule-confirm').click();
      await expect
        .poll(() => page.locator('#schedule-status [data-status]').getAttribute('data-status'), {
          timeout: WAIT_LIMIT_MS,
        })
        .toBe('paused');
      expect(
        (await callApi(stack.api, stack.maker, 'GET', `/v1/payout-schedules/${scheduleId}`)).body,
      ).toMatchObject({
        status: 'paused',
        nextOccurrences: [],
      });

      // Rows by payee: a line names a directory payee and an amount; the directory gives the wallet.
      const payee = await callApi(stack.api, stack.maker, 'POST', '/v1/payees', {
        name: 'Le Van C',
        wallet: { walletId: '0912345678' },
      });
      expect(payee.status, JSON.stringify(payee.body)).toBe(201);
      const payeeId = payee.body.payeeId as string;
      const byPayee = `Thuong ${freshId('', 6)}`;
      await page.goto(`${stack.api.baseUrl}/console#/payout-schedules/new`);
      await page.locator('#schedule-name-input').fill(byPayee);
      await page.locator('#schedule-day').selectOption('last');
      await page.locator('#schedule-rows-mode').selectOption('payees');
      await page.locator('.line-payee').first().selectOption(payeeId);
      expect(await page.locator('.line-payout-id').first().inputValue()).toBe(payeeId);
      await page.locator('.line-amount').first().fill('50000');
      await page.locator('.line-description').first().fill('Thuong');
      await page.locator('#schedule-form-submit').click();
      await expect
        .poll(() => page.locator('#schedule-name').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(byPayee);
      made.push(decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? ''));
      expect(await page.locator('#schedule-calendar').innerText()).toBe(
        tr('Last day of each month, {time} GMT+7').replace('{time}', '09:00'),
      );
      const paid = await page.locator('table.schedule-rows').innerText();
      expect(paid).toContain(payeeId);
      expect(paid).toContain('50.000');
      await page.context().close();
    });
  });
}
