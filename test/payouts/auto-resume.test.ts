/**
 * Auto-resume (PAYOUT_AUTO_RESUME_FUNDED), over HTTP with real workflows and the sandbox gateway: two runs
 * wait for funds; a top-up that covers only the older one resumes only it (the watcher never commits more
 * than the balance), a second top-up resumes the other; each automatic resume is in the audit log under the
 * watcher's system subject. The watcher reads every second here. A database of the file's own: the watcher
 * and the thresholds are global.
 */
import { describe, expect, it } from 'vitest';
import { BALANCE_WATCH_SUBJECT } from '../../contracts/shared';
import { loadConfig } from '../../platform/config';
import { callApi } from '../support/api';
import { freshId } from '../support/ids';
import { payoutFile, waitForRunStatus } from '../support/payout-stack';
import { testPayoutSettings } from '../support/settings';
import { useScratchStack } from '../support/stack';
import { eventually } from '../support/wait';

type Keys = 'maker' | 'approver';

const taskQueue = `auto-resume-${freshId('', 8)}`;
const t = useScratchStack<Keys>('auto-resume', {
  taskQueue,
  keys: {
    maker: { name: 'maker', roles: ['payouts-maker'] },
    approver: { name: 'approver', roles: ['payouts-approver'] },
  },
  sandbox: { balances: { VND: 50_000 }, timing: { batchValidationMs: 20, batchPaymentMs: 20 } },
  app: { payouts: { ...testPayoutSettings(taskQueue), balanceWatchIntervalSeconds: 1 } },
  activities: {
    autoResumeFunded: loadConfig({ PAYOUT_AUTO_RESUME_FUNDED: 'true' }).PAYOUT_AUTO_RESUME_FUNDED,
  },
});

/** Uploads a run of two rows (10,000 + 10,001 VND); the upload wants a balance that covers it. */
async function upload(): Promise<string> {
  const uploaded = await fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=waiting.csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.stack.maker}`, 'content-type': 'text/csv' },
    body: payoutFile(freshId('ar-'), 2),
  });
  return ((await uploaded.json()) as { runId: string }).runId;
}

/** Approves a run the balance no longer covers and waits until it waits for funds. */
async function approveIntoWaiting(runId: string): Promise<void> {
  const approved = await callApi(
    t.stack.api,
    t.stack.approver,
    'POST',
    `/v1/payout-runs/${runId}/approve`,
    {},
  );
  expect(approved.status).toBe(200);
  await waitForRunStatus(t.db, runId, ['awaiting_funds']);
}

const automaticResumes = async (runId: string) =>
  (await t
    .db('audit_log')
    .where({ action: 'payout_run.resume', target_id: runId, actor_key_id: BALANCE_WATCH_SUBJECT.keyId })
    .select('outcome', 'details')) as Array<{ outcome: string; details: Record<string, unknown> }>;

const runStatus = async (runId: string) =>
  ((await t.db('payout_runs').where({ run_id: runId }).first('status')) as { status: string }).status;

describe('auto-resume of runs waiting for funds', () => {
  it('resumes the older run the top-up covers, not the younger one it cannot also cover, then that one', async () => {
    const set = await callApi(t.stack.api, t.stack.approver, 'PUT', '/v1/balance-thresholds/VND', {
      threshold: 1,
    });
    expect(set.status).toBe(200);
    const older = await upload();
    const younger = await upload();
    t.stack.sandbox.admin.setBalance('VND', 1_000);
    await approveIntoWaiting(older);
    await approveIntoWaiting(younger);

    // 30,000 VND covers one run (20,001), not both (40,002).
    t.stack.sandbox.admin.setBalance('VND', 30_000);
    await waitForRunStatus(t.db, older, ['reconciled'], { timeout: 30_000 });
    // A reading after the older run drew its 20,001: the watcher saw 9,999 and still had the younger waiting.
    await eventually(async () => {
      const row = await t.db('balance_thresholds').where({ currency: 'VND' }).first();
      expect(Number(row.last_balance)).toBe(9_999);
      const laterReading = await t
        .db('balance_thresholds')
        .where({ currency: 'VND' })
        .where('checked_at', '>', t.db('payout_runs').where({ run_id: older }).select('completed_at'))
        .first();
      expect(laterReading).toBeDefined();
    });
    expect(await runStatus(younger)).toBe('awaiting_funds');
    expect(await automaticResumes(younger)).toEqual([]);
    expect((await automaticResumes(older))[0]).toMatchObject({
      outcome: 'succeeded',
      details: { automatic: true, balance: 30_000, remaining: 20_001 },
    });

    t.stack.sandbox.admin.setBalance('VND', 100_000);
    await waitForRunStatus(t.db, younger, ['reconciled'], { timeout: 30_000 });
    expect((await automaticResumes(younger))[0]).toMatchObject({ outcome: 'succeeded' });
    const paid = (await t
      .db('payout_items')
      .whereIn('run_id', [older, younger])
      .where({ state: 'SUCCEEDED' })
      .count('* as n')
      .first()) as { n: string };
    expect(Number(paid.n)).toBe(4);
    // Each run drew once: 100,000 less the younger run's 20,001.
    expect(t.stack.sandbox.admin.balance('VND')).toBe(79_999);
  });
});
