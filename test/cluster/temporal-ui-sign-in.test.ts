/**
 * In the deployed shape an engineer signs in to the Temporal UI through payrun's provider and reads a
 * disbursement's workflow decoded, masked for their role by payrun's codec: the viewer sees the receiver's
 * wallet as `****7000`, an admin sees it whole. The cluster is what `npm run cluster` runs; the browser is
 * Chromium. Screenshots: test-output/screenshots/temporal-ui-decoded-<role>.png (viewer, admin).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { eventually } from '../support/wait';
import { useCluster } from './cluster-fixture';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-output/screenshots';
/**
 * A wallet the sandbox answers pending (it ends in 7000): the disbursement desk hands such a payout to a workflow
 * of its own, whose input (the receiver) is what the UI decodes. One settled at once has no workflow, and its
 * receiver never reaches Temporal (docs/payout-runs.md, "The disbursement desk").
 */
const WALLET = '0912347000';

const t = useCluster({ workers: 1 });
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run bash scripts/install-browser.sh`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  fs.mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

/**
 * Waits for decoded text on the workflow's page, opening the page again (three times at most) when it
 * shows none after 20 s. Two things on a busy machine call for that, neither of them payrun's codec:
 * - The UI keeps a payload whose decode call timed out as ciphertext until the page is loaded again.
 * - The Temporal UI (2.42) can sign a person out right after the provider sent them back: the page the
 *   callback lands on asks the UI server for the workflow before the UI has taken the person's token from
 *   the callback's cookies, gets 401 and goes to `/login?error=unauthorized`. The token is kept by then,
 *   so opening the workflow again (what a person would do) shows it.
 * A codec that refuses the person still fails here: the trail in the error says what each call answered.
 */
async function waitForDecoded(page: Page, text: string, workflowUrl: string) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await page.getByText(text).first().waitFor({ timeout: 20_000 });
      return;
    } catch (error) {
      if (attempt >= 3) {
        await page.screenshot({ path: path.join(SHOTS, 'temporal-ui-not-decoded.png'), fullPage: true });
        throw new Error(
          `${(error as Error).message}\nOn ${page.url()}, what the page's codec calls and console saw:\n${codecTrail.get(page)?.join('\n')}`,
        );
      }
      await page.goto(workflowUrl);
    }
  }
}

/** Per page: each codec call's answer or failure, and the console's errors, for the failure message. */
const codecTrail = new WeakMap<Page, string[]>();

function watchCodec(page: Page): void {
  const trail: string[] = [];
  codecTrail.set(page, trail);
  const at = () => new Date().toISOString().slice(11, 23);
  page.on('response', (response) => {
    if (!response.url().includes('/codec/') && response.status() < 400) return;
    const request = response.request();
    const timing = request.timing();
    void response
      .text()
      .catch(() => '')
      .then((body) =>
        trail.push(
          `${at()} ${request.method()} ${response.url()} ${response.status()} after ${Math.round(timing.responseEnd)} ms` +
            (response.status() >= 400 ? ` ${body.slice(0, 300)}` : ''),
        ),
      );
  });
  page.on('requestfailed', (request) => {
    if (request.url().includes('/codec/'))
      trail.push(`${at()} ${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      trail.push(`${at()} console ${message.type()}: ${message.text().slice(0, 300)}`);
  });
}

const workflowPathOf = (workflowId: string) =>
  `/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

/** From the UI's SSO entry through the provider's sign-in form, back on the workflow's page. */
async function openWorkflowAs(subject: string, workflowId: string): Promise<Page> {
  // The cluster's codec endpoint is https with a self-signed certificate (scripts/cluster/codec-tls.ts).
  const context = await browser.newContext({
    viewport: { width: 1400, height: 1000 },
    ignoreHTTPSErrors: true,
  });
  const page = await context.newPage();
  watchCodec(page);
  const workflowPath = workflowPathOf(workflowId);
  await page.goto(`${t.cluster.urls.ui}/auth/sso?returnUrl=${encodeURIComponent(workflowPath)}`);
  await page.waitForURL(`${t.cluster.urls.identity}/**`);
  await page.locator('select#subject').selectOption(subject);
  await page.locator('input#password').fill(t.cluster.identityPassword);
  await page.locator('button#sign-in').click();
  // The UI's callback hands the person over in short-lived cookies and sends the browser on to the
  // workflow; the page that arrives there keeps them. Navigating away before it has (what this test once
  // did) can leave the UI signed out for good.
  await page.waitForURL(
    (url) => url.origin === new URL(t.cluster.urls.ui).origin && url.pathname.startsWith(workflowPath),
  );
  return page;
}

describe('the Temporal UI of the cluster signs in through the provider and decodes per role', () => {
  it("shows the viewer the disbursement's receiver masked, and the admin in full", async () => {
    const maker = await t.key(['payouts-maker']);
    const disbursementId = `d_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const created = await t.api(maker, 'POST', '/v1/disbursements', {
      disbursementId,
      amount: 250_000,
      wallet: { walletId: WALLET, walletName: 'Nguyen Van B' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = disbursementWorkflowId(disbursementId);
    await eventually(() => t.temporal.workflow.getHandle(workflowId).describe());

    const viewer = await openWorkflowAs('lan.viewer', workflowId);
    const workflowUrl = `${t.cluster.urls.ui}${workflowPathOf(workflowId)}`;
    await waitForDecoded(viewer, '****7000', workflowUrl);
    expect(await viewer.content()).not.toContain(WALLET);
    await viewer.screenshot({ path: path.join(SHOTS, 'temporal-ui-decoded-viewer.png'), fullPage: true });

    const admin = await openWorkflowAs('an.admin', workflowId);
    await waitForDecoded(admin, WALLET, workflowUrl);
    await admin.screenshot({ path: path.join(SHOTS, 'temporal-ui-decoded-admin.png'), fullPage: true });
  }, 240_000);
});
