/** disbursement with fake activities: every answer of the payout activity, and the IPN. */
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../gateway';
import { disbursement } from '../../workflows/payouts/disbursement';
import {
  disbursementResultSignal,
  disbursementStatusQuery,
  disbursementWorkflowId,
  type DisbursementInput,
} from '../../contracts/payouts';
import { captureHistory } from '../support/history-capture';
import { placesOf } from '../support/history-steps';
import { localActivityName } from '../../platform/local-activity-markers';
import {
  gatewayRejected,
  losingFirst,
  ok,
  useWorkflowHarness,
  type Fakes,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const wallet = { kind: 'wallet' as const, walletId: '0912345678', walletName: 'B', personalId: null };
const bank = { kind: 'bank' as const, bankAccountNo: '0123', bankAccountHolderName: 'C', bankCode: 'VCB' };
/** `disburse` as the activity answers: it made the payout and recorded its answer. */
const answered =
  <Answer extends { outcome: 'succeeded' | 'failed' | 'pending' }>(answer: Answer) =>
  async () => ({ ...answer, recorded: true as const });
const paid = answered({ outcome: 'succeeded' as const, resultCode: 0, message: 'paid', transId: 't1' });
const pending = answered({ outcome: 'pending' as const, resultCode: 7000, message: 'processing' });

async function disburse(
  receiver: DisbursementInput['receiver'],
  fakes: Fakes,
  timing: Partial<DisbursementInput> = {},
) {
  const disbursementId = h.id('d');
  const input: DisbursementInput = {
    disbursementId,
    amount: 250_000,
    description: 'payout',
    receiver,
    gatewayAttemptTimeout: '1 minute',
    resultWait: '1 day',
    ...timing,
  };
  const run = await h.start(disbursement, {
    workflowId: disbursementWorkflowId(disbursementId),
    args: [input],
    fakes: { recordDisbursement: ok, ...fakes },
  });
  /** The statuses the workflow records itself; `disburse` records every step up to the gateway's answer. */
  const statuses = () => run.inputs('recordDisbursement').map((record) => record.status);
  return { run, disbursementId, statuses };
}

describe('one activity makes the payout', () => {
  it.each([
    ['a wallet', wallet],
    ['a bank account', bank],
  ] as const)(
    'to %s, paid (0): succeeded; one activity, nothing left for the workflow to record',
    async (_, receiver) => {
      const { run, statuses } = await disburse(receiver, { disburse: paid });
      expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
      expect(run.names()).toEqual(['disburse']);
      expect(run.inputs('disburse')[0]).toMatchObject({ receiver, amount: 250_000 });
      expect(statuses()).toEqual([]);
    },
  );

  it.each([
    [1007, 'inactive wallet (the check)'],
    [codeOf('merchant_balance_short'), 'balance short'],
    [1507, 'unknown account (pay)'],
  ])('refused (%i, %s): failed with the code the activity recorded', async (code, message) => {
    const { run, statuses } = await disburse(wallet, {
      disburse: answered({ outcome: 'failed' as const, resultCode: code, message }),
    });
    expect(await run.result()).toEqual({ status: 'failed', resultCode: code, message });
    expect(run.names()).toEqual(['disburse']);
    expect(statuses()).toEqual([]);
  });

  it('a lost answer: the same input again, and the gateway time of three calls for each attempt', async () => {
    const { run } = await disburse(wallet, { disburse: losingFirst('disbursement.pay', paid) });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const [first, second] = run.calls('disburse');
    expect([first!.attempt, second!.attempt]).toEqual([1, 2]);
    expect(second!.input).toEqual(first!.input);
    const { events } = await run.handle.fetchHistory();
    const scheduled = events!.find((event) => event.activityTaskScheduledEventAttributes);
    // Three gateway calls of gatewayAttemptTimeout ('1 minute') each, on pay's rate-limited queue.
    expect(Number(scheduled!.activityTaskScheduledEventAttributes!.startToCloseTimeout!.seconds)).toBe(180);
    expect(scheduled!.activityTaskScheduledEventAttributes!.taskQueue!.name).toMatch(
      /\.gateway\.disbursement\.pay$/,
    );
  });

  it('without a rate limit on pay: a local activity in the first workflow task, a lost answer retried with the same input', async () => {
    const { run } = await disburse(
      wallet,
      { disburse: losingFirst('disbursement.pay', paid) },
      { disburseInWorkflowTask: true },
    );
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const [first, second] = run.calls('disburse');
    expect([first!.attempt, second!.attempt]).toEqual([1, 2]);
    expect(second!.input).toEqual(first!.input);
    const events = await run.events();
    // One workflow task decides and pays; no activity task goes through the server.
    expect(events.filter((kind) => kind === 'activityTaskScheduled')).toEqual([]);
    const { events: history } = await run.handle.fetchHistory();
    expect(history!.map(localActivityName).filter(Boolean)).toEqual(['disburse']);
    await captureHistory(h.env.client, run.workflowId, 'lost-answer-paid-in-workflow-task');
    expect(events.filter((kind) => kind === 'workflowTaskCompleted')).toHaveLength(1);
  });

  it('a typed failure (GatewayRejected) fails the workflow with its type and code', async () => {
    const { run } = await disburse(bank, {
      disburse: async () => {
        throw gatewayRejected('disbursement.pay', 13);
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe('gateway_rejected');
    expect(failure.details?.[0]).toMatchObject({ resultCode: 13, outcome: 'failed' });
  });
});

describe('a pending payout (7000/7002) waits for the notification', () => {
  it.each([
    [0, 'succeeded'],
    [1007, 'failed'],
  ] as const)('IPN %i → %s; a second IPN changes nothing', async (code, status) => {
    const { run, statuses } = await disburse(bank, { disburse: pending });
    await run.reached('disburse');
    await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
    await run.handle.signal(disbursementResultSignal, { resultCode: code, message: 'final', transId: 't9' });
    await run.handle.signal(disbursementResultSignal, { resultCode: 99, message: 'late duplicate' });
    expect(await run.result()).toEqual({ status, resultCode: code, message: 'final' });
    expect(statuses()).toEqual([status]);
  });

  it.each([
    [true, 'local', 2],
    [false, 'queued', 4],
  ] as const)(
    'paid in the workflow task: %s; the notified outcome is written %s; %i workflow tasks in all',
    async (inTask, where, tasks) => {
      const { run, statuses } = await disburse(
        wallet,
        { disburse: pending },
        inTask ? { disburseInWorkflowTask: true } : {},
      );
      await run.reached('disburse');
      await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
      await run.handle.signal(disbursementResultSignal, { resultCode: 0, message: 'final', transId: 't9' });
      expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'final' });
      expect(statuses()).toEqual(['succeeded']);
      expect(await placesOf(run.handle, 'recordDisbursement')).toEqual([where]);
      const events = await run.events();
      expect(events.filter((kind) => kind === 'workflowTaskCompleted')).toHaveLength(tasks);
      if (inTask)
        await captureHistory(h.env.client, run.workflowId, 'pending-result-written-in-workflow-task');
    },
  );

  it('paid in the workflow task, a write of the notified outcome that fails is written again, the same, and the payout succeeds once', async () => {
    let writes = 0;
    const { run, statuses } = await disburse(
      wallet,
      {
        disburse: pending,
        recordDisbursement: async () => {
          if (++writes === 1) throw new Error('the database connection dropped');
        },
      },
      { disburseInWorkflowTask: true },
    );
    await run.reached('disburse');
    await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
    await run.handle.signal(disbursementResultSignal, { resultCode: 0, message: 'final', transId: 't9' });
    expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'final' });
    const [first, second] = run.inputs('recordDisbursement');
    expect(statuses()).toEqual(['succeeded', 'succeeded']);
    expect(second).toEqual(first);
    expect(run.calls('disburse')).toHaveLength(1);
    expect(await placesOf(run.handle, 'recordDisbursement')).toEqual(['local']);
  });

  it('paid in the workflow task, no notification and the gateway still pending: needs_attention is written locally too', async () => {
    const { run, statuses } = await disburse(
      wallet,
      { disburse: pending, queryDisbursementResult: async () => ({ state: 'pending' as const }) },
      { disburseInWorkflowTask: true, ipnTimeout: '1 minute', resultWait: '1 hour' },
    );
    expect(await run.result()).toMatchObject({ status: 'needs_attention', resultCode: 7000 });
    expect(statuses()).toEqual(['needs_attention']);
    expect(await placesOf(run.handle, 'recordDisbursement')).toEqual(['local']);
  });

  it.each([7000, 7002])(
    'an IPN that is still undecided (%i) is no outcome: the next, final one decides',
    async (undecided) => {
      const { run, statuses } = await disburse(bank, { disburse: pending });
      await run.reached('disburse');
      await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
      await run.handle.signal(disbursementResultSignal, {
        resultCode: undecided,
        message: 'still processing',
      });
      await run.handle.signal(disbursementResultSignal, { resultCode: 0, message: 'paid', transId: 't9' });
      expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
      expect(statuses()).toEqual(['succeeded']);
      await captureHistory(h.env.client, run.workflowId, `undecided-notice-${undecided}-then-final`);
    },
  );

  it('no IPN within resultWait: asks the gateway; still pending, needs_attention, never a guess', async () => {
    const { run } = await disburse(bank, {
      disburse: answered({ outcome: 'pending' as const, resultCode: 7002, message: 'provider processing' }),
      queryDisbursementResult: async () => ({ state: 'pending' as const }),
    });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'needs_attention', resultCode: 7002 });
    const [pay] = run.calls('disburse');
    const [asked] = run.calls('queryDisbursementResult');
    expect(run.gap(pay!, asked!)).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(run.calls('disburse')).toHaveLength(1);
    await captureHistory(h.env.client, run.workflowId, 'asked-still-pending-needs-attention');
  });

  it('a late IPN: asks with doubling waits, the last cut short at resultWait, then needs_attention, and asks on', async () => {
    const { run, statuses } = await disburse(
      bank,
      { disburse: pending, queryDisbursementResult: async () => ({ state: 'pending' as const }) },
      { ipnTimeout: '1 minute', resultWait: '1 hour' },
    );
    expect(await run.result()).toMatchObject({ status: 'needs_attention', resultCode: 7000 });
    const [pay] = run.calls('disburse');
    const asked = run.calls('queryDisbursementResult').map((ask) => Math.round(run.gap(pay!, ask) / 60_000));
    // Waits of 1, 2, 4, 8 and 16 minutes, then the 29 left of the hour.
    expect(asked.slice(0, 6)).toEqual([1, 3, 7, 15, 31, 60]);
    // Then an operator is told once, and payrun asks every 6 hours for 30 days.
    expect(asked.slice(6, 9)).toEqual([60 + 360, 60 + 720, 60 + 1080]);
    expect(asked).toHaveLength(6 + 120);
    expect(statuses()).toEqual(['needs_attention']);
    await captureHistory(h.env.client, run.workflowId, 'asked-until-result-wait-then-asked-on');
  });

  it('an answer learnt after needs_attention moves the payout on: needs_attention → succeeded', async () => {
    let asks = 0;
    const { run, statuses } = await disburse(
      bank,
      {
        disburse: pending,
        queryDisbursementResult: async () =>
          ++asks < 8
            ? { state: 'unknown' as const, reason: 'the gateway refused the query (99: Unknown error)' }
            : { state: 'succeeded' as const, notice: { resultCode: 0, message: 'paid', transId: 'late' } },
      },
      { ipnTimeout: '1 minute', resultWait: '1 hour' },
    );
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(statuses()).toEqual(['needs_attention', 'succeeded']);
    expect(run.inputs('recordDisbursement')[0]!.message).toContain('the gateway refused the query (99');
    expect(run.inputs('recordDisbursement')[1]).toMatchObject({ transId: 'late' });
    await captureHistory(h.env.client, run.workflowId, 'needs-attention-then-asked-succeeded');
  });

  it('no IPN: the gateway’s answer to the query settles it', async () => {
    const { run, disbursementId } = await disburse(bank, {
      disburse: answered({ outcome: 'pending' as const, resultCode: 7000, message: 'pending' }),
      queryDisbursementResult: async () => ({
        state: 'succeeded' as const,
        notice: { resultCode: 0, message: 'paid', transId: 'tq' },
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.inputs('queryDisbursementResult')).toEqual([{ disbursementId }]);
    expect(run.calls('disburse')).toHaveLength(1);
  });
});
