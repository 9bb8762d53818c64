/**
 * Payout runs under the approval policy, through the API on the time-skipping server and the sandbox: a run
 * above the policy's two-approver band waits for two different people other than its uploader, and an upload
 * over a daily cap is refused and records nothing. A database of the file's own keeps the caps this file's.
 */
import { describe, expect, it } from 'vitest';
import { payoutRunWorkflowId } from '../../contracts/payouts';
import { loadConfig } from '../../platform/config';
import { captureHistory } from '../support/history-capture';
import { apiCall, payoutFile, waitForRunStatus, type PayoutStack } from '../support/payout-stack';
import { freshId } from '../support/ids';
import { useScratchStack } from '../support/stack';

type Keys = 'makerKey' | 'approverKey' | 'approverTwin' | 'secondApprover' | 'capper';

const kind = {
  bands: [{ fromVnd: 0, approvers: 0, roles: ['payouts-approver'] }],
  perMakerDailyVnd: 1_000_000_000,
  perMerchantDailyVnd: 1_000_000_000,
};
/** One approver below 100,000 VND, two from there; 300,000 VND of runs a maker a day. */
const POLICY = loadConfig({
  APPROVAL_POLICY: JSON.stringify({
    expiresAfterHours: 2,
    kinds: { disbursement: kind, refund: kind, remittance: kind },
    payoutRun: {
      bands: [
        { fromVnd: 0, approvers: 1, roles: ['payouts-approver'] },
        { fromVnd: 100_000, approvers: 2, roles: ['payouts-approver'] },
      ],
      perMakerDailyVnd: 300_000,
      perMerchantDailyVnd: 1_000_000_000,
    },
  }),
}).APPROVAL_POLICY;

const t = useScratchStack<Keys>('payout_run_policy', {
  taskQueue: `run-policy-${freshId('', 8)}`,
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'Approver An', roles: ['payouts-approver'] },
    approverTwin: { name: 'APPROVER  AN', roles: ['payouts-approver'] },
    secondApprover: { name: 'Approver Bình', roles: ['payouts-approver'] },
    capper: { name: 'capper', roles: ['payouts-maker'] },
  },
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: POLICY } },
  workerTuning: { maxCachedWorkflows: 0 },
});

const stack = () => t.stack as unknown as PayoutStack;
const upload = (key: string, csv: string) =>
  apiCall(stack(), key, 'POST', '/v1/payout-runs?fileName=policy.csv', csv, 'text/csv');
const decide = (key: string, runId: string) =>
  apiCall(stack(), key, 'POST', `/v1/payout-runs/${runId}/approve`, '{}');

describe('payout runs under the approval policy', () => {
  it('a run above the two-approver band waits for two different people, then pays each row once', async () => {
    // 10 rows of 10,000..10,009 VND: 100,045 VND, in the two-approver band.
    const uploaded = await upload(t.stack.makerKey, payoutFile(freshId('two-'), 10));
    expect(uploaded.status).toBe(201);
    const runId = uploaded.body.runId as string;
    expect(uploaded.body.approvals).toEqual({
      required: 2,
      given: 0,
      approvedBy: [],
      roles: ['payouts-approver'],
    });

    const first = await decide(t.stack.approverKey, runId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'awaiting_approval',
      approvals: { required: 2, given: 1, approvedBy: [expect.stringMatching(/^Approver An-/)] },
    });
    // The same person under another key, and the uploader: refused; the run still waits, nothing paid.
    const twin = await decide(t.stack.approverTwin, runId);
    expect([twin.status, twin.body.error.code]).toEqual([409, 'approval_already_given']);
    const own = await decide(t.stack.makerKey, runId);
    expect(own.status).toBe(403);
    expect(t.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId))).toEqual([]);

    const second = await decide(t.stack.secondApprover, runId);
    expect(second.status).toBe(200);
    expect(second.body.approvals).toMatchObject({ required: 2, given: 2 });
    const run = await waitForRunStatus(t.db, runId, ['reconciled', 'needs_attention']);
    expect(run.status).toBe('reconciled');
    const paid = t.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));
    expect(new Set(paid.map((entry) => entry.itemId)).size).toBe(10);
    expect(paid).toHaveLength(10);
    await captureHistory(t.env.client, payoutRunWorkflowId(runId), 'two-approvers-reconciled');
  }, 60_000);

  it('a run below the band needs one approver other than the uploader, as before', async () => {
    const uploaded = await upload(t.stack.makerKey, payoutFile(freshId('one-'), 2));
    expect(uploaded.body.approvals).toMatchObject({ required: 1, given: 0 });
    const approved = await decide(t.stack.approverKey, uploaded.body.runId);
    expect(approved.body.status).toBe('running');
  });

  it('an upload over the maker’s daily cap is refused with 422 naming the cap, and records nothing', async () => {
    for (const prefix of ['cap-a-', 'cap-b-'])
      expect((await upload(t.stack.capper, payoutFile(freshId(prefix), 10))).status).toBe(201);
    const over = await upload(t.stack.capper, payoutFile(freshId('cap-c-'), 10));
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('daily_cap_exceeded');
    expect(over.body.error.message).toContain('perMakerDailyVnd: 300000 VND');
    expect(over.body.error.problems).toEqual([
      {
        field: 'file',
        rule: 'approvalPolicy.payoutRun.perMakerDailyVnd',
        message: 'at most 99910 VND more today',
      },
    ]);
    const runs = await t.db('payout_runs').where('uploaded_by', 'like', 'capper-%');
    expect(runs).toHaveLength(2);
  });
});
