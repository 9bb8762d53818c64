/**
 * The finance console in a real headless Chromium (Debian's, installed by scripts/install-browser.sh;
 * playwright-core only drives it), against a full stack on the shared dev server in real time: the
 * sandbox gateway, the API serving the console, and a worker. A maker uploads a file with errors and
 * a good one; an approver approves; the page follows the run to "reconciled"; results download.
 * Each step leaves a full-page screenshot in test-output/console/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createApp } from '../../api/app';
import type { Db } from '../../db/knex';
import { createLogger } from '../../platform/logger';
import { generateSandboxKeyPair, startSandbox, type Sandbox } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { PAYOUT_HEADER } from '../support/payout-stack';
import { testApiSettings, testMerchant, testPayoutSettings } from '../support/settings';
import { connectDevServer, createTestWorker, testCodecKeyring } from '../support/temporal';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-output/console');

let env: TestWorkflowEnvironment;
let db: Db;
let sandbox: Sandbox;
let api: RunningApi;
let worker: Worker;
let workerRun: Promise<void>;
let browser: Browser | undefined;
const suffix = randomUUID().slice(0, 8);
const maker = { name: `Mai Maker ${suffix}`, key: '' };
const approver = { name: `An Approver ${suffix}`, key: '' };
const admin = { name: `Ada Admin ${suffix}`, key: '' };

beforeAll(async () => {
  env = await connectDevServer();
  db = connectTestDatabase();
  const keyPair = generateSandboxKeyPair();
  // Real time: the sandbox answers quickly, but slowly enough that the page shows a run in progress.
  sandbox = await startSandbox({
    merchant: testMerchant,
    keyPair,
    timing: { ipnDelayMs: 50, batchValidationMs: 300, batchPaymentMs: 600, pendingSettleMs: 500 },
    balances: { VND: 100_000_000_000 },
  });
  const taskQueue = `console-${randomUUID()}`;
  // Ten rows a batch, so a 25-row file shows three batches, each with its own progress bar.
  const payouts = { ...testPayoutSettings(taskQueue), batchSize: 10 };
  api = await listen(
    createApp({
      db,
      temporal: env.client,
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings(taskQueue, { payouts }),
      console: { temporalUiUrl: 'http://127.0.0.1:8233', namespace: env.namespace ?? 'default' },
    }),
  );
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
  });
  worker = (await createTestWorker(env, activities, taskQueue)).worker;
  workerRun = worker.run();
  maker.key = await newKey(db, ['payouts-maker'], maker.name);
  approver.key = await newKey(db, ['payouts-approver'], approver.name);
  admin.key = await newKey(db, ['admin'], admin.name);
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await api?.close();
  await sandbox?.close();
  await db?.destroy();
  await env?.teardown();
});

const vnd = (amount: number) =>
  new Intl.NumberFormat('vi-VN', { style: 'currency', currency: 'VND' }).format(amount);

function goodFile(rows: number): { csv: string; total: number } {
  const lines = Array.from(
    { length: rows },
    (_, index) =>
      `console-${suffix}-${index + 1},0912345678,Nguyễn Văn ${index + 1},,${50_000 + index * 1000},Lương tháng ${index + 1},`,
  );
  const total = Array.from({ length: rows }, (_, index) => 50_000 + index * 1000).reduce((a, b) => a + b, 0);
  return { csv: [PAYOUT_HEADER, ...lines].join('\n') + '\n', total };
}

const badFile = [
  PAYOUT_HEADER,
  `bad-${suffix}-1,0912345678,Trần Thị A,,100000,ok,`,
  `bad-${suffix}-2,0912345678,Trần Thị B,,1.000.000,separators,`,
  `bad-${suffix}-3,0912345678,,,20000,no name,`,
  `bad-${suffix}-1,0912345678,Trần Thị C,,30000,repeated id,`,
].join('\n');

/**
 * One record for each list page that this file does not drive through a workflow, written the way the
 * workers write them, with ids of this run so the assertions cannot be met by another file's rows.
 */
async function seedListRecords() {
  const by = { created_by_key: 'console-test', created_by: admin.name };
  const subscriptionId = `sub-${suffix}`;
  await db('subscriptions').insert({
    subscription_id: subscriptionId,
    workflow_id: `subscription/${subscriptionId}`,
    partner_client_id: `client-${suffix}`,
    name: 'Gói tháng',
    type: 'FIXED',
    recurring_amount: 99_000,
    frequency: 'MONTHLY',
    initial_amount: 99_000,
    status: 'paused',
    status_reason: 'two charges failed: insufficient funds',
    ...by,
  });
  const bindingId = `bind-${suffix}`;
  await db('bindings').insert({
    binding_id: bindingId,
    order_id: `${bindingId}-o`,
    workflow_id: `binding/${bindingId}`,
    kind: 'card',
    request_type: 'payWithCC',
    partner_client_id: `client-${suffix}`,
    gateway_client_id: `gw-${suffix}`,
    amount: 10_000,
    status: 'active',
    ...by,
  });
  const methodId = `method-${suffix}`;
  await db('saved_methods').insert({
    method_id: methodId,
    binding_id: bindingId,
    initial_order_id: `${bindingId}-o`,
    partner_client_id: `client-${suffix}`,
    gateway_client_id: `gw-${suffix}`,
    kind: 'card',
    card_last4: '4242',
    token_ciphertext: 'sealed-elsewhere',
    status: 'active',
  });
  const tokenPaymentId = `tp-${suffix}`;
  await db('token_payments').insert({
    payment_id: tokenPaymentId,
    order_id: `${tokenPaymentId}-o`,
    workflow_id: `token-payment/${tokenPaymentId}`,
    method_id: methodId,
    partner_client_id: `client-${suffix}`,
    gateway_client_id: `gw-${suffix}`,
    kind: 'card',
    amount: 150_000,
    state: 'awaiting_otp',
    ...by,
  });
  const remittanceId = `rem-${suffix}`;
  await db('remittances').insert({
    remittance_id: remittanceId,
    order_id: `${remittanceId}-o`,
    workflow_id: `remittance/${remittanceId}`,
    status: 'needs_attention',
    request_type: 'remitToWallet',
    auto_capture: true,
    base_currency: 'USD',
    foreign_amount: 100,
    receiver_label: 'wallet ****5678',
    receiver_details: JSON.stringify({ walletId: '0912345678' }),
    remittance_info: JSON.stringify({ reason: 'RSN01' }),
    reason: 'RSN01',
    ...by,
  });
  return { subscriptionId, tokenPaymentId, remittanceId };
}

let shotNumber = 0;
async function shot(page: Page, name: string): Promise<void> {
  shotNumber += 1;
  const file = path.join(SHOTS, `${String(shotNumber).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
}

async function signIn(page: Page, who: { name: string; key: string }): Promise<void> {
  await page.goto(`${api.baseUrl}/console`);
  await page.getByLabel('API key').fill(who.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.textContent('#signed-in-name')).toBe(who.name);
}

async function downloadText(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
}

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
    locale: 'en-GB',
    timezoneId: 'Asia/Ho_Chi_Minh',
  });
  return context.newPage();
}

describe('finance console', () => {
  it('takes a payout file from upload to reconciled, with a second person approving', async () => {
    const page = await openPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    // 1. Sign in as the maker: upload is offered.
    await page.goto(`${api.baseUrl}/console`);
    await page.getByLabel('API key').waitFor();
    await shot(page, 'sign-in');
    await signIn(page, maker);
    await expect.poll(() => page.getByRole('link', { name: 'Upload payouts' }).count()).toBe(1);
    await shot(page, 'maker-runs-list');

    // 2. A file with errors: every bad row with its column and rule, and nothing to submit.
    await page.getByRole('link', { name: 'Upload payouts' }).click();
    await page.setInputFiles('#payout-file', {
      name: 'salaries-with-errors.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(badFile),
    });
    const errorsTable = page.locator('table.row-errors');
    await errorsTable.waitFor();
    await expect.poll(() => errorsTable.locator('tbody tr').count()).toBe(3);
    const amountError = errorsTable.locator('tbody tr', { hasText: 'plain_digits' });
    expect(await amountError.locator('th').textContent()).toBe('3');
    expect(await amountError.locator('td').first().textContent()).toBe('amount');
    expect(await errorsTable.textContent()).toContain('duplicate_in_file');
    expect(await page.locator('#submit-run').count()).toBe(0);
    await shot(page, 'upload-errors');

    // 3. The error report downloads as CSV with the same rows.
    const report = await downloadText(page, () => page.locator('#download-error-report').click());
    expect(report.name).toBe('salaries-with-errors-errors.csv');
    expect(report.text.split(/\r?\n/)[0]).toBe('row,column,rule,message');
    expect(report.text).toMatch(/^3,amount,plain_digits,/m);
    expect(report.text).toMatch(/^4,wallet_name,required,/m);

    // 4. A good file: count and total in VND, then submit.
    const good = goodFile(25);
    await page.setInputFiles('#payout-file', {
      name: 'salaries-2026-05.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(good.csv),
    });
    await page.locator('#submit-run').waitFor();
    expect(await page.textContent('#preview-total')).toBe(vnd(good.total));
    expect(await page.textContent('#preview')).toContain('25');
    await shot(page, 'upload-preview');
    await page.locator('#submit-run').click();
    await page.waitForURL(/#\/runs\/run-\d{8}-[0-9a-f]{6}$/);
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    await expect.poll(() => page.textContent('#run-status')).toBe('Awaiting approval');
    // The maker sees who uploaded, and no way to approve their own run.
    expect(await page.textContent('#uploaded-by')).toBe(maker.name);
    expect(await page.locator('#approve-run').count()).toBe(0);
    expect(await page.textContent('#run-actions')).toContain('waits for a person with the approver role');
    await shot(page, 'maker-run-awaiting-approval');

    // 5. Sign out; the approver opens the run from the list and approves it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await signIn(page, approver);
    expect(await page.getByRole('link', { name: 'Upload payouts' }).count()).toBe(0);
    await page.getByRole('link', { name: runId, exact: true }).click();
    await page.locator('#approve-run').waitFor();
    await shot(page, 'approver-run-before-approval');
    await page.locator('#approve-run').click();
    await expect.poll(() => page.textContent('#decided-by')).toBe(approver.name);
    await expect.poll(() => page.textContent('#run-status')).toBe('Running');
    await shot(page, 'run-in-progress');

    // 6. The page follows the run by itself until it is reconciled.
    await expect
      .poll(() => page.textContent('#run-status'), { timeout: 30_000, interval: 250 })
      .toBe('Reconciled');
    await expect.poll(() => page.textContent('#reconciliation-outcome')).toContain('Balanced');
    await expect
      .poll(() =>
        page.locator('#run-progress-bar').evaluate((bar) => (bar as unknown as { value: number }).value),
      )
      .toBe(25);
    expect(await page.locator('table.batches tbody tr').count()).toBe(3);
    const temporalLink = page.locator(
      `a.workflow-link[href*="${encodeURIComponent(`payout-run/${runId}`)}"]`,
    );
    expect(await temporalLink.getAttribute('href')).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(`payout-run/${runId}`)}`,
    );
    await shot(page, 'run-reconciled');

    // 7. Items filtered by state.
    await page.getByLabel('Show items in state').selectOption('SUCCEEDED');
    await expect.poll(() => page.locator('table.items caption').textContent()).toContain('state Succeeded');
    expect(await page.locator('table.items tbody tr').count()).toBe(25);
    await page.getByLabel('Show items in state').selectOption('FAILED');
    await expect.poll(() => page.textContent('#items-table')).toBe('No items in state Failed.');
    await page.getByLabel('Show items in state').selectOption('SUCCEEDED');
    await page.locator('table.items').waitFor();
    await shot(page, 'run-items-succeeded');

    // 8. Results download: every row, succeeded.
    const results = await downloadText(page, () => page.locator('#download-results').click());
    expect(results.name).toBe(`${runId}-results.csv`);
    const lines = results.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe(
      'payout_id,row,wallet_id,wallet_name,amount,description,state,result_code,message,trans_id',
    );
    expect(lines).toHaveLength(26);
    expect(lines.slice(1).every((line) => line.includes(',SUCCEEDED,'))).toBe(true);

    // 9. The same page at 200% zoom (half the CSS width): nothing cut off, tables scroll in place.
    await page.setViewportSize({ width: 640, height: 900 });
    await shot(page, 'run-reconciled-200-percent');
    const overflow = await page.evaluate<number>(
      // A string: this file is type-checked without the DOM library.
      'document.documentElement.scrollWidth - window.innerWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);

    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('lists subscriptions, token payments and remittances, each showing a record this test made', async () => {
    const seeded = await seedListRecords();
    const page = await openPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signIn(page, admin);
    for (const [hash, name, id] of [
      ['#/subscriptions', 'subscriptions', seeded.subscriptionId],
      ['#/token-payments', 'token-payments', seeded.tokenPaymentId],
      ['#/remittances', 'remittances', seeded.remittanceId],
    ] as const) {
      await page.goto(`${api.baseUrl}/console${hash}`);
      await expect.poll(() => page.locator('#list-body table tbody tr', { hasText: id }).count()).toBe(1);
      await shot(page, `admin-${name}`);
    }
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
