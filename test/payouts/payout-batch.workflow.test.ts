/** payoutBatch with fake activities: create, 8003, balance, pay, result, PENDING items, and their fallbacks. */
import { describe, expect, it } from 'vitest';
import { payoutBatch } from '../../workflows/payouts/payout-batch';
import {
  batchNotificationSignal,
  batchStatusQuery,
  payoutBatchWorkflowId,
  resumeSignal,
  type PayoutTiming,
  type StateCounts,
  type BatchSync,
} from '../../contracts/payouts';
import { admitDecision, signTest } from '../support/decision-proofs';
import { captureHistory } from '../support/history-capture';
import { eventually } from '../support/wait';
import {
  gatewayRejected,
  inTurn,
  losingFirst,
  ok,
  useWorkflowHarness,
  type AnswerOf,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const timing: PayoutTiming = {
  gatewayAttemptTimeout: '1 minute',
  ipnTimeout: '2 minutes',
  pendingFirstCheck: '1 minute',
  pendingMaxInterval: '4 minutes',
  pendingGiveUpAfter: '20 minutes',
};
const ops = { keyId: 'k-ops', name: 'Ops' };
/** An operator's resume as the API sends it: signed for the batch's run (here the batch runs alone). */
const resume = (run: Run<typeof payoutBatch>) =>
  run.handle.signal(resumeSignal, {
    by: ops,
    proof: signTest({ subject: run.handle.workflowId, action: 'resume', by: ops }),
  });

const validating: BatchSync = { validating: true, counts: { QUEUED: { count: 3, amount: 300_000 } } };
const sync = (counts: StateCounts): BatchSync => ({ validating: false, counts });
const eligible = sync({ ELIGIBLE: { count: 2, amount: 200_000 }, INELIGIBLE: { count: 1, amount: 100_000 } });
const settled = sync({ SUCCEEDED: { count: 2, amount: 200_000 }, INELIGIBLE: { count: 1, amount: 100_000 } });
const somePending = sync({
  SUCCEEDED: { count: 1, amount: 100_000 },
  PENDING: { count: 1, amount: 100_000 },
  INELIGIBLE: { count: 1, amount: 100_000 },
});

const accepted = { outcome: 'accepted' as const, amount: 300_000 };
const happy: Fakes = {
  recordBatchStatus: ok,
  admitDecision,
  initiateBatch: async () => ({ mToken: 'm-token' }),
  createBatch: async () => accepted,
  checkBalance: async () => ({ balance: 1_000_000 }),
  payBatch: async () => ({ outcome: 'accepted' as const }),
};

async function startBatch(fakes: Fakes) {
  const runId = h.id('run');
  const batchId = `${runId}-b001`;
  const run = await h.start(payoutBatch, {
    workflowId: payoutBatchWorkflowId(batchId),
    args: [{ runId, batchId, itemCount: 3, totalAmount: 300_000, timing }],
    fakes: { ...happy, ...fakes },
  });
  return { run, batchId, runId };
}

const statuses = (run: Run<typeof payoutBatch>) =>
  run.inputs('recordBatchStatus').map((record) => record.status);
const gateway = (run: Run<typeof payoutBatch>) => run.names().filter((name) => name !== 'recordBatchStatus');
const created = { stage: 'created' as const, resultCode: 8003 };
const paid = { stage: 'paid' as const, resultCode: 0 };
/** Waits until the batch's record says `status` (moving workflow time on when `skipping`: lost IPNs). */
const untilStatus = (run: Run<typeof payoutBatch>, status: string, skipping = false) =>
  eventually(() => expect(statuses(run).at(-1)).toBe(status), {
    between: skipping ? () => h.skip(MINUTE) : undefined,
  });

describe('payoutBatch: the notifications arrive', () => {
  it('8003 then the paid IPN: one sync each, paid once, completed with the gateway totals', async () => {
    const totals = { totalUploadedCount: 3 } as BatchSync['gatewayTotals'];
    const { run, batchId } = await startBatch({
      syncBatchItems: inTurn(eligible, { ...settled, gatewayTotals: totals }),
    });
    await eventually(async () => expect(await run.handle.query(batchStatusQuery)).toBe('validating'));
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toEqual({
      batchId,
      status: 'completed',
      counts: settled.counts,
      gatewayTotals: totals,
    });
    expect(gateway(run)).toEqual([
      'initiateBatch',
      'createBatch',
      'syncBatchItems',
      'checkBalance',
      'payBatch',
      'syncBatchItems',
    ]);
    expect(statuses(run)).toEqual([
      'initiating',
      'creating',
      'validating',
      'checking_balance',
      'paying',
      'awaiting_result',
      'completed',
    ]);
    expect(run.inputs('createBatch')).toEqual([{ batchId, mToken: 'm-token', attempt: 1 }]);
    expect(run.inputs('payBatch')).toEqual([{ batchId, attempt: 1 }]);
  });

  it('no eligible item: nothing is paid, completed', async () => {
    const none = sync({ INELIGIBLE: { count: 3, amount: 300_000 } });
    const { run } = await startBatch({ syncBatchItems: async () => none });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    expect(await run.result()).toMatchObject({ status: 'completed', counts: none.counts });
    expect(run.calls('checkBalance')).toEqual([]);
    expect(run.calls('payBatch')).toEqual([]);
  });
});

describe('payoutBatch: a lost notification is asked for (batch/query)', () => {
  it('no 8003: asks after ipnTimeout, then after twice as long while still validating', async () => {
    const { run } = await startBatch({
      syncBatchItems: inTurn(validating, eligible, eligible, settled),
    });
    // The paid IPN arrives; only the 8003 one was lost.
    await untilStatus(run, 'awaiting_result', true);
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const [create] = run.calls('createBatch');
    const [first, second] = run.calls('syncBatchItems');
    expect(run.gap(create!, first!)).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(run.gap(first!, second!)).toBeGreaterThanOrEqual(4 * MINUTE);
  });

  it('no paid IPN: asks after ipnTimeout while items are still ELIGIBLE, then reads the result', async () => {
    const { run } = await startBatch({ syncBatchItems: inTurn(eligible, eligible, settled, settled) });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    expect(await run.result()).toMatchObject({ status: 'completed', counts: settled.counts });
    const [pay] = run.calls('payBatch');
    const [, stillEligible, answered] = run.calls('syncBatchItems');
    expect(run.gap(pay!, stillEligible!)).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(run.gap(stillEligible!, answered!)).toBeGreaterThanOrEqual(4 * MINUTE);
  });
});

describe('payoutBatch: a stage the gateway never confirms (the strict gateway: an answer lost, or refused)', () => {
  it('no 8003 and batch/query never shows the batch: needs_attention after pendingGiveUpAfter, asked on, then paid', async () => {
    let asks = 0;
    let paid = false;
    const { run } = await startBatch({
      syncBatchItems: async () => (++asks < 12 ? validating : paid ? settled : eligible),
      payBatch: async () => {
        paid = true;
        return { outcome: 'accepted' as const };
      },
    });
    expect(await run.result()).toMatchObject({ status: 'completed', counts: settled.counts });
    expect(statuses(run)).toEqual(
      expect.arrayContaining([
        'validating',
        'needs_attention',
        'checking_balance',
        'paying',
        'awaiting_result',
      ]),
    );
    expect(
      run.inputs('recordBatchStatus').find((record) => record.status === 'needs_attention')?.reason,
    ).toMatch(/has not shown batch .* as created/);
    await captureHistory(h.env.client, run.workflowId, 'not-shown-created-needs-attention-then-paid');
  });

  it('batch/pay unconfirmed (items still eligible after pendingGiveUpAfter): needs_attention; a resume pays again as attempt 2', async () => {
    let paid = false;
    const { run } = await startBatch({
      syncBatchItems: async () => (paid ? settled : eligible),
      payBatch: async ({ attempt }: { attempt: number }) => {
        if (attempt === 2) paid = true;
        return { outcome: 'accepted' as const };
      },
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'needs_attention', true);
    await resume(run);
    expect(await run.result()).toMatchObject({ status: 'completed', counts: settled.counts });
    expect(run.inputs('payBatch').map((input) => input.attempt)).toEqual([1, 2]);
    expect(
      run.inputs('recordBatchStatus').find((record) => record.status === 'needs_attention')?.reason,
    ).toMatch(/still shows its items as eligible/);
    await captureHistory(h.env.client, run.workflowId, 'pay-unconfirmed-resumed-paid');
  });
});

describe('payoutBatch: the counts after a stage come from the gateway, never from the record', () => {
  it('a sync that tells nothing once the stage is reached is asked again (mustKnow), not taken for the stale counts', async () => {
    let paidYet = false;
    let toldNothing = 0;
    const { run } = await startBatch({
      payBatch: async () => {
        paidYet = true;
        return { outcome: 'accepted' as const };
      },
      // Every other answer tells nothing (a refused page): the activity throws when it must know, and
      // otherwise answers the counts on record (before the first read: nothing validated; then ELIGIBLE).
      syncBatchItems: async ({ mustKnow }: { mustKnow?: true }) => {
        const recorded = toldNothing === 0 ? validating : eligible;
        if (toldNothing++ % 2 === 0) {
          if (mustKnow) throw new Error('batch/query told nothing; asking again');
          return recorded;
        }
        return paidYet ? settled : eligible;
      },
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed', counts: settled.counts });
    expect(run.inputs('payBatch')).toHaveLength(1);
    const mustKnow = run
      .calls('syncBatchItems')
      .filter((call) => (call.input as { mustKnow?: true }).mustKnow);
    // Twice after each stage: the attempt that told nothing, and the retry that did.
    expect(mustKnow.map((call) => call.attempt)).toEqual([1, 2, 1, 2]);
  });
});

describe('payoutBatch: the merchant balance is short', () => {
  it('batch/create answers 1100 (insufficient_funds): awaiting_funds until resumed, then created again', async () => {
    const { run, batchId } = await startBatch({
      createBatch: inTurn<AnswerOf<'createBatch'>>(
        { outcome: 'insufficient_funds', amount: 300_000 },
        accepted,
      ),
      syncBatchItems: inTurn(eligible, settled),
    });
    await untilStatus(run, 'awaiting_funds');
    expect(run.inputs('recordBatchStatus').at(-1)!.reason).toContain('Top up, then resume');
    // Sent straight to the batch through the Temporal frontend, without the API's proof: refused.
    await run.handle.signal(resumeSignal, { by: ops });
    await eventually(() => expect(run.calls('admitDecision')).toHaveLength(1));
    expect(await run.handle.query(batchStatusQuery)).toBe('awaiting_funds');
    expect(run.inputs('createBatch')).toHaveLength(1);
    await resume(run);
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(run.inputs('initiateBatch')).toHaveLength(1);
    expect(run.inputs('createBatch')).toEqual([
      { batchId, mToken: 'm-token', attempt: 1 },
      { batchId, mToken: 'm-token', attempt: 2 },
    ]);
    expect(statuses(run).slice(0, 4)).toEqual(['initiating', 'creating', 'awaiting_funds', 'creating']);
  });

  it('the balance check is short: nothing paid until resumed; then paid once, as attempt 2', async () => {
    const { run, batchId } = await startBatch({
      syncBatchItems: inTurn(eligible, settled),
      checkBalance: inTurn({ balance: 199_999 }, { balance: 200_000 }),
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_funds');
    expect(run.calls('payBatch')).toEqual([]);
    expect(run.inputs('recordBatchStatus').at(-1)!.reason).toContain('199999');
    await resume(run);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(run.inputs('payBatch')).toEqual([{ batchId, attempt: 2 }]);
  });

  it('batch/pay answers insufficient_funds: awaiting_funds, then paid again after resume with a new attempt', async () => {
    const { run, batchId } = await startBatch({
      syncBatchItems: inTurn(eligible, settled),
      payBatch: inTurn<AnswerOf<'payBatch'>>({ outcome: 'insufficient_funds' }, { outcome: 'accepted' }),
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_funds');
    await resume(run);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(run.inputs('payBatch')).toEqual([
      { batchId, attempt: 1 },
      { batchId, attempt: 2 },
    ]);
  });

  it('a resume that arrives before the batch waits for funds is ignored', async () => {
    const { run } = await startBatch({
      syncBatchItems: inTurn(eligible, settled),
      checkBalance: inTurn({ balance: 0 }, { balance: 1_000_000 }),
    });
    await untilStatus(run, 'validating');
    await resume(run);
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_funds');
    // Still waiting: the early resume did not count.
    await run.blocked();
    expect(await run.handle.query(batchStatusQuery)).toBe('awaiting_funds');
    expect(run.calls('checkBalance')).toHaveLength(1);
    await resume(run);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(run.calls('checkBalance')).toHaveLength(2);
  });
});

describe('payoutBatch: items still PENDING after the result', () => {
  it('re-checked after pendingFirstCheck (doubling) until final: completed', async () => {
    const { run } = await startBatch({ syncBatchItems: inTurn(eligible, somePending, somePending, settled) });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed', counts: settled.counts });
    const syncs = run.calls('syncBatchItems');
    expect(run.gap(syncs[1]!, syncs[2]!)).toBeGreaterThanOrEqual(MINUTE);
    expect(run.gap(syncs[2]!, syncs[3]!)).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(run.inputs('recordBatchStatus').find((r) => r.status === 'settling')!.reason).toBe(
      '1 items are still pending at the gateway.',
    );
  });

  it('a later paid IPN wakes the re-check early', async () => {
    const { run } = await startBatch({
      syncBatchItems: inTurn(eligible, somePending, settled),
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    await untilStatus(run, 'settling');
    await run.handle.signal(batchNotificationSignal, paid);
    await run.reached('syncBatchItems', 3);
    const syncs = run.calls('syncBatchItems');
    expect(run.gap(syncs[1]!, syncs[2]!)).toBeLessThan(MINUTE);
    expect(await run.result()).toMatchObject({ status: 'completed' });
  });

  it('still PENDING after pendingGiveUpAfter: needs_attention, with the count', async () => {
    const { run } = await startBatch({ syncBatchItems: inTurn(eligible, somePending) });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'needs_attention', counts: somePending.counts });
    expect(run.inputs('recordBatchStatus').at(-1)).toMatchObject({
      status: 'needs_attention',
      reason: '1 items were still pending when we stopped waiting.',
    });
    // 1 + 2 + 4 + 4 + 4 + 4 + 4 = 23 ≥ 20 minutes: seven re-checks, capped at pendingMaxInterval.
    expect(run.calls('syncBatchItems')).toHaveLength(2 + 7);
    expect(run.calls('payBatch')).toHaveLength(1);
  });
});

describe('payoutBatch: failures', () => {
  it('a lost batch/pay answer is re-sent with the same attempt (same requestId): paid once', async () => {
    const { run, batchId } = await startBatch({
      syncBatchItems: inTurn(eligible, settled),
      payBatch: losingFirst('batch.pay', async () => ({ outcome: 'accepted' as const })),
    });
    await untilStatus(run, 'validating');
    await run.handle.signal(batchNotificationSignal, created);
    await untilStatus(run, 'awaiting_result');
    await run.handle.signal(batchNotificationSignal, paid);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(run.calls('payBatch').map((call) => [call.attempt, call.input])).toEqual([
      [1, { batchId, attempt: 1 }],
      [2, { batchId, attempt: 1 }],
    ]);
  });

  it('a typed refusal (batch.init 99) fails the batch with its type and code', async () => {
    const { run } = await startBatch({
      initiateBatch: async () => {
        throw gatewayRejected('batch.init', 99);
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe('gateway_rejected');
    expect(failure.details?.[0]).toMatchObject({ operation: 'batch.init', resultCode: 99 });
    expect(run.calls('createBatch')).toEqual([]);
  });
});
