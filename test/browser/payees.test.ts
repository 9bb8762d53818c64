/**
 * The payee directory in the console (#/payees) and its flags where people approve, in a real headless
 * Chromium, in Vietnamese and in English, against a stack on its own database (the inbox lists every run
 * waiting, and the flags read every payee). A maker saves a payee whose wallet is registered under another
 * name and sees the mismatch marked; proposes a change and is refused approving it; an approver approves it
 * on the payee's page. A file naming that payee by payee_id, beside a receiver new to the directory, shows
 * each row's flags on the run page and the run's counts in the approvals inbox. The Vietnamese pages show
 * no English. Screenshots: test-output/screenshots/payees-{en,vi}.png (the payee's page), and
 * payees-run-{lang}.png, payees-inbox-{lang}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  describeFindings,
  englishOnPage,
  englishWordList,
  type ConsoleCatalogue,
} from '../support/english-on-page';
import { freshId } from '../support/ids';
import { signInThroughProvider, useTestProvider } from '../support/identity';
import { testPayoutSettings } from '../support/settings';
import { useScratchStack } from '../support/stack';
import { WAIT_LIMIT_MS } from '../support/wait';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/screenshots');
const taskQueue = `payees-ui-${freshId('', 8)}`;
/**
 * People sign in through the provider (payrun's own, in this process) as two different demo people, so
 * four eyes see two identities; the keys stay for the test's machine (the file upload).
 */
const MAKER = { subject: 'binh.maker', name: 'Lê Văn Bình' };
const APPROVER = { subject: 'chi.approver', name: 'Phạm Minh Chi' };
const people = useTestProvider();

const t = useScratchStack<'maker' | 'approver'>('payees-ui', {
  taskQueue,
  keys: {
    maker: { name: 'Mai Nguyen', roles: ['payouts-maker'] },
    approver: { name: 'An Tran', roles: ['payouts-approver'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 } },
  app: { payouts: { ...testPayoutSettings(taskQueue), payeeChangedWindowDays: 30 } },
  // The wallet check has 30 s of workflow time; a client that skips time let it run out before a busy worker
  // took the task, and the payee came out `unchecked`. Nothing here needs time skipped.
  plainApiClient: true,
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

/** A wallet number of its own for each payee, ending in the sandbox's "pays" digits. */
let wallets = 0;
const walletNumber = () =>
  `09${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}${String(++wallets).padStart(2, '0')}5555`;

async function signedIn(language: 'vi' | 'en', person: { subject: string; name: string }): Promise<Page> {
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
  await signInThroughProvider(page, t.stack.api.baseUrl, person.subject);
  await expect
    .poll(() => page.locator('#signed-in-name').textContent(), { timeout: WAIT_LIMIT_MS })
    .toContain(person.name);
  return page;
}

async function uploadFile(csv: string): Promise<string> {
  const response = await fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=payees.csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.stack.maker}`, 'content-type': 'text/csv' },
    body: csv,
  });
  const body = (await response.json()) as { runId?: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.runId!;
}

for (const language of ['vi', 'en'] as const) {
  const tr = (english: string) => (language === 'vi' ? (messages.VI[english] ?? english) : english);
  /** A status as its badge says it: Vietnamese from the catalogue, English capitalised (format.js label). */
  const statusWord = (status: string) =>
    language === 'vi' ? messages.VI_STATUS[status] : status[0]!.toUpperCase() + status.slice(1);
  /** Names typed into the pages (and the people's and keys' names): data, not words of the console. */
  const typed = (...more: string[]) => [
    MAKER.name,
    APPROVER.name,
    'Mai Nguyen',
    'An Tran',
    'Tran Thi Binh',
    'Le Van Moi',
    ...more,
  ];
  const noEnglish = async (page: Page, pageName: string, data: string[]) => {
    if (language !== 'vi') return;
    const found = await englishOnPage(page, englishWords, data);
    expect(describeFindings(pageName, found)).toEqual([]);
  };

  describe(`payees in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    it('flags a name mismatch, takes a change from two people, and flags the payee where the run is approved', async () => {
      const walletId = walletNumber();
      t.stack.sandbox.admin.registerWalletHolder(walletId, 'NGUYEN VAN AN');

      // The maker saves a payee under a name the wallet is not registered under.
      const maker = await signedIn(language, MAKER);
      await maker.goto(`${t.stack.api.baseUrl}/console#/payees`);
      await maker.locator('#create-link').click();
      await maker.locator('#payee-name').fill('Tran Thi Binh');
      await maker.locator('#payee-wallet-id').fill(walletId);
      await maker.locator('#payee-reference').fill('EMP-041');
      await noEnglish(maker, '#/payees/new', typed());
      await maker.locator('#payee-form-submit').click();
      await expect
        .poll(() => new URL(maker.url()).hash, { timeout: WAIT_LIMIT_MS })
        .toMatch(/^#\/payees\/pe_/);
      const payeeId = decodeURIComponent(new URL(maker.url()).hash.slice('#/payees/'.length));
      await expect
        .poll(() => maker.locator('#name-check').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(tr('Name does not match the name the wallet is registered under'));
      expect(await maker.locator('#name-check .name-mismatch').count()).toBe(1);

      // A change proposed by the maker waits for another person: the maker's own approval is refused.
      await maker.locator('#propose-change-section summary').click();
      await maker.locator('#change-reference').fill('EMP-042');
      await maker.locator('#propose-change').click();
      await expect.poll(() => maker.locator('#open-change').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      expect(await maker.locator('#open-change').innerText()).toContain(MAKER.name);
      await maker.locator('#approve-change').click();
      const refusal = maker.locator('#action-feedback .error-box');
      await expect
        .poll(() => refusal.getAttribute('data-code'), { timeout: WAIT_LIMIT_MS })
        .toBe('self_approval');
      if (language === 'vi') {
        expect(await refusal.locator('.error-message').textContent()).toBe(messages.VI_ERRORS.self_approval);
      }
      await maker.goto(`${t.stack.api.baseUrl}/console#/payees`);

      // The approver approves it on the payee's page; the name is still another than the wallet's.
      const approver = await signedIn(language, APPROVER);
      await approver.goto(`${t.stack.api.baseUrl}/console#/payees/${encodeURIComponent(payeeId)}`);
      await approver.locator('#approve-change').click();
      await expect
        .poll(() => approver.locator('#action-outcome').textContent(), { timeout: WAIT_LIMIT_MS })
        .toBe(tr('Change approved: the details hold from now.'));
      await expect.poll(() => approver.locator('#open-change').count(), { timeout: WAIT_LIMIT_MS }).toBe(0);
      const versions = approver.locator('table.payee-versions tbody tr');
      await expect.poll(() => versions.count(), { timeout: WAIT_LIMIT_MS }).toBe(2);
      expect(await versions.first().innerText()).toContain(APPROVER.name);
      expect(await approver.locator('#name-check .name-mismatch').count()).toBe(1);
      // Proposing is the maker's duty, as the API's roles say: the approver is offered no proposal forms.
      expect(await approver.locator('#propose-change-section, #propose-archive-section').count()).toBe(0);
      await noEnglish(approver, `#/payees/${payeeId}`, typed(payeeId, walletId));
      await approver.screenshot({ path: path.join(SHOTS, `payees-${language}.png`), fullPage: true });

      // A file names the payee by payee_id, beside a receiver the directory does not know.
      const prefix = freshId(`pu${language}-`);
      const runId = await uploadFile(
        [
          'payout_id,payee_id,wallet_id,wallet_name,amount',
          `${prefix}-1,${payeeId},,,50000`,
          `${prefix}-2,,${walletNumber()},Le Van Moi,60000`,
        ].join('\n'),
      );
      const counts = tr(
        '{new} new, {changed} changed in the last {changedWindowDays} days, {mismatched} with a name mismatch',
      )
        .replace('{new}', '1')
        .replace('{changed}', '1')
        .replace('{changedWindowDays}', '30')
        .replace('{mismatched}', '1');

      await approver.goto(`${t.stack.api.baseUrl}/console#/runs/${encodeURIComponent(runId)}`);
      const payeeRow = approver.locator('#items-table tbody tr', { hasText: `${prefix}-1` });
      const newRow = approver.locator('#items-table tbody tr', { hasText: `${prefix}-2` });
      await expect.poll(() => payeeRow.count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      expect(await payeeRow.locator('.payee-flags').innerText()).toBe(
        `${payeeId} ${tr('Payee changed lately')} ${tr('Name mismatch')}`,
      );
      expect(await newRow.locator('.payee-flags').innerText()).toBe(tr('New receiver'));
      expect(await approver.locator('#run-payees').innerText()).toBe(counts);
      await noEnglish(approver, `#/runs/${runId}`, typed(payeeId, runId, prefix));
      await approver.screenshot({ path: path.join(SHOTS, `payees-run-${language}.png`), fullPage: true });

      // The inbox counts the same rows before anyone opens the run.
      await approver.goto(`${t.stack.api.baseUrl}/console#/approvals`);
      const inboxRow = approver.locator('#approval-runs tbody tr', {
        has: approver.locator(`a[data-run="${runId}"]`),
      });
      await expect.poll(() => inboxRow.count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      expect(await inboxRow.locator('.payee-counts').innerText()).toBe(counts);
      await noEnglish(approver, '#/approvals', typed(runId, 'payees.csv'));
      await approver.screenshot({ path: path.join(SHOTS, `payees-inbox-${language}.png`), fullPage: true });

      // A bank payee: a bad account number is refused naming the field, nothing saved; the saved payee says
      // why it was not checked (the gateway has no bank account check).
      await maker.goto(`${t.stack.api.baseUrl}/console#/payees/new`);
      await maker.locator('#payee-kind').selectOption('bank');
      expect(await maker.locator('#payee-wallet-id').isVisible()).toBe(false);
      await maker.locator('#payee-name').fill('Pham Van Son');
      await maker.locator('#payee-bank-code').fill('970436');
      await maker.locator('#payee-bank-number').fill('12');
      await maker.locator('#payee-form-submit').click();
      const problems = maker.locator('#payee-form-feedback .error-box li');
      await expect
        .poll(() => problems.first().textContent(), { timeout: WAIT_LIMIT_MS })
        .toContain('bankAccountNo');
      await noEnglish(maker, '#/payees/new (refused)', typed('Pham Van Son', '970436'));
      expect(new URL(maker.url()).hash).toBe('#/payees/new');
      await maker.locator('#payee-bank-number').fill('0123456789');
      await maker.locator('#payee-form-submit').click();
      await expect
        .poll(() => new URL(maker.url()).hash, { timeout: WAIT_LIMIT_MS })
        .toMatch(/^#\/payees\/pe_/);
      await expect
        .poll(() => maker.locator('#name-check').innerText(), { timeout: WAIT_LIMIT_MS })
        .toBe(`${tr('Not checked')} ${tr('the gateway offers no check of a bank account')}`);

      // Archiving is a change like any other: proposed by the maker, holding once the approver approves it.
      await maker.goto(`${t.stack.api.baseUrl}/console#/payees/${encodeURIComponent(payeeId)}`);
      await maker.locator('#propose-archive-section summary').click();
      await maker.locator('#archive-reason').fill('Left the company');
      await maker.locator('#propose-archive').click();
      await expect.poll(() => maker.locator('#open-change').count(), { timeout: WAIT_LIMIT_MS }).toBe(1);
      expect(await maker.locator('#open-change').innerText()).toContain(tr('Archive'));
      expect(await maker.locator('#detail-status').innerText()).toBe(statusWord('active'));
      await approver.goto(`${t.stack.api.baseUrl}/console#/payees/${encodeURIComponent(payeeId)}`);
      await approver.locator('#approve-change').click();
      await expect
        .poll(() => approver.locator('#detail-status').innerText(), { timeout: WAIT_LIMIT_MS })
        .toBe(statusWord('archived'));
      await maker.context().close();
      await approver.context().close();
    });
  });
}
