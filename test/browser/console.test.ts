/**
 * The finance console in a real headless Chromium (Debian's, installed by scripts/install-browser.sh;
 * playwright-core only drives it), against a full stack on the shared dev server in real time: the
 * sandbox gateway, the API serving the console, and a worker. Every page is driven with records this
 * file creates — through the API and the sandbox's simulated customer where a workflow can make them,
 * written as the workers write them otherwise — once in Vietnamese (the default) and once in English.
 * Each page leaves a full-page screenshot in test-output/console/<language>-NN-<page>.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PayrunWorker as Worker } from '../../workers/worker';
import { createActivities } from '../../activities';
import { DISBURSEMENT_AMOUNT_RANGES, itemFailureReason } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import { disableEndpoint } from '../../db/events/webhooks';
import { createLogger } from '../../platform/logger';
import { DEFAULT_WEBHOOK_TIMING } from '../../contracts/events';
import { generateSandboxKeyPair, startSandbox, type Sandbox } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { callApi, serveApi, type RunningApi } from '../support/api';
import { createApiKey } from '../../db/shared/api-keys';
import { personIdOf } from '../../db/identity/people';
import type { IdentityServer } from '../../platform/identity/server';
import {
  identityDependencies,
  prepareTestIdentity,
  signInThroughProvider,
  type TestIdentity,
} from '../support/identity';
import { useScratchDatabase } from '../support/database';
import {
  testApiSettings,
  TEST_DECISION_SIGNING_KEY,
  testMerchant,
  testPayoutSettings,
} from '../support/settings';
import { connectDevServer, createTestWorker, testCodecKeyring } from '../support/temporal';
import { freshId } from '../support/ids';
import { eventually, WAIT_LIMIT_MS } from '../support/wait';
import {
  describeFindings,
  englishOnPage,
  englishWordList,
  type ConsoleCatalogue,
} from '../support/english-on-page';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/console');

let env: TestWorkflowEnvironment;
let db: Db;
let sandbox: Sandbox;
let api: RunningApi;
let worker: Worker;
let workerRun: Promise<void>;
let browser: Browser | undefined;
let messages: ConsoleCatalogue;
let englishWords: Set<string>;
const run = randomUUID().slice(0, 6);
/**
 * People sign in through the provider (payrun's own, in this process) as its demo people; each also owns
 * a key, which the test uses for what a machine would do, so a key's request and a session's are one
 * person wherever four eyes compare.
 */
const people = {
  maker: { subject: 'binh.maker', name: 'Lê Văn Bình', roles: ['payouts-maker'], key: '' },
  approver: { subject: 'chi.approver', name: 'Phạm Minh Chi', roles: ['payouts-approver'], key: '' },
  admin: { subject: 'an.admin', name: 'Trần Thị An', roles: ['admin'], key: '' },
  billing: { subject: 'dung.billing', name: 'Hoàng Dung', roles: ['billing'], key: '' },
  payments: { subject: 'hoa.payments', name: 'Đỗ Thanh Hoa', roles: ['payments'], key: '' },
  // A maker who is also an approver: only the rule that nobody approves their own request stops them.
  // Not a demo person: added to this test's provider, as a company's directory would list them.
  requester: {
    subject: 'minh.requester',
    name: `Minh Requester ${run}`,
    roles: ['payouts-maker', 'payments', 'remittance', 'payouts-approver'],
    key: '',
  },
  // The second admin a hold and a release need: another person, so also added to this test's provider.
  admin2: { subject: 'ben.admin', name: `Ben Admin ${run}`, roles: ['admin'], key: '' },
} as const;
let identity: TestIdentity;
let provider: IdentityServer | undefined;

/**
 * A database of this file's own: it holds charges (the hold switch), which would stop every other file's
 * charges in a shared one.
 */
const scratch = useScratchDatabase('console');

beforeAll(async () => {
  messages = await import(pathToFileURL(path.resolve('api/console/messages-vi.js')).href);
  englishWords = englishWordList(messages);
  env = await connectDevServer();
  db = scratch.db;
  const keyPair = generateSandboxKeyPair();
  // Real time: the sandbox answers quickly, but slowly enough that the page shows a run in progress.
  sandbox = await startSandbox({
    merchant: testMerchant,
    keyPair,
    timing: { ipnDelayMs: 50, batchValidationMs: 300, batchPaymentMs: 600, pendingSettleMs: 500 },
    balances: { VND: 100_000_000_000, USD: 10_000 },
  });
  const taskQueue = `console-${randomUUID()}`;
  // Ten rows a batch, so a 25-row file shows three batches, each with its own progress bar.
  const payouts = { ...testPayoutSettings(taskQueue), batchSize: 10 };
  identity = await prepareTestIdentity();
  for (const person of [people.requester, people.admin2]) {
    identity.people.push({
      subject: person.subject,
      name: person.name,
      email: `${person.subject}@payrun.test`,
      groups: [...person.roles],
    });
  }
  // serveApi: with its notification relay, the only signaller of the gateway's notifications.
  api = await serveApi({
    db,
    temporal: env.client,
    logger: createLogger('silent'),
    merchant: testMerchant,
    ...testApiSettings(taskQueue, { payouts }),
    webhooks: {
      taskQueue,
      timing: DEFAULT_WEBHOOK_TIMING,
      keyring: testCodecKeyring,
      allowLoopbackHttp: true,
    },
    console: { temporalUiUrl: 'http://127.0.0.1:8233', namespace: env.namespace ?? 'default' },
    identity: identityDependencies(identity),
  });
  identity.settings.publicBaseUrl = api.baseUrl;
  provider = await identity.start();
  const activities = createActivities({
    db,
    gateway: createInstrumentedGateway({
      baseUrl: sandbox.url,
      ...testMerchant,
      publicKey: keyPair.publicKeyPem,
    }),
    publicBaseUrl: api.baseUrl,
    merchantSecrets: { merchantSecretKey: testMerchant.secretKey, keyring: testCodecKeyring },
    webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: true },
    decisionKey: TEST_DECISION_SIGNING_KEY,
  });
  worker = (await createTestWorker(env, activities, taskQueue)).worker;
  workerRun = worker.run();
  for (const person of Object.values(people)) {
    const owner = { kind: 'person' as const, id: personIdOf(identity.settings.issuer, person.subject) };
    (person as { key: string }).key = (await createApiKey(db, person.name, [...person.roles], owner)).key;
  }
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await api?.close();
  await provider?.close();
  await sandbox?.close();
  await env?.teardown();
});

const vnd = (amount: number) =>
  new Intl.NumberFormat('vi-VN', { style: 'currency', currency: 'VND' }).format(amount);

/** A fresh page in Debian's Chromium; fails (never skips) when the browser is not installed. */
async function openPage(): Promise<Page> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser test drives Debian's Chromium. Install it with ` +
        '`bash scripts/install-browser.sh` (as root; .ci/run does this before the tests).',
    );
  }
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root (CI here) cannot use Chromium's sandbox.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
    // The operator's own browser is English and in UTC: the console still shows Vietnamese and GMT+7.
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  return context.newPage();
}

async function downloadText(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

/** Waits for what the page shows, as long as any test waits (the machine may be loaded). */
const poll = <T>(read: () => Promise<T>, timeout = WAIT_LIMIT_MS) =>
  expect.poll(read, { timeout, interval: 100 });

const api$ = (
  key: string,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => callApi(api, key, method, url, body, headers);

/**
 * A card saved through the gateway's binding flow: the customer enters it on the gateway's page, the IPN
 * brings the callbackToken, payrun binds. Answers the saved method's id once it is active.
 */
async function bindCard(customer: string, name: string): Promise<string> {
  const binding = await api$(people.payments.key, 'POST', '/v1/saved-method-bindings', {
    kind: 'card',
    partnerClientId: customer,
    userInfo: { email: 'an@example.com', name },
  });
  expect(binding.status, JSON.stringify(binding.body)).toBe(201);
  expect(binding.body.payUrl).toMatch(/^http/);
  sandbox.admin.approvePayment(binding.body.orderId);
  return eventually(async () => {
    const bound = await api$(
      people.payments.key,
      'GET',
      `/v1/saved-method-bindings/${binding.body.bindingId}`,
    );
    expect(bound.body.status).toBe('active');
    return bound.body.methodId as string;
  });
}

for (const language of ['vi', 'en'] as const) {
  describe(`finance console in ${language === 'vi' ? 'Vietnamese' : 'English'}`, () => {
    const tag = `${language}${run}`;
    /** A text of the console in this language. */
    const tr = (english: string, params: Record<string, string | number> = {}) =>
      (language === 'vi' ? (messages.VI[english] ?? english) : english).replace(
        /\{(\w+)\}/g,
        (_, name: string) => String(params[name]),
      );
    const status = (value: string) => {
      const english = value.replaceAll('_', ' ').toLowerCase();
      return language === 'vi'
        ? messages.VI_STATUS[value]!
        : english.charAt(0).toUpperCase() + english.slice(1);
    };
    /** A sentence the server writes in English (a receiver's label), as the page shows it (VI_SERVER_TEXTS). */
    const served = (english: string, vietnamese: string) => (language === 'vi' ? vietnamese : english);
    const maskedWallet = served('wallet ****5678', 'ví ****5678');
    let shotNumber = 0;
    /** English found on Vietnamese pages: every page is checked where its screenshot is taken. */
    const englishFound: string[] = [];
    /**
     * What the test typed itself (people's names, an endpoint's description, a column header of its
     * workbook) is data, not the console's words.
     */
    const typedData = [
      ...Object.values(people).map((person) => person.name),
      `console ${tag}`,
      'Payout ID',
      // Receivers' names in the retry and scheduled-run files.
      ...['Receiver One', 'Receiver Two', 'Receiver Three', 'Receiver 1', 'Receiver 2'],
    ];
    async function shot(page: Page, name: string): Promise<void> {
      shotNumber += 1;
      const file = path.join(SHOTS, `${language}-${String(shotNumber).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      if (language === 'vi') {
        const where = `${name} (${new URL(page.url()).hash || '#/'})`;
        englishFound.push(...describeFindings(where, await englishOnPage(page, englishWords, typedData)));
      }
    }
    let page: Page;
    const pageErrors: string[] = [];
    const text = (selector: string) => page.locator(selector).first().innerText();

    async function signIn(who: { subject: string; name: string }) {
      // Whoever was signed in (a test that failed half-way) is signed out first: their session cookie goes.
      await page.context().clearCookies();
      await signInThroughProvider(page, api.baseUrl, who.subject);
      await poll(() => page.locator('#signed-in-name').textContent()).toBe(who.name);
    }
    async function signOut() {
      await page.locator('#sign-out').click();
      await page.locator('#sign-in-provider').waitFor();
    }
    const rowOf = (id: string) => page.locator('#list-body table tbody tr', { hasText: id });

    beforeAll(async () => {
      page = await openPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });

    it('signs in in the chosen language, remembered across visits, only through the provider', async () => {
      await page.goto(`${api.baseUrl}/console`);
      await page.locator('#sign-in-provider').waitFor();
      // Vietnamese by default, whatever the browser's own language.
      expect(await page.locator('html').getAttribute('lang')).toBe('vi');
      expect(await text('#page-heading')).toBe('Đăng nhập');
      if (language === 'en') {
        await page.locator('#language').selectOption('en');
        await poll(() => text('#page-heading')).toBe('Sign in');
        await page.reload();
        await poll(() => text('#page-heading')).toBe('Sign in');
        expect(await page.locator('html').getAttribute('lang')).toBe('en');
      }
      // People never type a key into the console: the company's sign-in is the only way in.
      expect(await text('#sign-in-provider')).toBe(tr('Sign in with your company account'));
      expect(await page.locator('input[type=password], #api-key').count()).toBe(0);
      await shot(page, 'sign-in');
      await signIn(people.maker);
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      await signOut();
    });

    it('upload: a `;` file with errors, an .xlsx on its second sheet, templates; a run to reconciled', async () => {
      await signIn(people.maker);
      await page.goto(`${api.baseUrl}/console#/upload`);
      await page.locator('#payout-file').waitFor();

      // A file as Excel writes it on a Vietnamese computer: `;`, Vietnamese headers, one bad amount.
      const semicolon = [
        'Mã chi trả;Số ví;Họ và tên;Số tiền;Nội dung',
        `bad-${tag}-1;0912345678;Trần Thị A;100000;ok`,
        `bad-${tag}-2;0912345678;Trần Thị B;1.000.000;dấu chấm`,
        `bad-${tag}-3;0912345678;;20000;thiếu tên`,
      ].join('\r\n');
      await page.setInputFiles('#payout-file', {
        name: 'luong-loi.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(semicolon),
      });
      const errorsTable = page.locator('table.row-errors');
      await errorsTable.waitFor();
      expect(await text('#preview-separator')).toBe(tr('semicolon (;)'));
      expect(await errorsTable.locator('tbody tr').count()).toBe(2);
      const amountError = errorsTable.locator('tbody tr', { hasText: 'plain_digits' });
      expect(await amountError.locator('th').textContent()).toBe('3');
      if (language === 'vi') expect(await amountError.textContent()).toContain('chỉ gồm chữ số');
      expect(await page.locator('#submit-run').count()).toBe(0);
      await shot(page, 'upload-errors');
      const report = await downloadText(page, () => page.locator('#download-error-report').click());
      expect(report.name).toBe('luong-loi-errors.csv');
      expect(report.text).toMatch(/^3,amount,plain_digits,/m);
      expect(report.text).toMatch(/^4,wallet_name,required,/m);

      // The templates download, and each is a valid file as it is.
      const template = await downloadText(page, () => page.locator('#template-csv').click());
      expect(template.name).toBe('payout-template.csv');
      expect(template.text).toContain(
        'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
      );

      // A workbook whose first sheet is instructions: the preview says so and offers the sheets.
      const book = new ExcelJS.Workbook();
      book.addWorksheet('Hướng dẫn').addRow(['Điền bảng lương ở sheet sau']);
      const sheet = book.addWorksheet('Tháng 11');
      sheet.addRow(['Payout ID', 'Số ví', 'Tên', 'Số tiền', 'Ghi chú']);
      let total = 0;
      for (let index = 1; index <= 25; index++) {
        const amount = 50_000 + index * 1000;
        total += amount;
        sheet.addRow([
          `console-${tag}-${index}`,
          '0912345678',
          `Nguyễn Văn ${index}`,
          amount,
          `Lương tháng 11`,
        ]);
      }
      sheet.getColumn(4).numFmt = '#,##0';
      await page.setInputFiles('#payout-file', {
        name: 'luong-thang-11.xlsx',
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        buffer: Buffer.from(await book.xlsx.writeBuffer()),
      });
      await page.locator('#file-errors li[data-rule="choose_sheet"]').waitFor();
      await page.locator('#sheet-choice').selectOption('Tháng 11');
      await page.locator('#submit-run').waitFor();
      expect(await text('#preview-total')).toBe(vnd(total));
      expect(await text('#preview-format')).toBe('Excel (.xlsx)');
      expect(await text('#preview-columns')).toContain('Số ví → wallet_id');
      await shot(page, 'upload-preview');
      await page.locator('#submit-run').click();
      await page.waitForURL(/#\/runs\/run-\d{8}-[0-9a-f]{6}$/);
      const runId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
      await poll(() => text('#run-status')).toBe(status('awaiting_approval'));
      expect(await text('#run-actions')).toContain(tr('This run waits for a person with the approver role.'));
      await shot(page, 'run-awaiting-approval');
      await signOut();

      // The approver finds the run in the list (searched by file name) and approves it.
      await signIn(people.approver);
      await page.goto(`${api.baseUrl}/console#/runs?q=luong-thang-11`);
      await poll(() => rowOf(runId).count()).toBe(1);
      await shot(page, 'runs-list');
      await rowOf(runId).getByRole('link', { name: runId, exact: true }).click();
      await page.locator('#approve-run').click();
      await poll(() => text('#decided-by')).toBe(people.approver.name);
      await poll(() => text('#run-status'), 60_000).toBe(status('reconciled'));
      await poll(() => text('#reconciliation-outcome')).toContain(
        tr('Balanced: the gateway and payrun agree on every row and amount.'),
      );
      expect(await page.locator('table.batches tbody tr').count()).toBe(3);
      expect(
        await page.locator(`a.workflow-link[href*="${encodeURIComponent(`payout-run/${runId}`)}"]`).count(),
      ).toBeGreaterThan(0);
      await page.locator('#item-state').selectOption('SUCCEEDED');
      await poll(() => page.locator('table.items tbody tr').count()).toBe(25);
      // Each row's result in payrun's words of the page's language; the gateway's English message is
      // only a tooltip, and only on English pages.
      const result = page.locator('table.items tbody tr .result-code').first();
      expect(await result.innerText()).toBe(
        language === 'vi'
          ? '0 · Hoàn tất: cổng thanh toán đã xử lý xong.'
          : '0 · Done: the gateway completed it.',
      );
      expect(await result.getAttribute('title')).toBe(language === 'vi' ? null : 'Successful');
      await shot(page, 'run-reconciled');
      const results = await downloadText(page, () => page.locator('#download-results').click());
      expect(results.text.trim().split(/\r?\n/)).toHaveLength(26);
      await signOut();
    }, 120_000);

    it('retry of failed rows: reasons shown, a draft edited and submitted, the parent with its retry and combined reconciliation', async () => {
      // A run of three rows, paid through the API: row 2 over the receiving limit (1008), row 3 paid, row 4
      // restricted (4001).
      const csv = [
        'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
        `retry-${tag}-1,0900001008,Receiver One,,30000,Salary,`,
        `retry-${tag}-2,0912345678,Receiver Two,,40000,Salary,`,
        `retry-${tag}-3,0900004001,Receiver Three,,50000,Salary,`,
      ].join('\n');
      const uploaded = await fetch(`${api.baseUrl}/v1/payout-runs?fileName=retry-${tag}.csv`, {
        method: 'POST',
        headers: { authorization: `Bearer ${people.maker.key}`, 'content-type': 'text/csv' },
        body: csv,
      });
      expect(uploaded.status).toBe(201);
      const runId = ((await uploaded.json()) as { runId: string }).runId;
      expect((await api$(people.approver.key, 'POST', `/v1/payout-runs/${runId}/approve`, {})).status).toBe(
        200,
      );
      await eventually(async () =>
        expect((await api$(people.maker.key, 'GET', `/v1/payout-runs/${runId}`)).body.status).toBe(
          'reconciled',
        ),
      );

      await signIn(people.maker);
      await page.goto(`${api.baseUrl}/console#/runs/${runId}`);
      await poll(() => text('#run-status')).toBe(status('reconciled'));
      // Each failed row says why, in payrun's words and the page's language.
      const limitReason = itemFailureReason(1008)[language];
      await poll(() => text('table.items')).toContain(limitReason);
      await page.locator('#retry-failed').click();
      await page.waitForURL((url) => !url.hash.endsWith(runId));
      const childId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
      await poll(() => text('#run-status')).toBe(status('draft'));
      expect(await text('#parent-run')).toBe(runId);
      await page.locator('#draft-wallet-2').fill('0912345678');
      await page.locator('#draft-amount-2').fill('35000');
      await page.locator('#draft-save-2').click();
      await poll(() => page.locator('#draft-amount-2').inputValue()).toBe('35000');
      await page.locator('#draft-remove-4').click();
      await poll(() => page.locator('#draft-wallet-4').count()).toBe(0);
      await shot(page, 'run-retry-draft');
      await page.locator('#submit-retry').click();
      await poll(() => text('#run-status')).toBe(status('awaiting_approval'));
      await signOut();

      await signIn(people.approver);
      await page.goto(`${api.baseUrl}/console#/runs/${childId}`);
      await page.locator('#approve-run').click();
      await poll(() => text('#run-status'), 60_000).toBe(status('reconciled'));
      await page.goto(`${api.baseUrl}/console#/runs/${runId}`);
      // The retry is linked twice: in the list of retries, and as the run that paid row 2.
      await poll(() => page.locator('#run-family a', { hasText: childId }).count()).toBe(2);
      const combined = page.locator('#combined-reconciliation');
      await poll(() => combined.innerText()).toContain(tr('Combined reconciliation'));
      // Rows 2 (paid by the retry, with its edit) and 3 paid; row 4 removed from the retry, still failed.
      const paidRow = combined.locator('table.counts tbody tr', { hasText: tr('Paid') });
      expect(await paidRow.innerText()).toContain(vnd(70_000));
      expect(await combined.locator('table.items tbody tr').count()).toBe(3);
      expect(await combined.locator('table.items tbody tr').nth(0).innerText()).toContain(vnd(35_000));
      expect(await combined.locator('table.items tbody tr').nth(2).innerText()).toContain(
        itemFailureReason(4001)[language],
      );
      await shot(page, 'run-retry-combined');
      await signOut();
    }, 120_000);

    it('scheduled run: approved to pay at a time entered in GMT+7, shown with it, cancelled before it', async () => {
      const csv = [
        'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
        `sched-${tag}-1,0912345678,Receiver 1,,10000,Salary,`,
        `sched-${tag}-2,0912345679,Receiver 2,,20000,Salary,`,
      ].join('\n');
      const uploaded = await fetch(`${api.baseUrl}/v1/payout-runs?fileName=scheduled-${tag}.csv`, {
        method: 'POST',
        headers: { authorization: `Bearer ${people.maker.key}`, 'content-type': 'text/csv' },
        body: csv,
      });
      expect(uploaded.status).toBe(201);
      const runId = ((await uploaded.json()) as { runId: string }).runId;
      // 30 days ahead at 09:30 in GMT+7, as a person types it, whatever the browser's zone.
      const day = new Date(Date.now() + 30 * 86_400_000 + 7 * 3_600_000).toISOString().slice(0, 10);
      const [year, month, date] = day.split('-');

      await signIn(people.approver);
      await page.goto(`${api.baseUrl}/console#/runs/${runId}`);
      await page.locator('#pay-at').fill(`${day}T09:30`);
      expect(await text('#run-actions')).toContain(tr('Pay at (GMT+7, optional)'));
      await shot(page, 'run-pay-at');
      await page.locator('#approve-run').click();
      await poll(() => text('#run-status')).toBe(status('scheduled'));
      expect(await text('#run-execute-at')).toContain(`${date}/${month}/${year} 09:30:00`);
      expect(await text('#run-actions')).toContain(tr('Cancel scheduled run'));
      await shot(page, 'run-scheduled');
      await page.locator('#cancel-run').click();
      await poll(() => text('#run-status')).toBe(status('cancelled'));
      await signOut();
    });

    it('payments: an authorized payment captured, then partly refunded, with its timeline', async () => {
      const paymentId = `pay-${tag}`;
      const created = await api$(people.admin.key, 'POST', '/v1/payments', {
        paymentId,
        requestType: 'captureWallet',
        amount: 120_000,
        orderInfo: 'Đơn hàng hai bước',
        autoCapture: false,
      });
      expect([201, 202], JSON.stringify(created.body)).toContain(created.status);
      sandbox.admin.approvePayment(paymentId);
      await eventually(async () => {
        expect((await api$(people.admin.key, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe(
          'authorized_not_captured',
        );
      });

      await signIn(people.admin);
      await page.goto(`${api.baseUrl}/console#/payments?status=authorized_not_captured&q=${paymentId}`);
      await poll(() => rowOf(paymentId).count()).toBe(1);
      expect(await rowOf(paymentId).textContent()).toContain(status('authorized_not_captured'));
      await shot(page, 'payments-list');
      await rowOf(paymentId).getByRole('link', { name: paymentId }).click();
      await page.locator('#capture').click();
      await poll(() => text('#action-outcome')).toBe(tr('Payment captured.'));
      await poll(() => text('#detail-status')).toBe(status('succeeded'));
      await poll(() => text('#refundable')).toBe(vnd(120_000));
      // The browser runs in UTC: dates are still Vietnam's time, day first, with the zone.
      expect(await text('#detail-summary')).toMatch(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} GMT\+7/);

      await page.locator('#refund-amount').fill('20000');
      await page.locator('#refund').click();
      await poll(() => text('#action-outcome')).toBe(tr('Refund requested.'));
      await poll(() => page.locator('table.refunds tbody tr').count()).toBe(1);
      await poll(() => text('#refundable')).toBe(vnd(100_000));
      // The timeline holds the gateway's notification and both people's actions.
      // Both waited for: the timeline is fetched again after the refund, apart from the summary above it.
      await poll(() => text('#detail-timeline')).toContain('payment.capture');
      await poll(() => text('#detail-timeline')).toContain('payment.refund');
      expect(await text('#detail-timeline')).toContain(people.admin.name);
      await shot(page, 'payment-detail');
    }, 60_000);

    it('subscriptions: a real subscription paused and resumed from its page', async () => {
      const subscriptionId = `sub${tag}`;
      const nextDay = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
      const created = await api$(people.admin.key, 'POST', '/v1/subscriptions', {
        subscriptionId,
        partnerClientId: `client${tag}`,
        orderInfo: 'Gói tập gym',
        amount: 0,
        subscriptionInfo: {
          name: 'Gym',
          subsOwner: '0912345678',
          partnerSubsId: `GYM-${tag}`,
          type: 'FIXED',
          recurringAmount: 99_000,
          frequency: 'MONTHLY',
          nextPaymentDate: nextDay,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      sandbox.admin.approvePayment(subscriptionId);
      await eventually(async () => {
        expect((await api$(people.admin.key, 'GET', `/v1/subscriptions/${subscriptionId}`)).body.status).toBe(
          'active',
        );
      });

      await page.goto(`${api.baseUrl}/console#/subscriptions?q=${subscriptionId}`);
      await poll(() => rowOf(subscriptionId).count()).toBe(1);
      expect(await rowOf(subscriptionId).textContent()).toContain(vnd(99_000));
      await shot(page, 'subscriptions-list');
      await rowOf(subscriptionId).getByRole('link', { name: subscriptionId }).click();
      await page.locator('#manage-reason').fill('Khách đi du lịch');
      await page.locator('#pause').click();
      await poll(() => text('#detail-status')).toBe(status('paused'));
      const [year, month, day] = nextDay.split('-');
      expect(await text('#next-charge')).toBe(`${day}/${month}/${year}`);
      await page.locator('#reactivate').click();
      await poll(() => text('#detail-status')).toBe(status('reactivating'));
      await poll(() => text('#detail-timeline')).toContain('subscription.pause');
      await shot(page, 'subscription-detail');
    }, 60_000);

    it('disbursements: one created through the form, paid, in the list', async () => {
      await page.goto(`${api.baseUrl}/console#/disbursements/new`);
      // The ranges the form states are the operation table's (served by GET /v1/console/config).
      const [walletMin, walletMax] = DISBURSEMENT_AMOUNT_RANGES.disburseToWallet;
      await poll(() => text('main')).toContain(`${vnd(walletMin)}–${vnd(walletMax)}`);
      await page.locator('#disbursement-id').fill(`disb-${tag}`);
      await page.locator('#disbursement-amount').fill('75000');
      await page.locator('#disbursement-description').fill('Hoàn phí');
      await page.locator('#wallet-id').fill('0912345678');
      await page.locator('#wallet-name').fill('Lê Văn Cường');
      await shot(page, 'disbursement-form');
      await page.locator('#disbursement-form-submit').click();
      await page.waitForURL(new RegExp(`#/disbursements/disb-${tag}$`));
      await poll(() => text('#detail-status')).toBe(status('succeeded'));
      await page.goto(`${api.baseUrl}/console#/disbursements?status=succeeded&q=disb-${tag}`);
      await poll(() => rowOf(`disb-${tag}`).count()).toBe(1);
      expect(await rowOf(`disb-${tag}`).textContent()).toContain(vnd(75_000));
      await shot(page, 'disbursements-list');
    }, 60_000);

    it('remittances: quote with its age, sent through the form, and one that needs attention', async () => {
      await page.goto(`${api.baseUrl}/console#/remittances/new`);
      await page.locator('#remit-foreign-amount').fill('20');
      await page.locator('#get-quote').click();
      await poll(() => text('#quote')).toContain('1 USD = ');
      await poll(() => text('#quote-age')).toMatch(
        language === 'vi' ? /báo giá \d+ giây trước/ : /quoted \d+ s ago/,
      );
      await page.locator('#remit-wallet').fill('0912345678');
      await page.locator('#remit-wallet-name').fill('Phạm Thị Dung');
      await page.locator('#remit-personal-id').fill('012345678901');
      await page.locator('#remit-sender').fill('John Smith');
      await page.locator('#remit-partner').fill('Acme Remit');
      await shot(page, 'remittance-form');
      await page.locator('#remittance-form-submit').click();
      await page.waitForURL(/#\/remittances\/rmt-\d{8}-[0-9a-f]{8}$/);
      const remittanceId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
      await poll(() => text('#detail-status')).toBe(status('succeeded'));
      expect(await text('#detail-summary')).toContain(maskedWallet);
      await poll(() => text('#detail-timeline')).toContain('remittance.create');
      await shot(page, 'remittance-detail');

      const stuck = await seedRemittance(`rmt-20261123-${randomBytes(4).toString('hex')}`);
      await page.goto(`${api.baseUrl}/console#/remittances?status=needs_attention&q=${stuck}`);
      await poll(() => rowOf(stuck).count()).toBe(1);
      expect(await rowOf(stuck).textContent()).toContain('receiver wallet closed');
      await page.goto(`${api.baseUrl}/console#/remittances?q=${remittanceId}`);
      await poll(() => rowOf(remittanceId).count()).toBe(1);
      await shot(page, 'remittances-list');
    }, 60_000);

    it('approvals: a disbursement, a remittance and a refund over 10 M VND approved from the inbox; the maker cannot approve their own', async () => {
      const requester = people.requester;
      const disbursementId = freshId(`apd-${language}-`);
      const disbursement = await api$(requester.key, 'POST', '/v1/disbursements', {
        disbursementId,
        amount: 20_000_000,
        description: `Thưởng quý ${tag}`,
        wallet: { walletId: '0912345678', walletName: 'Lê Văn Cường', personalId: null },
      });
      expect(disbursement.status, JSON.stringify(disbursement.body)).toBe(201);
      expect(disbursement.body.status).toBe('awaiting_approval');

      const remittance = await api$(
        requester.key,
        'POST',
        '/v1/remittances',
        {
          requestType: 'remitToWallet',
          baseCurrency: 'USD',
          foreignAmount: 500,
          // The VND to send, so the amount the policy weighs is known: one approver from 10 M.
          amount: 12_000_000,
          receiver: { walletId: '0912345678', walletName: 'Phạm Thị Dung', personalId: '012345678901' },
          remittanceInfo: { name: 'John Smith', partnerName: 'Acme Remit', reason: 'RSN01' },
        },
        { 'idempotency-key': randomUUID() },
      );
      expect(remittance.status, JSON.stringify(remittance.body)).toBe(201);
      expect(remittance.body.status).toBe('awaiting_approval');
      const remittanceId = remittance.body.remittanceId as string;

      const paymentId = freshId(`apr-${language}-`);
      const payment = await api$(requester.key, 'POST', '/v1/payments', {
        paymentId,
        requestType: 'captureWallet',
        amount: 12_000_000,
        orderInfo: 'Đơn hàng lớn',
      });
      expect([201, 202], JSON.stringify(payment.body)).toContain(payment.status);
      sandbox.admin.approvePayment(paymentId);
      await eventually(async () =>
        expect((await api$(requester.key, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('succeeded'),
      );
      const refund = await api$(
        requester.key,
        'POST',
        `/v1/payments/${paymentId}/refunds`,
        { amount: 12_000_000, description: `Trả hàng ${tag}` },
        { 'idempotency-key': randomUUID() },
      );
      expect(refund.status, JSON.stringify(refund.body)).toBe(201);
      expect(refund.body.status).toBe('awaiting_approval');
      const refundId = refund.body.refundId as string;

      const row = (id: string) => page.locator('#approvals-body table tbody tr', { hasText: id });
      const progress = (given: number, needed: number) => tr('{given} of {needed}', { given, needed });

      // The maker sees their own request and is refused, in the page's language, when approving it.
      await signIn(requester);
      expect(await page.locator('#nav a[href="#/approvals"]').count()).toBe(1);
      await page.goto(`${api.baseUrl}/console#/approvals`);
      await poll(() => row(disbursementId).count()).toBe(1);
      await page.locator(`#approve-disbursement-${disbursementId}`).click();
      const refusal = page.locator('#approvals-feedback .error-box');
      await poll(() => refusal.getAttribute('data-code')).toBe('own_request');
      expect(await refusal.locator('.error-message').innerText()).toBe(
        language === 'vi'
          ? messages.VI_ERRORS.own_request
          : `${requester.name} asked for ${disbursementId} and cannot approve it; another person must.`,
      );
      await shot(page, 'approvals-own-request');
      // The item's page says it waits, for whom, and links to the inbox.
      await row(disbursementId).getByRole('link', { name: disbursementId }).click();
      await page.waitForURL(new RegExp(`#/disbursements/${disbursementId}$`));
      await poll(() => text('#approval-line')).toContain(progress(0, 1));
      expect(await text('#approval-line')).toContain(requester.name);
      expect(await text('#detail-status')).toBe(status('awaiting_approval'));
      await shot(page, 'disbursement-awaiting-approval');
      // A refund waits within its payment's page; its link opens the inbox filtered to refunds.
      await page.goto(`${api.baseUrl}/console#/payments/${paymentId}`);
      await poll(() => text(`#approval-${refundId}-line`)).toContain(progress(0, 1));
      await page.locator(`#approval-${refundId}-inbox-link`).click();
      await page.waitForURL(/#\/approvals\?kind=refund$/);
      await poll(() => row(refundId).count()).toBe(1);
      expect(await row(disbursementId).count()).toBe(0);
      await signOut();

      // The approver finds the three with what, how much, to whom and who asked, and approves each.
      await signIn(people.approver);
      const waiting = page.locator('#dashboard li[data-check="#/approvals"]');
      await poll(async () =>
        Number((await waiting.locator('.dashboard-count').textContent())?.replace(/\D/g, '') || 0),
      ).toBeGreaterThanOrEqual(3);
      expect(await waiting.textContent()).toContain(
        tr('Disbursements, refunds and remittances waiting for approval'),
      );
      await page.goto(`${api.baseUrl}/console#/approvals?kind=refund`);
      await poll(() => row(refundId).count()).toBe(1);
      await page.locator('#approvals-kind').selectOption('');
      await page.waitForURL(/#\/approvals$/);
      const expected: Array<[string, string, number, string, string]> = [
        ['disbursement', disbursementId, 20_000_000, maskedWallet, `Thưởng quý ${tag}`],
        ['remittance', remittanceId, 12_000_000, maskedWallet, ''],
        [
          'refund',
          refundId,
          12_000_000,
          served(`payer of payment ${paymentId}`, `người đã trả khoản thanh toán ${paymentId}`),
          `Trả hàng ${tag}`,
        ],
      ];
      for (const [, id, amount, receiver, why] of expected) {
        await poll(() => row(id).count()).toBe(1);
        const cells = await row(id).locator('td, th').allInnerTexts();
        expect(cells[1]).toBe(vnd(amount));
        expect(cells[2]).toBe(receiver);
        expect(cells[3]).toContain(requester.name);
        if (why) expect(cells[4]).toBe(why);
        expect(cells[5]).toContain(progress(0, 1));
      }
      await shot(page, 'approvals-inbox');
      for (const [kind, id] of expected) {
        await page.locator(`#note-${kind}-${id}`).fill('Đã kiểm tra hóa đơn');
        await page.locator(`#approve-${kind}-${id}`).click();
        await poll(() => text('#action-outcome')).toContain(id);
        await poll(() => row(id).count()).toBe(0);
      }
      await shot(page, 'approvals-inbox-after');

      // Each reaches its end, paid once.
      await eventually(async () => {
        expect((await api$(requester.key, 'GET', `/v1/disbursements/${disbursementId}`)).body.status).toBe(
          'succeeded',
        );
        expect((await api$(requester.key, 'GET', `/v1/remittances/${remittanceId}`)).body.status).toBe(
          'succeeded',
        );
        const refunds = (await api$(requester.key, 'GET', `/v1/payments/${paymentId}/refunds`)).body.refunds;
        expect(refunds).toMatchObject([{ refundId, status: 'succeeded' }]);
      });
      await page.goto(`${api.baseUrl}/console#/disbursements/${disbursementId}`);
      await poll(() => text('#detail-status')).toBe(status('succeeded'));
      expect(await page.locator('#approval-line').count()).toBe(0);
      const approval = await api$(requester.key, 'GET', `/v1/approvals/disbursement/${disbursementId}`);
      expect(approval.body).toMatchObject({
        status: 'approved',
        decisions: [{ decision: 'approve', by: people.approver.name, note: 'Đã kiểm tra hóa đơn' }],
      });
      // The pages after this one read as the admin.
      await signIn(people.admin);
    }, 120_000);

    it('holds: two admins hold charges, a charge stops before the gateway, the panel shows it, two admins release', async () => {
      // A card saved through the gateway, to charge while charges are held.
      const methodId = await bindCard(`holder-${tag}`, 'Tran Thi Binh');
      const holdOf = async (kind: string) =>
        (
          (await api$(people.admin.key, 'GET', '/v1/holds')).body.holds as Array<{
            kind: string;
            status: string;
          }>
        ).find((hold) => hold.kind === kind);
      const reason = `Cổng thanh toán báo lỗi trùng giao dịch ${tag}`;

      // Admin A proposes holding charges, with a reason.
      await signIn(people.admin);
      expect(await page.locator('#nav a[href="#/holds"]').count()).toBe(1);
      await page.goto(`${api.baseUrl}/console#/holds`);
      await poll(() => page.locator('#holds-body [data-kind]').count()).toBe(6);
      await page.locator('#hold-reason-charge').fill(reason);
      await page.locator('#hold-charge').click();
      await poll(() => text('#hold-status-charge')).toBe(status('proposed'));
      expect(await text('#hold-reason-text-charge')).toBe(reason);
      // The same admin cannot confirm their own proposal.
      await page.locator('#hold-charge').click();
      await poll(() => page.locator('#holds-feedback .error-box').getAttribute('data-code')).toBe(
        'self_approval',
      );
      await shot(page, 'holds-proposed');
      await signOut();

      // Admin B confirms: charges are held, the panel shows who held them, why, and what waits.
      await signIn(people.admin2);
      await page.goto(`${api.baseUrl}/console#/holds`);
      await poll(() => text('#hold-status-charge')).toBe(status('proposed'));
      await page.locator('#hold-charge').click();
      await poll(() => text('#hold-status-charge')).toBe(status('held'));
      expect(await text('#hold-who-charge')).toContain(people.admin2.name);
      expect(await text('#hold-reason-text-charge')).toBe(reason);
      expect((await holdOf('charge'))?.status).toBe('held');

      // A charge made now stops before the gateway: the panel counts it, with its amount.
      const heldPaymentId = `held-${tag}`;
      const charge = await api$(people.payments.key, 'POST', '/v1/saved-method-payments', {
        paymentId: heldPaymentId,
        methodId,
        amount: 275_000,
        description: 'Held order',
      });
      expect(charge.status, JSON.stringify(charge.body)).toBe(201);
      expect(charge.body).toMatchObject({ paymentId: heldPaymentId, held: true });
      await poll(() => text('#held-count-charge')).toBe('1');
      expect(await text('#held-total-charge')).toBe(vnd(275_000));
      expect(sandbox.admin.requests().filter((call) => JSON.stringify(call).includes(heldPaymentId))).toEqual(
        [],
      );
      await shot(page, 'holds-held');

      // Admin B proposes the release at a rate, admin A confirms it; charges are no longer held.
      await page.locator('#release-rate-charge').fill('30');
      await page.locator('#release-charge').click();
      await poll(() => text('#hold-status-charge')).toBe(status('release_proposed'));
      await signOut();
      await signIn(people.admin);
      await page.goto(`${api.baseUrl}/console#/holds`);
      await poll(() => page.locator('#release-rate-charge').inputValue()).toBe('30');
      await page.locator('#release-charge').click();
      await poll(() => text('#hold-status-charge')).toBe(status('off'));
      expect((await holdOf('charge'))?.status).toBe('off');
      // Released, the charge goes to the gateway once.
      await eventually(() =>
        expect(
          sandbox.admin.requests().filter((call) => JSON.stringify(call).includes(heldPaymentId)).length,
        ).toBeGreaterThan(0),
      );
      await shot(page, 'holds-released');
    }, 120_000);

    it('saved-method payments and saved methods: a payment waiting for an OTP, and the customer’s masked card', async () => {
      const seeded = await seedSavedMethodPayment(tag);
      await page.goto(
        `${api.baseUrl}/console#/saved-method-payments?status=awaiting_otp&q=${seeded.paymentId}`,
      );
      await poll(() => rowOf(seeded.paymentId).count()).toBe(1);
      expect(await rowOf(seeded.paymentId).textContent()).toContain(status('awaiting_otp'));
      await shot(page, 'saved-method-payments-list');
      await rowOf(seeded.paymentId).getByRole('link', { name: seeded.paymentId }).click();
      await poll(() => text('#detail-summary')).toContain(vnd(150_000));
      expect(await text('#detail-summary')).toContain(tr('The customer must enter the one-time code.'));
      await shot(page, 'saved-method-payment-detail');

      await page.goto(`${api.baseUrl}/console#/methods?customer=${seeded.customer}`);
      const method = page.locator('table.methods tbody tr', { hasText: seeded.methodId });
      await poll(() => method.count()).toBe(1);
      expect(await method.textContent()).toContain('•••• 4242');
      expect(await method.locator(`#revoke-${seeded.methodId}`).count()).toBe(1);
      await shot(page, 'saved-methods');
    });

    it('dashboard: what needs a person now, each line a filtered list', async () => {
      await seedPausedSubscription(`paused${tag}`);
      await page.goto(`${api.baseUrl}/console#/dashboard`);
      const paused = page.locator('#dashboard li[data-check="#/subscriptions?status=paused"]');
      await poll(async () =>
        Number((await paused.locator('.dashboard-count').textContent())?.replace(/\D/g, '') || 0),
      ).toBeGreaterThan(0);
      expect(await paused.textContent()).toContain(tr('Paused subscriptions'));
      await shot(page, 'dashboard');
      await paused.getByRole('link').click();
      await page.waitForURL(/#\/subscriptions\?status=paused$/);
      await page.locator('#filter-q').fill(`paused${tag}`);
      await page.locator('#apply-filter').click();
      await poll(() => rowOf(`paused${tag}`).count()).toBe(1);
    });

    it('payees: a name mismatch stands out; the proposer cannot approve their own change, another person can', async () => {
      const walletId = `09${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}5555`;
      sandbox.admin.registerWalletHolder(walletId, 'NGUYEN VAN BINH');
      const saved = await api$(people.maker.key, 'POST', '/v1/payees', {
        name: `Tran Thi Hoa ${tag}`,
        wallet: { walletId },
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      const payeeId = saved.body.payeeId as string;
      const proposed = await api$(people.maker.key, 'POST', `/v1/payees/${payeeId}/changes`, {
        name: 'Nguyen Van Binh',
        wallet: { walletId },
      });
      expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);

      await signIn(people.maker);
      await page.goto(`${api.baseUrl}/console#/payees?q=${encodeURIComponent(payeeId)}`);
      await poll(() => rowOf(payeeId).count()).toBe(1);
      expect(await rowOf(payeeId).locator('.name-mismatch').count()).toBe(1);
      await rowOf(payeeId).getByRole('link', { name: payeeId, exact: true }).click();
      await page.locator('#name-check .name-mismatch').waitFor();
      expect(await page.locator('#open-change').textContent()).toContain('Nguyen Van Binh');
      await shot(page, 'payee');
      // The proposer's own approval is refused, in the page's language, and nothing changes.
      await page.locator('#approve-change').click();
      await poll(() => page.locator('.error, [role="alert"]').first().textContent()).toContain(
        language === 'vi' ? 'không thể tự duyệt' : 'cannot approve it',
      );
      await shot(page, 'payee-own-approval-refused');

      await signIn(people.approver);
      await page.goto(`${api.baseUrl}/console#/payees/${encodeURIComponent(payeeId)}`);
      await page.locator('#approve-change').click();
      await poll(
        async () => (await api$(people.approver.key, 'GET', `/v1/payees/${payeeId}`)).body.version,
      ).toBe(2);
      await poll(() => page.locator('#open-change').count()).toBe(0);
      expect(await page.locator('#name-check .name-match').count()).toBe(1);
    });

    it('dashboard: an approver sets a balance threshold; a low balance shows as a banner', async () => {
      await signIn(people.approver);
      await page.goto(`${api.baseUrl}/console#/dashboard`);
      await page.locator('#threshold-form').waitFor();
      // The sandbox holds 10,000 USD: a threshold of 1,000,000 makes the watcher's first reading low.
      await page.locator('#threshold-currency').selectOption('USD');
      await page.locator('#threshold-amount').fill('1000000');
      await page.locator('#threshold-form button[type="submit"]').click();
      await poll(() => page.locator('#threshold-feedback').textContent()).toContain(tr('Threshold saved.'));
      const banner = page.locator('#balance-banners .balance-low[data-currency="USD"]');
      await banner.waitFor({ timeout: 20_000 });
      expect(await banner.getAttribute('role')).toBe('alert');
      expect(await banner.textContent()).toContain(
        language === 'vi' ? 'Số dư USD đang thấp' : 'The USD balance is low',
      );
      expect(await page.locator('#threshold-list').textContent()).toContain(tr('Low'));
      await shot(page, 'dashboard-balance-low');
    });

    it('subscriptions (billing): the next amount of a real VARIABLE subscription set from its page', async () => {
      await signIn(people.billing);
      const subscriptionId = `var${tag}`;
      const nextDay = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
      const created = await api$(people.billing.key, 'POST', '/v1/subscriptions', {
        subscriptionId,
        partnerClientId: `client-var${tag}`,
        orderInfo: 'Điện nước theo tháng',
        amount: 0,
        subscriptionInfo: {
          name: 'Điện nước',
          subsOwner: '0912345678',
          partnerSubsId: `UTIL-${tag}`,
          type: 'VARIABLE',
          recurringAmount: 80_000,
          frequency: 'MONTHLY',
          nextPaymentDate: nextDay,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      sandbox.admin.approvePayment(subscriptionId);
      const view = () => api$(people.billing.key, 'GET', `/v1/subscriptions/${subscriptionId}`);
      await eventually(async () => expect((await view()).body.status).toBe('active'));
      expect((await view()).body.nextChargeAmount).toBeNull();

      await page.goto(`${api.baseUrl}/console#/subscriptions?q=${subscriptionId}`);
      await poll(() => rowOf(subscriptionId).count()).toBe(1);
      await rowOf(subscriptionId).getByRole('link', { name: subscriptionId }).click();
      await poll(() => text('#next-charge-amount')).toBe(tr('not reported: the cycle is skipped'));
      await page.locator('#next-amount').fill('45000');
      await page.locator('#set-amount').click();
      await poll(() => text('#action-outcome')).toBe(tr('Next amount set.'));
      await poll(() => text('#next-charge-amount')).toBe(vnd(45_000));
      const after = (await view()).body;
      expect(after).toMatchObject({ status: 'active', nextCycle: 1, nextChargeAmount: 45_000 });
      expect(after.recurringAmount).toBe(80_000);
      // Billing may not read the audit log: the timeline shows the record's steps, not who did what.
      await poll(() => text('#detail-timeline')).toContain(tr('What happened, oldest first'));
      expect(await text('#detail-timeline')).not.toContain('subscription.set_amount');
      await shot(page, 'subscription-variable-amount');
    }, 60_000);

    it('payments (payments role): a card terminal settled from the list, its card payment no longer refundable', async () => {
      await signIn(people.payments);
      const storeId = `store-${tag}`;
      const serialNumber = `SN-${tag}`;
      const paymentId = `edc-${tag}`;
      const created = await api$(people.payments.key, 'POST', '/v1/payments', {
        paymentId,
        requestType: 'payWithEdc',
        storeId,
        serialNumber,
        instrumentType: 'CARD',
        amount: 230_000,
        orderInfo: 'Quầy 2',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      sandbox.admin.approvePayment(paymentId);
      const view = () => api$(people.payments.key, 'GET', `/v1/payments/${paymentId}`);
      await eventually(async () => expect((await view()).body.status).toBe('succeeded'));
      expect((await view()).body).toMatchObject({ settledAt: null, refundableAmount: 230_000 });

      await page.goto(`${api.baseUrl}/console#/payments?q=${paymentId}`);
      await poll(() => rowOf(paymentId).count()).toBe(1);
      await page.getByText(tr('Settle a card terminal')).click();
      await page.locator('#settle-store').fill(storeId);
      await page.locator('#settle-serial').fill(serialNumber);
      await page.locator('#settle-terminal').click();
      await poll(() => text('#action-outcome')).toBe(
        tr('Terminal settled: {count} card payments, no longer refundable through payrun.', { count: 1 }),
      );
      await shot(page, 'terminal-settled');
      // The gateway recorded one settlement of this terminal, of this payment's amount.
      const settlements = sandbox.admin
        .ledger()
        .filter((entry) => entry.kind === 'settlement' && entry.method === `${storeId}/${serialNumber}`);
      expect(settlements).toMatchObject([{ outcome: 'succeeded', amount: 230_000 }]);
      const settled = (await view()).body;
      expect(settled.settledAt).toEqual(expect.any(String));
      expect(settled.refundableAmount).toBe(0);

      await rowOf(paymentId).getByRole('link', { name: paymentId }).click();
      await poll(() => text('#refundable')).toBe(vnd(0));
      expect(await text('#detail-summary')).toContain(tr('Settled at the terminal'));
      expect(await page.locator('#refund').count()).toBe(0);
    }, 60_000);

    it('saved methods (payments role): a card bound through the gateway, revoked from the customer’s page', async () => {
      await signIn(people.payments);
      const customer = `cardholder-${tag}`;
      const methodId = await bindCard(customer, 'Nguyen Van An');
      expect(sandbox.admin.tokens(customer).map((token) => token.status)).toEqual(['active']);

      await page.goto(`${api.baseUrl}/console#/methods?customer=${customer}`);
      const method = page.locator('table.methods tbody tr', { hasText: methodId });
      await poll(() => method.count()).toBe(1);
      expect(await method.textContent()).toContain(status('active'));
      await method.locator(`#revoke-${methodId}`).click();
      await poll(() => text('#action-outcome')).toBe(tr('Method {id} revoked.', { id: methodId }));
      await poll(() => method.locator('[data-status]').textContent()).toBe(status('deleted'));
      expect(await page.locator(`#revoke-${methodId}`).count()).toBe(0);
      await shot(page, 'saved-method-revoked');
      const methods = await api$(
        people.payments.key,
        'GET',
        `/v1/customers/${customer}/saved-methods?all=true`,
      );
      expect(methods.body.methods).toMatchObject([{ methodId, status: 'deleted' }]);
      // The gateway revoked the token: it can pay no more.
      expect(sandbox.admin.tokens(customer).map((token) => token.status)).toEqual(['revoked']);
    }, 60_000);

    it('webhook endpoints: a disabled one on the dashboard with its reason, enabled again from its page', async () => {
      await signIn(people.admin);
      // Nothing listens on port 9; the endpoint receives saved-method revocations only (none here).
      const created = await api$(people.admin.key, 'POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hook',
        eventTypes: ['saved_method.revoked'],
        description: `console ${tag}`,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const endpointId = created.body.endpointId as string;
      // As the delivery workflow writes it when the receiver refused an event for the whole window.
      const reason = `saved_method.revoked evt_${tag} refused for 3 days: connect ECONNREFUSED`;
      await disableEndpoint(db, endpointId, reason);

      await page.goto(`${api.baseUrl}/console#/dashboard`);
      const disabled = page.locator('#dashboard li[data-check="#/webhook-endpoints?status=disabled"]');
      const line = disabled.locator(`li[data-endpoint="${endpointId}"]`);
      await poll(() => line.count()).toBe(1);
      expect(await disabled.textContent()).toContain(
        tr('Webhook endpoints disabled: their receiver kept failing, no events are sent to them'),
      );
      // On a Vietnamese page the English reason stays behind its "details in English" disclosure.
      const shownReason = language === 'vi' ? `${tr('Details in English')}${reason}` : reason;
      expect(await line.textContent()).toBe(`http://127.0.0.1:9/hook: ${shownReason}`);
      await shot(page, 'dashboard-webhook-disabled');

      await line.getByRole('link').click();
      await page.waitForURL(new RegExp(`#/webhook-endpoints/${endpointId}$`));
      await poll(() => page.locator('#disabled-reason').textContent()).toBe(shownReason);
      expect(await text('#detail-status')).toBe(status('disabled'));
      await page.locator('#enable-endpoint').click();
      await poll(() => text('#action-outcome')).toBe(
        tr('Endpoint enabled: deliveries resume where they stopped.'),
      );
      await poll(() => text('#detail-status')).toBe(status('active'));
      await poll(() => text('#detail-timeline')).toContain('webhook_endpoint.enable');
      await shot(page, 'webhook-endpoint');

      await page.goto(`${api.baseUrl}/console#/webhook-endpoints?status=active&q=${endpointId}`);
      await poll(() => rowOf(endpointId).count()).toBe(1);
      expect(await rowOf(endpointId).textContent()).toContain('http://127.0.0.1:9/hook');
      await shot(page, 'webhook-endpoints-list');
      await api$(people.admin.key, 'DELETE', `/v1/webhook-endpoints/${endpointId}`);
    });

    it('audit log: the actions of this file, filtered, and as CSV', async () => {
      await page.goto(
        `${api.baseUrl}/console#/audit?actor=${encodeURIComponent(people.admin.name)}&q=pay-${tag}`,
      );
      const rows = page.locator('#audit-body table tbody tr');
      await poll(() => rows.count()).toBe(3);
      // Each action in the page's language (api/console/audit-actions.js); the recorded code in data-action.
      const actions = rows.locator('td:nth-child(3) [data-action]');
      expect(
        await actions.evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-action'))),
      ).toEqual(['payment.refund', 'payment.capture', 'payment.create']);
      expect(await actions.allTextContents()).toEqual(
        ['Refund a payment', 'Capture a payment', 'Create a payment'].map((english) => tr(english)),
      );
      await shot(page, 'audit-log');
      const csv = await downloadText(page, () => page.locator('#download-audit').click());
      expect(csv.name).toBe('payrun-audit-log.csv');
      const lines = csv.text.trim().split('\r\n');
      expect(lines).toHaveLength(4);
      expect(lines[1]).toContain(',payment.refund,payment,');

      // At half the width (200% zoom) nothing is cut off: tables scroll in place.
      await page.setViewportSize({ width: 640, height: 900 });
      await shot(page, 'audit-log-200-percent');
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      expect(pageErrors).toEqual([]);
    });

    if (language === 'vi') {
      it('leaves no English word on any Vietnamese page it visited', async () => {
        // The one page no step above opens: an address the console does not know.
        await page.goto(`${api.baseUrl}/console#/no-such-page`);
        await poll(() => text('#page-heading')).toBe(tr('Nothing here'));
        await shot(page, 'not-found');
        // Every page, element and word at once, so one run lists every fix.
        expect(englishFound, `English on Vietnamese pages:\n${englishFound.join('\n')}`).toEqual([]);
      });
    }
  });
}

/** Records written as the workers write them, for the pages no workflow here can reach quickly. */
async function seedRemittance(remittanceId: string) {
  await db('remittances').insert({
    remittance_id: remittanceId,
    order_id: `${remittanceId}-o`,
    workflow_id: `remittance/${remittanceId}`,
    status: 'needs_attention',
    attention_reason: 'receiver wallet closed',
    request_type: 'remitToWallet',
    auto_capture: true,
    base_currency: 'USD',
    foreign_amount: 100,
    receiver_label: 'wallet ****5678',
    receiver_details: JSON.stringify({ walletId: '0912345678' }),
    remittance_info: JSON.stringify({ reason: 'RSN01' }),
    reason: 'RSN01',
    created_by_key: 'console-test',
    created_by: people.admin.name,
  });
  return remittanceId;
}

async function seedPausedSubscription(subscriptionId: string) {
  await db('subscriptions').insert({
    subscription_id: subscriptionId,
    workflow_id: `subscription/${subscriptionId}`,
    partner_client_id: `client-${subscriptionId}`,
    name: 'Gói tháng',
    type: 'FIXED',
    recurring_amount: 99_000,
    frequency: 'MONTHLY',
    initial_amount: 99_000,
    status: 'paused',
    status_reason: 'two charges failed: insufficient funds',
    created_by_key: 'console-test',
    created_by: people.admin.name,
  });
}

async function seedSavedMethodPayment(tag: string) {
  const by = { created_by_key: 'console-test', created_by: people.admin.name };
  const customer = `client-${tag}`;
  const bindingId = `bind-${tag}`;
  await db('saved_method_bindings').insert({
    binding_id: bindingId,
    order_id: `${bindingId}-o`,
    workflow_id: `saved-method-binding/${bindingId}`,
    kind: 'card',
    request_type: 'payWithCC',
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    amount: 10_000,
    status: 'active',
    ...by,
  });
  const methodId = `method-${tag}`;
  await db('saved_methods').insert({
    method_id: methodId,
    binding_id: bindingId,
    initial_order_id: `${bindingId}-o`,
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    kind: 'card',
    card_last4: '4242',
    token_ciphertext: 'sealed-elsewhere',
    status: 'active',
  });
  const paymentId = `tp-${tag}`;
  await db('saved_method_payments').insert({
    payment_id: paymentId,
    order_id: `${paymentId}-o`,
    workflow_id: `saved-method-payment/${paymentId}`,
    method_id: methodId,
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    kind: 'card',
    amount: 150_000,
    state: 'awaiting_otp',
    ...by,
  });
  return { paymentId, methodId, customer };
}
