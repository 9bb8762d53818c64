/** refund and terminalSettlement with fake activities: every answer the gateway can give them. */
import { describe, expect, it } from 'vitest';
import { refund } from '../../workflows/payments/refund';
import {
  refundWorkflowId,
  type RefundOutcome,
  type RefundTiming,
  terminalSettlementWorkflowId,
} from '../../contracts/payments';
import { terminalSettlement } from '../../workflows/payments/terminal-settlement';
import { gatewayRejected, inTurn, losingFirst, ok, useWorkflowHarness } from '../support/workflow-harness';
import { captureHistory } from '../support/history-capture';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const timing: RefundTiming = {
  gatewayAttemptTimeout: '1 minute',
  firstCheck: '1 minute',
  maxInterval: '4 minutes',
  giveUpAfter: '20 minutes',
};
const answer = (status: RefundOutcome['status'], resultCode: number): RefundOutcome => ({
  status,
  resultCode,
  message: `answered ${resultCode}`,
});

async function startRefund(fakes: Parameters<typeof h.start>[1]['fakes']) {
  const refundId = h.id('rf');
  return h.start(refund, {
    workflowId: refundWorkflowId(refundId),
    args: [{ refundId, timing }],
    fakes: { markRefundNeedsAttention: ok, ...fakes },
  });
}

describe('refund', () => {
  it('succeeded at once: no query', async () => {
    const run = await startRefund({ createRefund: async () => answer('succeeded', 0) });
    expect(await run.result()).toEqual(answer('succeeded', 0));
    expect(run.names()).toEqual(['createRefund']);
  });

  it('refused (failed): the refund fails with the gateway code, no query', async () => {
    const run = await startRefund({ createRefund: async () => answer('failed', 1002) });
    expect(await run.result()).toMatchObject({ status: 'failed', resultCode: 1002 });
    expect(run.names()).toEqual(['createRefund']);
  });

  it('pending: queries after firstCheck, with doubling waits, until final', async () => {
    const run = await startRefund({
      createRefund: async () => answer('pending', 7000),
      queryRefund: inTurn(answer('pending', 7000), answer('pending', 7002), answer('succeeded', 0)),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    const [create, ...queries] = run.calls();
    expect(queries.map((call) => call.name)).toEqual(['queryRefund', 'queryRefund', 'queryRefund']);
    expect(run.gap(create!, queries[0]!)).toBeGreaterThanOrEqual(MINUTE);
    expect(run.gap(queries[0]!, queries[1]!)).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(run.gap(queries[1]!, queries[2]!)).toBeGreaterThanOrEqual(4 * MINUTE);
    expect(run.calls('markRefundNeedsAttention')).toEqual([]);
    await captureHistory(h.env.client, run.workflowId, 'pending-asked-until-final');
  });

  it('pending then failed by the query', async () => {
    const run = await startRefund({
      createRefund: async () => answer('pending', 7000),
      queryRefund: async () => answer('failed', 1002),
    });
    expect(await run.result()).toMatchObject({ status: 'failed', resultCode: 1002 });
  });

  it('still pending after giveUpAfter: needs_attention, recorded once', async () => {
    const run = await startRefund({
      createRefund: async () => answer('pending', 7000),
      queryRefund: async () => answer('pending', 7000),
    });
    expect(await run.result()).toMatchObject({ status: 'needs_attention', resultCode: 7000 });
    // 1 + 2 + 4 + 4 + 4 + 4 + 4 = 23 ≥ 20 minutes: seven queries, capped at maxInterval; then an operator is
    // told once and payrun asks every 6 hours for 30 days (the refund is only ever learnt from the gateway).
    expect(run.calls('queryRefund')).toHaveLength(7 + 120);
    const refundId = run.inputs('createRefund')[0]!.refundId;
    expect(run.inputs('markRefundNeedsAttention')).toEqual([{ refundId }]);
    await captureHistory(h.env.client, run.workflowId, 'still-pending-needs-attention-asked-on');
  });

  it('an outcome learnt after needs_attention is the refund’s result', async () => {
    let asks = 0;
    const run = await startRefund({
      createRefund: async () => answer('pending', 7000),
      queryRefund: async () => (++asks < 10 ? answer('pending', 7000) : answer('succeeded', 0)),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.calls('markRefundNeedsAttention')).toHaveLength(1);
    expect(run.calls('queryRefund')).toHaveLength(10);
    await captureHistory(h.env.client, run.workflowId, 'needs-attention-then-succeeded');
  });

  it('a lost answer is retried with the same refund (never a second refund)', async () => {
    const run = await startRefund({
      createRefund: losingFirst('refund.create', async () => answer('succeeded', 0)),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const attempts = run.calls('createRefund');
    expect(attempts.map((call) => call.attempt)).toEqual([1, 2]);
    expect(attempts[1]!.input).toEqual(attempts[0]!.input);
  });
});

describe('terminalSettlement', () => {
  const start = (fakes: Parameters<typeof h.start>[1]['fakes']) => {
    const settlementId = h.id('ts');
    return h.start(terminalSettlement, {
      workflowId: terminalSettlementWorkflowId(settlementId),
      args: [{ settlementId }],
      fakes,
    });
  };

  it('settled: the answer is the result', async () => {
    const settled = { status: 'settled' as const, resultCode: 0, message: 'ok', settledPayments: 3 };
    const run = await start({ settleTerminal: async () => settled });
    expect(await run.result()).toEqual(settled);
  });

  it('failed (refused by the gateway): the answer is the result', async () => {
    const failed = { status: 'failed' as const, resultCode: 99, message: 'no', settledPayments: 0 };
    const run = await start({ settleTerminal: async () => failed });
    expect(await run.result()).toEqual(failed);
  });

  it('a typed, non-retryable failure ends the workflow with its type and code, after one attempt', async () => {
    const run = await start({
      settleTerminal: async () => {
        throw gatewayRejected('card.settle', 13);
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe('gateway_rejected');
    expect(failure.details?.[0]).toMatchObject({ operation: 'card.settle', resultCode: 13 });
    expect(run.calls('settleTerminal')).toHaveLength(1);
  });

  it('transport trouble: five attempts (the operator profile), then the failure is shown', async () => {
    const run = await start({
      settleTerminal: losingFirst(
        'card.settle',
        async () => ({ status: 'settled' as const, resultCode: 0, message: '', settledPayments: 0 }),
        99,
      ),
    });
    const failure = await run.failure();
    expect(failure.type).toBe('GatewayTransportError');
    expect(run.calls('settleTerminal').map((call) => call.attempt)).toEqual([1, 2, 3, 4, 5]);
  });
});
