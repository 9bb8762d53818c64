/**
 * Payout runs end to end on the time-skipping server, against the sandbox over real HTTP: upload
 * through the API, approval by a second person, batches, notifications (or their absence), pending
 * items, a short balance, and the reconciliation. Time only jumps where a test skips it explicitly.
 */
import { describe, expect, it } from 'vitest';
import {
  apiCall,
  payoutFile,
  uploadAndApprove,
  waitForRunStatus,
  usePayoutStack,
} from '../support/payout-stack';
import { payoutBatchWorkflowId, payoutRunWorkflowId } from '../../contracts/payouts';
import { captureHistory } from '../support/history-capture';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';

const fixture = usePayoutStack(createTimeSkippingEnv);

/** Each batch item the sandbox moved money for, at most once. */
function expectEachItemPaidAtMostOnce(runId: string) {
  const movements = fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));
  const keys = movements.map((entry) => `${entry.orderId}/${entry.itemId}`);
  expect(new Set(keys).size).toBe(keys.length);
  return movements;
}

const capture = (runId: string, name: string) =>
  captureHistory(fixture.env.client, payoutRunWorkflowId(runId), name);
const captureBatch = (runId: string, name: string) =>
  captureHistory(fixture.env.client, payoutBatchWorkflowId(`${runId}-b001`), name);

const itemStates = async (runId: string) => {
  const rows: Array<{ state: string; n: string }> = await fixture
    .db('payout_items')
    .where({ run_id: runId })
    .select('state')
    .count({ n: '*' })
    .groupBy('state');
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
};

describe('payout runs', () => {
  it('pays a clean 2,500-row file in 3 batches and reconciles', async () => {
    fixture.stack.sandbox.admin.reset();
    const runId = await uploadAndApprove(fixture.stack, payoutFile('clean', 2500));
    // Three real batches through the sandbox: on a loaded machine this has taken more than 30 s.
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      timeout: 90_000,
    });
    expect(run.status, String(run.status_reason)).toBe('reconciled');

    const batches = await fixture.db('payout_batches').where({ run_id: runId }).orderBy('seq');
    expect(batches.map((batch) => [batch.item_count, batch.status])).toEqual([
      [1000, 'completed'],
      [1000, 'completed'],
      [500, 'completed'],
    ]);
    expect(await itemStates(runId)).toEqual({ SUCCEEDED: 2500 });
    const movements = expectEachItemPaidAtMostOnce(runId);
    expect(movements).toHaveLength(2500);
    const expectedTotal = Array.from({ length: 2500 }, (_, index) => 10_000 + index).reduce(
      (a, b) => a + b,
      0,
    );
    expect(movements.reduce((sum, entry) => sum + entry.amount, 0)).toBe(expectedTotal);

    const view = await apiCall(fixture.stack, fixture.stack.approverKey, 'GET', `/v1/payout-runs/${runId}`);
    expect(view.body).toMatchObject({
      status: 'reconciled',
      decidedBy: expect.stringContaining('approver'),
      uploadedBy: expect.stringContaining('maker'),
      progress: { done: 2500, total: 2500 },
      counts: { SUCCEEDED: { count: 2500, amount: expectedTotal } },
      reconciliation: { balanced: true, uploaded: { count: 2500, amount: expectedTotal } },
    });
  }, 120_000);

  it('records rows the gateway finds ineligible, fails the ones it cannot pay, and still reconciles', async () => {
    fixture.stack.sandbox.admin.reset();
    const wallets = ['0900001007', '0900004001', '0900004003', '0900001008', '0912345678'];
    const runId = await uploadAndApprove(
      fixture.stack,
      payoutFile('mixed', 10, (index) => wallets[index % wallets.length]!),
    );
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention']);
    expect(run.status, String(run.status_reason)).toBe('reconciled');
    expect(await itemStates(runId)).toEqual({ INELIGIBLE: 6, FAILED: 2, SUCCEEDED: 2 });
    await capture(runId, 'approved-reconciled');
    await captureBatch(runId, 'ineligible-and-failed-items');
    const ineligible = await fixture.db('payout_items').where({ run_id: runId, state: 'INELIGIBLE' }).first();
    expect(ineligible.result_code).not.toBeNull();
    expect(expectEachItemPaidAtMostOnce(runId).filter((entry) => entry.outcome === 'succeeded')).toHaveLength(
      2,
    );
  }, 120_000);

  it('falls back to batch/query when the 8003 notification is lost', async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setFaults({ notification: 'batch.created', ipn: { drop: true } });
    const runId = await uploadAndApprove(fixture.stack, payoutFile('dropped', 20));
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      // Nothing will arrive: skip the notification wait so the workflow asks the gateway.
      whileWaiting: () => fixture.env.sleep('3 seconds'),
    });
    expect(run.status).toBe('reconciled');
    expect(
      fixture.stack.sandbox.admin
        .ipnLog()
        .some((entry) => entry.kind === 'batch.created' && entry.outcome === 'dropped'),
    ).toBe(true);
    expect(
      await fixture
        .db('ipn_notifications')
        .where({ kind: 'batch.created' })
        .where('order_id', 'like', `${runId}%`),
    ).toHaveLength(0);
    expect(expectEachItemPaidAtMostOnce(runId)).toHaveLength(20);
    await captureBatch(runId, 'created-notification-lost-then-queried');
  }, 60_000);

  it('records and signals a duplicated or reordered notification once', async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setFaults([
      { notification: 'batch.created', ipn: { duplicate: true } },
      { notification: 'batch.paid', ipn: { duplicate: true, reorder: true } },
    ]);
    const runId = await uploadAndApprove(fixture.stack, payoutFile('dupes', 30));
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => fixture.env.sleep('1 second'),
    });
    expect(run.status).toBe('reconciled');
    const stored = await fixture.db('ipn_notifications').where('order_id', 'like', `${runId}%`);
    const deliveries = fixture.stack.sandbox.admin
      .ipnLog()
      .filter((entry) => entry.orderId.startsWith(runId));
    expect(deliveries.length).toBeGreaterThan(stored.length);
    expect(new Set(stored.map((row) => row.dedupe_key)).size).toBe(stored.length);
    expect(stored.every((row) => row.signalled_at !== null)).toBe(true);
    expect(expectEachItemPaidAtMostOnce(runId)).toHaveLength(30);
  }, 60_000);

  it('follows pending items until they settle', async () => {
    fixture.stack.sandbox.admin.reset();
    const wallets = ['0900007000', '0900007002', '0900007099', '0912345678'];
    const runId = await uploadAndApprove(
      fixture.stack,
      payoutFile('pending', 8, (index) => wallets[index % wallets.length]!),
    );
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => fixture.env.sleep('2 seconds'),
    });
    expect(run.status, String(run.status_reason)).toBe('reconciled');
    expect(await itemStates(runId)).toEqual({ SUCCEEDED: 6, FAILED: 2 });
    await captureBatch(runId, 'pending-items-settle');
  }, 60_000);

  it('pauses when the merchant balance is short, and resumes after a top-up', async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setBalance('VND', 50_000);
    const runId = await uploadAndApprove(fixture.stack, payoutFile('short', 10));
    const paused = await waitForRunStatus(fixture.db, runId, ['awaiting_funds']);
    expect(paused.status_reason).toContain('short of');
    expect(
      fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId)),
    ).toHaveLength(0);

    const early = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/resume`,
      '{}',
    );
    expect(early.status).toBe(200);
    fixture.stack.sandbox.admin.setBalance('VND', 10_000_000);
    await apiCall(fixture.stack, fixture.stack.approverKey, 'POST', `/v1/payout-runs/${runId}/resume`, '{}');
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention']);
    expect(run.status).toBe('reconciled');
    expect(expectEachItemPaidAtMostOnce(runId)).toHaveLength(10);
    await capture(runId, 'awaiting-funds-then-resumed');
    await captureBatch(runId, 'awaiting-funds-then-resumed');
  }, 60_000);
});

describe('a batch the gateway refuses', () => {
  it('pays nobody, frees its payout ids and leaves the run needing attention', async () => {
    fixture.stack.sandbox.admin.reset();
    // While init is in flight an item's amount changes, so create's total no longer matches init's: 20.
    fixture.stack.sandbox.admin.setFaults({ operation: 'batch.init', latencyMs: 500, times: 1 });
    const runId = await uploadAndApprove(fixture.stack, payoutFile('refused', 5));
    await eventually(async () => {
      const batch = await fixture.db('payout_batches').where({ run_id: runId }).first();
      expect(batch?.status).toBe('initiating');
    });
    await fixture.db('payout_items').where({ run_id: runId, payout_id: 'refused-1' }).increment('amount', 1);

    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention']);
    expect(run.status).toBe('needs_attention');
    const batch = await fixture.db('payout_batches').where({ run_id: runId }).first();
    expect(batch.status).toBe('failed');
    // Why it failed, by the gateway's code: 20, the total no longer matches the initiated batch.
    expect(batch.result_code).toBe(20);
    expect(await itemStates(runId)).toEqual({ FAILED: 5 });
    expect(
      fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId)),
    ).toHaveLength(0);
    const again = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/payout-runs/dry-run',
      payoutFile('refused', 5),
      'text/csv',
    );
    expect(again.body.valid).toBe(true);
  });
});

describe('approval', () => {
  it('refuses the uploader as approver, records who rejected, and releases the payout ids', async () => {
    const uploaded = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/payout-runs',
      payoutFile('reject', 3),
      'text/csv',
    );
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ status: 'awaiting_approval', rowCount: 3, totalAmount: 30_003 });
    const runId = uploaded.body.runId;

    const own = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect(own.status).toBe(403);

    const rejected = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/reject`,
      '{"note":"wrong month"}',
    );
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decidedBy: expect.stringContaining('approver'),
      decisionNote: 'wrong month',
    });
    expect(await itemStates(runId)).toEqual({ CANCELLED: 3 });
    await capture(runId, 'rejected');

    const again = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect(again.status).toBe(409);
    // Released ids can be uploaded again.
    const reupload = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/payout-runs/dry-run',
      payoutFile('reject', 3),
      'text/csv',
    );
    expect(reupload.body.valid).toBe(true);
  });

  it('expires a run nobody approves in time', async () => {
    const uploaded = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/payout-runs',
      payoutFile('expire', 2),
      'text/csv',
    );
    const runId = uploaded.body.runId;
    await fixture.env.sleep('25 hours');
    const run = await waitForRunStatus(fixture.db, runId, ['expired']);
    expect(run.status_reason).toContain('Nobody approved');
    expect(await itemStates(runId)).toEqual({ CANCELLED: 2 });
    await capture(runId, 'expired');
  });
});
