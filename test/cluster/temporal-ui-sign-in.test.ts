/**
 * In the deployed shape an engineer signs in to the Temporal UI through payrun's provider and reads a
 * disbursement's workflow decoded, masked for their role by payrun's codec: the viewer sees the receiver's
 * wallet as `****5678`, an admin sees it whole. The cluster is what `npm run cluster` runs; the browser is
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
const WALLET = '0912345678';

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
 * Waits for decoded text on the workflow's page. The UI keeps a payload it could not decode (a decode
 * call that timed out on a busy machine) as ciphertext until the page is loaded again, so a page that
 * shows none after 20 s is reloaded, three times at most: a codec that refuses the person still fails.
 */
async function shownAfterReloads(page: Page, text: string) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await page.getByText(text).first().waitFor({ timeout: 20_000 });
      return;
    } catch (error) {
      if (attempt >= 3) {
        await page.screenshot({ path: path.join(SHOTS, 'temporal-ui-not-decoded.png'), fullPage: true });
        throw error;
      }
      await page.reload();
    }
  }
}

/** From the UI's SSO entry through the provider's sign-in form, back on the workflow's page. */
async function openWorkflowAs(subject: string, workflowId: string): Promise<Page> {
  // The cluster's codec endpoint is https with a self-signed certificate (scripts/cluster/codec-tls.ts).
  const context = await browser.newContext({
    viewport: { width: 1400, height: 1000 },
    ignoreHTTPSErrors: true,
  });
  const page = await context.newPage();
  const workflowPath = `/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
  await page.goto(`${t.cluster.urls.ui}/auth/sso?returnUrl=${encodeURIComponent(workflowPath)}`);
  await page.waitForURL(`${t.cluster.urls.identity}/**`);
  await page.locator('select#subject').selectOption(subject);
  await page.locator('input#password').fill(t.cluster.identityPassword);
  await page.locator('button#sign-in').click();
  await page.waitForURL(`${t.cluster.urls.ui}/**`);
  await page.goto(`${t.cluster.urls.ui}${workflowPath}`);
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
    await shownAfterReloads(viewer, '****5678');
    expect(await viewer.content()).not.toContain(WALLET);
    await viewer.screenshot({ path: path.join(SHOTS, 'temporal-ui-decoded-viewer.png'), fullPage: true });

    const admin = await openWorkflowAs('an.admin', workflowId);
    await shownAfterReloads(admin, WALLET);
    await admin.screenshot({ path: path.join(SHOTS, 'temporal-ui-decoded-admin.png'), fullPage: true });
  }, 240_000);
});
