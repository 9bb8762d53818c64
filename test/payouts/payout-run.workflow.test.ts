/** payoutRun with fake activities: approval (maker ≠ checker), rejection, expiry, child batches, reconciliation. */
import { describe, expect, it } from 'vitest';
import { payoutRun } from '../../workflows/payouts/payout-run';
import {
  decideUpdate,
  payoutBatchId,
  payoutBatchWorkflowId,
  payoutRunWorkflowId,
  resumeSignal,
  runProgressQuery,
  type Actor,
  type PayoutRunInput,
  type Reconciliation,
} from '../../contracts/payouts';
import { admitDecision, signTest } from '../support/decision-proofs';
import { eventually } from '../support/wait';
import {
  gate,
  gatewayRejected,
  inTurn,
  ok,
  refusal,
  useWorkflowHarness,
  type AnswerOf,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const HOUR = 3600_000;
const maker: Actor = { keyId: 'k-maker', name: 'Mai Maker' };
const checker: Actor = { keyId: 'k-checker', name: 'Chi Checker' };
const timing: PayoutRunInput['timing'] = {
  gatewayAttemptTimeout: '1 minute',
  ipnTimeout: '2 minutes',
  pendingFirstCheck: '1 minute',
  pendingMaxInterval: '4 minutes',
  pendingGiveUpAfter: '20 minutes',
};

const reconciliation = (balanced: boolean): Reconciliation => ({
  balanced,
  uploaded: { count: 2, amount: 200_000 },
  accounted: { count: 2, amount: 200_000 },
  byState: {},
  gateway: { count: 2, amount: 200_000, succeeded: 2, succeededAmount: 200_000 },
  differences: balanced ? [] : ['1 items are still pending at the gateway.'],
});

/** A child batch that completes on its own: the 8003 IPN is "lost", the query finds every item paid. */
const batchCompletes: Fakes = {
  recordBatchStatus: ok,
  initiateBatch: async () => ({ mToken: 'm' }),
  createBatch: async () => ({ outcome: 'accepted' as const, amount: 100_000 }),
  syncBatchItems: async () => ({ validating: false, counts: { SUCCEEDED: { count: 1, amount: 100_000 } } }),
};
const runRecords: Fakes = {
  admitDecision,
  recordDecision: ok,
  recordRunStatus: ok,
  reconcileRun: async () => reconciliation(true),
};

async function startRun(
  fakes: Fakes,
  options: { batches?: number; parallel?: number; deadlineMs?: number; approvers?: number } = {},
) {
  const runId = h.id('run');
  const batches = Array.from({ length: options.batches ?? 2 }, (_, i) => ({
    batchId: payoutBatchId(runId, i + 1),
    itemCount: 1,
    totalAmount: 100_000,
  }));
  const input: PayoutRunInput = {
    runId,
    batches,
    uploadedBy: maker,
    approvalDeadline: new Date((await h.now()) + (options.deadlineMs ?? 24 * HOUR)).toISOString(),
    parallelBatches: options.parallel ?? 1,
    timing,
    ...(options.approvers !== undefined && { approvers: options.approvers }),
  };
  const run = await h.start(payoutRun, {
    workflowId: payoutRunWorkflowId(runId),
    args: [input],
    fakes: { ...runRecords, ...batchCompletes, ...fakes },
    alsoFor: batches.map((batch) => payoutBatchWorkflowId(batch.batchId)),
  });
  return { run, runId, batchIds: batches.map((batch) => batch.batchId) };
}

/** A decision as the API sends it: signed for this run. */
const decide = (run: Run<typeof payoutRun>, decision: 'approve' | 'reject', by: Actor, note?: string) =>
  run.handle.executeUpdate(decideUpdate, {
    args: [
      {
        decision,
        by,
        ...(note ? { note } : {}),
        proof: signTest({ subject: run.handle.workflowId, action: decision, by, ...(note ? { note } : {}) }),
      },
    ],
  });

describe('payoutRun: the decision', () => {
  it('approved by another person: running, batches one at a time, reconciled', async () => {
    const { run, runId, batchIds } = await startRun({});
    expect(await decide(run, 'approve', checker)).toBe('running');
    expect(await run.result()).toBe('reconciled');
    expect(run.inputs('recordDecision')).toEqual([{ runId, decision: 'approve', by: checker }]);
    expect(run.inputs('recordRunStatus')).toEqual([{ runId, status: 'running' }]);
    // parallelBatches 1: the second batch starts after the first one's last step.
    expect(run.inputs('initiateBatch').map((input) => input.batchId)).toEqual(batchIds);
    const steps = run.calls();
    const firstCompleted = steps.findIndex(
      (call) =>
        call.name === 'recordBatchStatus' && (call.input as { status: string }).status === 'completed',
    );
    expect(firstCompleted).toBeLessThan(steps.indexOf(run.calls('initiateBatch')[1]!));
    expect(run.inputs('reconcileRun')).toEqual([
      {
        runId,
        batches: batchIds.map((batchId) => expect.objectContaining({ batchId, status: 'completed' })),
      },
    ]);
    expect(await run.handle.query(runProgressQuery)).toMatchObject({
      status: 'reconciled',
      decidedBy: checker,
      batchesDone: 2,
      batchCount: 2,
    });
  });

  it('the reconciliation finds differences: needs_attention', async () => {
    const { run } = await startRun({ reconcileRun: async () => reconciliation(false) });
    await decide(run, 'approve', checker);
    expect(await run.result()).toBe('needs_attention');
  });

  it('rejected (the uploader may reject): rejected, nothing paid', async () => {
    const { run, runId } = await startRun({});
    expect(await decide(run, 'reject', maker, 'wrong file')).toBe('rejected');
    expect(await run.result()).toBe('rejected');
    expect(run.inputs('recordDecision')).toEqual([
      { runId, decision: 'reject', by: maker, note: 'wrong file' },
    ]);
    expect(run.inputs('recordRunStatus')).toEqual([{ runId, status: 'rejected' }]);
    expect(run.calls('initiateBatch')).toEqual([]);
  });

  it('nobody decides before the deadline: expired, with the reason, nothing paid', async () => {
    const { run, runId } = await startRun({}, { deadlineMs: 2 * HOUR });
    expect(await run.result()).toBe('expired');
    const [expired] = run.inputs('recordRunStatus');
    expect(expired).toEqual({ runId, status: 'expired', reason: expect.stringContaining('Nobody approved') });
    expect(run.calls('initiateBatch')).toEqual([]);
  });

  it('the uploader cannot approve (same key, or their name in another case, spacing or Unicode form); a second decision is refused', async () => {
    const { run } = await startRun({});
    const sameKey = await refusal(decide(run, 'approve', { keyId: maker.keyId, name: 'Someone' }));
    expect(sameKey.message).toContain('cannot approve');
    const sameName = await refusal(decide(run, 'approve', { keyId: 'k-other', name: ' mai MAKER ' }));
    expect(sameName.message).toContain('cannot approve');
    for (const name of ['Mai  Maker', 'Mai\u00a0Maker', 'MAI MAKER'.normalize('NFD'), 'Ｍａｉ Maker']) {
      expect((await refusal(decide(run, 'approve', { keyId: 'k-other', name }))).message).toContain(
        'cannot approve',
      );
    }
    expect(run.calls('recordDecision')).toEqual([]);
    await decide(run, 'approve', checker);
    const again = await refusal(decide(run, 'reject', checker));
    expect(again.message).toContain('only a run awaiting approval');
    expect(await run.result()).toBe('reconciled');
    expect(run.calls('recordDecision')).toHaveLength(1);
  });
});

describe("payoutRun: a run above the policy's two-approver band", () => {
  const second: Actor = { keyId: 'k-second', name: 'Hai Second' };

  it('waits after the first approval, refuses the same person again, and starts at the second', async () => {
    const { run, runId } = await startRun({}, { approvers: 2 });
    expect(await decide(run, 'approve', checker)).toBe('awaiting_approval');
    expect(await run.handle.query(runProgressQuery)).toMatchObject({
      status: 'awaiting_approval',
      approvedBy: [checker],
      approversRequired: 2,
    });
    // Nothing paid, nothing marked running, after one approval.
    expect(run.calls('initiateBatch')).toEqual([]);
    expect(run.inputs('recordRunStatus')).toEqual([]);

    // The same person again, under another key or spelling: refused, still waiting.
    for (const again of [checker, { keyId: 'k-checker-2', name: 'CHI  checker' }]) {
      const refused = await refusal(decide(run, 'approve', again));
      expect(refused.message).toContain('approved this run already');
    }
    expect((await run.handle.query(runProgressQuery)).status).toBe('awaiting_approval');

    expect(await decide(run, 'approve', second)).toBe('running');
    expect(await run.result()).toBe('reconciled');
    expect(run.inputs('recordDecision')).toEqual([
      { runId, decision: 'approve', by: checker, settles: false },
      { runId, decision: 'approve', by: second },
    ]);
    expect(run.inputs('recordRunStatus')).toEqual([{ runId, status: 'running' }]);
  });

  it('a reject after one approval rejects: nothing is paid', async () => {
    const { run } = await startRun({}, { approvers: 2 });
    await decide(run, 'approve', checker);
    expect(await decide(run, 'reject', second, 'wrong month')).toBe('rejected');
    expect(await run.result()).toBe('rejected');
    expect(run.calls('initiateBatch')).toEqual([]);
  });
});

describe('payoutRun: only the API decides', () => {
  it('refuses a decision without a proof, with a used one, for another run or changed after signing; the run still waits', async () => {
    const { run } = await startRun({});
    const other = await startRun({});
    const send = (decision: Record<string, unknown>) =>
      refusal(run.handle.executeUpdate(decideUpdate, { args: [decision as never] }));
    const bare = await send({ decision: 'approve', by: checker });
    expect(bare).toMatchObject({ type: 'decision_refused', message: 'refused: missing' });
    const forOther = signTest({ subject: other.run.handle.workflowId, action: 'approve', by: checker });
    expect(await send({ decision: 'approve', by: checker, proof: forOther })).toMatchObject({
      message: 'refused: other_subject',
    });
    const signed = signTest({ subject: run.handle.workflowId, action: 'reject', by: checker });
    expect(await send({ decision: 'approve', by: checker, proof: signed })).toMatchObject({
      message: 'refused: wrong_signature',
    });
    expect(await send({ decision: 'reject', by: checker, proof: signed })).toMatchObject({
      message: 'refused: replayed',
    });
    expect(run.calls('recordDecision')).toEqual([]);
    const progress = await run.handle.query(runProgressQuery);
    expect(progress.status).toBe('awaiting_approval');
    expect(progress.refusedDecisions?.map((refused) => refused.reason)).toEqual([
      'missing',
      'other_subject',
      'wrong_signature',
      'replayed',
    ]);
    // The other run is settled first: waiting on this run's result skips time past the other's deadline.
    expect(await decide(other.run, 'reject', checker)).toBe('rejected');
    expect(await decide(run, 'approve', checker)).toBe('running');
    expect(await run.result()).toBe('reconciled');
  });
});

describe('payoutRun: its batches', () => {
  it('a failed batch is recorded with the gateway code; the others still run; reconciliation names it', async () => {
    const { run, runId, batchIds } = await startRun({
      initiateBatch: async ({ batchId }) => {
        if (batchId.endsWith('-b001')) throw gatewayRejected('batch.init', 1100, 'balance too low');
        return { mToken: 'm' };
      },
    });
    await decide(run, 'approve', checker);
    expect(await run.result()).toBe('reconciled');
    const failed = run.inputs('recordBatchStatus').filter((record) => record.status === 'failed');
    expect(failed).toEqual([
      {
        runId,
        batchId: batchIds[0],
        status: 'failed',
        reason: expect.stringContaining('batch.init: result 1100'),
        resultCode: 1100,
      },
    ]);
    expect(run.inputs('initiateBatch').map((input) => input.batchId)).toEqual(batchIds);
    expect(run.inputs('reconcileRun')[0]!.batches).toEqual([
      { batchId: batchIds[0], status: 'failed', counts: {} },
      expect.objectContaining({ batchId: batchIds[1], status: 'completed' }),
    ]);
  });

  it('parallelBatches 2: both batches are under way at once', async () => {
    const both = gate();
    const { run, batchIds } = await startRun(
      {
        initiateBatch: async () => {
          await both.opened;
          return { mToken: 'm' };
        },
      },
      { parallel: 2 },
    );
    await decide(run, 'approve', checker);
    await run.reached('initiateBatch', 2);
    expect(
      run
        .inputs('initiateBatch')
        .map((input) => input.batchId)
        .sort(),
    ).toEqual(batchIds);
    both.open();
    expect(await run.result()).toBe('reconciled');
  });

  it('resume after a top-up reaches the batch waiting for funds; one without the API’s proof does not', async () => {
    const { run, batchIds } = await startRun(
      {
        createBatch: inTurn<AnswerOf<'createBatch'>>(
          { outcome: 'insufficient_funds', amount: 100_000 },
          { outcome: 'accepted', amount: 100_000 },
        ),
      },
      { batches: 1 },
    );
    await decide(run, 'approve', checker);
    await eventually(() =>
      expect(run.inputs('recordBatchStatus').at(-1)).toMatchObject({ status: 'awaiting_funds' }),
    );
    // Forged through the Temporal frontend: without a proof, or with one the API made for another run.
    await run.handle.signal(resumeSignal, { by: checker });
    const otherRun = signTest({ subject: payoutRunWorkflowId('elsewhere'), action: 'resume', by: checker });
    await run.handle.signal(resumeSignal, { by: checker, proof: otherRun });
    await eventually(async () =>
      expect(
        (await run.handle.query(runProgressQuery)).refusedDecisions?.map((refused) => refused.reason),
      ).toEqual(['missing', 'other_subject']),
    );
    expect(run.inputs('createBatch')).toHaveLength(1);
    const proof = signTest({ subject: run.handle.workflowId, action: 'resume', by: checker });
    await run.handle.signal(resumeSignal, { by: checker, proof });
    expect(await run.result()).toBe('reconciled');
    expect(run.inputs('createBatch').map((input) => [input.batchId, input.attempt])).toEqual([
      [batchIds[0], 1],
      [batchIds[0], 2],
    ]);
  });
});
