/** payment with fake activities: create answers, IPN or query, pending, expiry, and capture/cancel. */
import { describe, expect, it } from 'vitest';
import {
  CONFIRM_REFUSED,
  confirmPaymentUpdate,
  noticeOf,
  paymentResultSignal,
  paymentStatusQuery,
  paymentWorkflowId,
  type ConfirmOutcome,
  type PaymentInput,
  type PaymentNotice,
  type PaymentStatus,
} from '../../contracts/payments';
import { payment } from '../../workflows/payments/payment';
import { stepsOf } from '../support/history-steps';
import { captureHistory } from '../support/history-capture';
import { eventually } from '../support/wait';
import {
  gate,
  inTurn,
  ok,
  refusal,
  useWorkflowHarness,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const HOLD_MS = 7 * 24 * 3600_000;
const timing: PaymentInput['timing'] = {
  gatewayAttemptTimeout: '1 minute',
  ipnTimeout: '2 minutes',
  maxQueryInterval: '8 minutes',
  resultWait: '30 minutes',
  authorizationHold: '7 days',
};

/** An IPN as the API turns it into a signal (api/payments/routes.ts). */
const ipn = (resultCode: number, extra: Record<string, unknown> = {}) =>
  noticeOf({ resultCode, message: `ipn ${resultCode}`, transId: 555, ...extra }, 'ipn');
const asked = (resultCode: number, extra: Partial<PaymentNotice> = {}): PaymentNotice => ({
  resultCode,
  message: `query ${resultCode}`,
  source: 'query',
  ...extra,
});
const awaitingCustomer = async () => ({ status: 'awaiting_customer' as PaymentStatus });
const confirmAnswer = (outcome: ConfirmOutcome['outcome'], resultCode = 0) => ({
  outcome,
  resultCode,
  message: `confirm ${outcome}`,
});

const records: Fakes = { recordPaymentStatus: ok, recordPaymentResult: ok, recordConfirmation: ok };

async function pay(fakes: Fakes, options: Partial<PaymentInput> = {}) {
  const paymentId = h.id('p');
  return h.start(payment, {
    workflowId: paymentWorkflowId(paymentId),
    args: [{ paymentId, requestType: 'captureWallet', autoCapture: true, timing, ...options }],
    fakes: { ...records, ...fakes },
  });
}

const statusesOf = (run: Run<typeof payment>) => [
  ...run.inputs('recordPaymentResult').map((record) => record.status),
];

describe('payment: the create answer', () => {
  it('refused at create (final code as a value): failed, recorded, no wait', async () => {
    const run = await pay({
      createPayment: async () => ({
        status: 'failed' as const,
        notice: { resultCode: 22, message: 'amount out of range', source: 'create' as const },
      }),
    });
    expect(await run.result()).toEqual({ status: 'failed', resultCode: 22, message: 'amount out of range' });
    expect(run.names()).toEqual(['createPayment', 'recordPaymentResult']);
  });

  it('POS answered 0 with payType: succeeded at once', async () => {
    const notice = noticeOf({ resultCode: 0, message: 'ok', transId: 1, payType: 'qr' }, 'create');
    const run = await pay({ createPayment: async () => ({ status: 'succeeded' as const, notice }) });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.inputs('recordPaymentResult')).toEqual([
      expect.objectContaining({ status: 'succeeded', notice }),
    ]);
    expect(run.calls('queryPayment')).toEqual([]);
  });

  it('POS answered 0 without payType: recorded now, payType taken from the IPN', async () => {
    const notice = noticeOf({ resultCode: 0, message: 'ok', transId: 1 }, 'create');
    const run = await pay({ createPayment: async () => ({ status: 'succeeded' as const, notice }) });
    await run.reached('recordPaymentResult');
    await run.handle.signal(paymentResultSignal, ipn(0, { payType: 'napas', paymentOption: 'x' }));
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const [first, second] = run.inputs('recordPaymentResult');
    expect(first!.notice.payType).toBeUndefined();
    expect(second!.notice).toMatchObject({ source: 'create', payType: 'napas', paymentOption: 'x' });
    expect(run.calls('queryPayment')).toEqual([]);
  });

  it('POS answered 0 without payType and no IPN: api/query after ipnTimeout gives it', async () => {
    const notice = noticeOf({ resultCode: 0, message: 'ok', transId: 1 }, 'create');
    const run = await pay({
      createPayment: async () => ({ status: 'succeeded' as const, notice }),
      queryPayment: async () => asked(0, { payType: 'credit' }),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const [create] = run.calls('createPayment');
    const [query] = run.calls('queryPayment');
    expect(run.gap(create!, query!)).toBeGreaterThanOrEqual(2 * MINUTE);
    expect(run.inputs('recordPaymentResult')[1]!.notice.payType).toBe('credit');
  });
});

describe('payment: waiting for the outcome', () => {
  it.each([
    [0, 'succeeded'],
    [1006, 'failed'],
    [1005, 'failed'],
  ] as const)('the IPN says %i → %s, recorded as such; later IPNs change nothing', async (code, status) => {
    const run = await pay({ createPayment: awaitingCustomer });
    await run.reached('createPayment');
    await eventually(async () =>
      expect(await run.handle.query(paymentStatusQuery)).toBe('awaiting_customer'),
    );
    await run.handle.signal(paymentResultSignal, ipn(code));
    await run.handle.signal(paymentResultSignal, ipn(code === 0 ? 1006 : 0));
    expect(await run.result()).toEqual({ status, resultCode: code, message: `ipn ${code}` });
    // The write runs in the task that hears the first notification. When the second arrives while that
    // task completes, the server refuses the completion (new events) and the write's marker with it: the
    // next task writes the same result again (the record moves forward only; nothing else changes).
    expect(statusesOf(run).length).toBeGreaterThan(0);
    expect(new Set(statusesOf(run))).toEqual(new Set([status]));
    expect(new Set(run.inputs('recordPaymentResult').map((record) => record.notice.resultCode))).toEqual(
      new Set([code]),
    );
    expect(run.calls('queryPayment')).toEqual([]);
  });

  it('a pending IPN (7000) is not an outcome: status pending, recorded once, then the final IPN', async () => {
    const run = await pay({ createPayment: awaitingCustomer });
    await run.reached('createPayment');
    await run.handle.signal(paymentResultSignal, ipn(7000));
    await run.reached('recordPaymentStatus');
    await run.handle.signal(paymentResultSignal, ipn(7002));
    await eventually(async () => expect(await run.handle.query(paymentStatusQuery)).toBe('pending'));
    await run.handle.signal(paymentResultSignal, ipn(0));
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(run.inputs('recordPaymentStatus')).toEqual([expect.objectContaining({ status: 'pending' })]);
    await captureHistory(h.env.client, run.workflowId, 'pending-notices-then-final');
  });

  it('no IPN: api/query after ipnTimeout, then with doubling waits (capped), until final', async () => {
    const run = await pay({
      createPayment: awaitingCustomer,
      queryPayment: inTurn(asked(1000), asked(1000), asked(1000), asked(1000), asked(0)),
    });
    expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'query 0' });
    const steps = [...run.calls('createPayment'), ...run.calls('queryPayment')];
    const gaps = steps.slice(1).map((call, i) => run.gap(steps[i]!, call));
    expect(gaps.map((gap) => Math.round(gap / MINUTE))).toEqual([2, 4, 8, 8, 8]);
    expect(run.inputs('recordPaymentResult')[0]!.notice.source).toBe('query');
    await captureHistory(h.env.client, run.workflowId, 'asked-until-final');
  });

  it('the query says 7002 (provider processing): status pending, then final by query', async () => {
    const run = await pay({
      createPayment: awaitingCustomer,
      queryPayment: inTurn(asked(7002), asked(1006)),
    });
    expect(await run.result()).toMatchObject({ status: 'failed', resultCode: 1006 });
    expect(run.inputs('recordPaymentStatus')).toEqual([expect.objectContaining({ status: 'pending' })]);
    await captureHistory(h.env.client, run.workflowId, 'asked-provider-processing-then-final');
  });

  it('no final word within resultWait: expired with the last code', async () => {
    const run = await pay({ createPayment: awaitingCustomer, queryPayment: async () => asked(1000) });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'expired', resultCode: 1000 });
    await captureHistory(h.env.client, run.workflowId, 'no-final-word-expired');
    expect(run.inputs('recordPaymentStatus').at(-1)).toMatchObject({ status: 'expired', resultCode: 1000 });
    expect(run.calls('recordPaymentResult')).toEqual([]);
    const [create] = run.calls('createPayment');
    expect(run.gap(create!, run.calls('queryPayment').at(-1)!)).toBeGreaterThanOrEqual(30 * MINUTE);
  });

  it('expired, then the customer pays: the late notification is the result (payrun still listened)', async () => {
    const run = await pay({ createPayment: awaitingCustomer, queryPayment: async () => asked(1000) });
    await eventually(
      () => expect(run.inputs('recordPaymentStatus').at(-1)).toMatchObject({ status: 'expired' }),
      { between: () => h.skip(5 * MINUTE) },
    );
    await run.handle.signal(paymentResultSignal, ipn(0, { payType: 'qr' }));
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.inputs('recordPaymentResult')).toEqual([
      expect.objectContaining({ status: 'succeeded', notice: expect.objectContaining({ transId: '555' }) }),
    ]);
    await captureHistory(h.env.client, run.workflowId, 'expired-then-late-notification');
  });

  it('query answers that prove nothing (a refusal, another order) are no result: it waits on, then decides', async () => {
    const unknown: PaymentNotice & { known: false } = { ...asked(99), known: false };
    const run = await pay({
      createPayment: awaitingCustomer,
      queryPayment: inTurn(unknown, unknown, asked(0, { transId: 't9', payType: 'qr' })),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.calls('queryPayment')).toHaveLength(3);
    expect(statusesOf(run)).toEqual(['succeeded']);
    await captureHistory(h.env.client, run.workflowId, 'unknown-answers-then-final');
  });

  it('the IPN arrives while the query is out: the IPN decides', async () => {
    let signalled = false;
    const run = await pay({
      createPayment: awaitingCustomer,
      queryPayment: async () => {
        await run.handle.signal(paymentResultSignal, ipn(0));
        signalled = true;
        return asked(7000);
      },
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(signalled).toBe(true);
    expect(run.calls('queryPayment')).toHaveLength(1);
    expect(run.inputs('recordPaymentResult')[0]!.notice.source).toBe('ipn');
    await captureHistory(h.env.client, run.workflowId, 'notified-while-asking');
  });
});

describe('payment: where its steps run', () => {
  /** How each create and result write ran: in the workflow task (local) or as a queued activity. */
  const stepsOfRun = async (run: Run<typeof payment>) =>
    (await stepsOf(run.handle)).map(({ type, where }) => `${type} ${where}`);

  async function paidRun(options: Partial<PaymentInput>) {
    const run = await pay({ createPayment: awaitingCustomer }, options);
    await eventually(async () =>
      expect(await run.handle.query(paymentStatusQuery)).toBe('awaiting_customer'),
    );
    await run.handle.signal(paymentResultSignal, ipn(0));
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    return run;
  }

  it('the create and the result are written in the workflow tasks that decide them', async () => {
    expect(await stepsOfRun(await paidRun({}))).toEqual(['createPayment local', 'recordPaymentResult local']);
  });

  it('queuedSteps (STEPS_AS_QUEUED_ACTIVITIES, the benchmark comparison): both are queued activities, as before', async () => {
    const run = await paidRun({ queuedSteps: true });
    expect(await stepsOfRun(run)).toEqual(['createPayment queued', 'recordPaymentResult queued']);
    expect(statusesOf(run)).toEqual(['succeeded']);
  });
});

describe('payment: authorized without capture (autoCapture false)', () => {
  async function authorized(fakes: Fakes) {
    const run = await pay({ createPayment: awaitingCustomer, ...fakes }, { autoCapture: false });
    await run.reached('createPayment');
    await run.handle.signal(paymentResultSignal, ipn(0));
    await run.reached('recordPaymentResult');
    await eventually(async () =>
      expect(await run.handle.query(paymentStatusQuery)).toBe('authorized_not_captured'),
    );
    return run;
  }
  const decide = (run: Run<typeof payment>, action: 'capture' | 'cancel') =>
    run.handle.executeUpdate(confirmPaymentUpdate, { args: [{ action, by: 'ops' }] });

  it('a failed outcome is failed, never authorized', async () => {
    const run = await pay({ createPayment: awaitingCustomer }, { autoCapture: false });
    await run.reached('createPayment');
    await run.handle.signal(paymentResultSignal, ipn(1006));
    expect(await run.result()).toMatchObject({ status: 'failed' });
  });

  it('recorded with the hold expiry; capture → succeeded', async () => {
    const run = await authorized({ confirmPayment: async () => confirmAnswer('captured') });
    const [record] = run.calls('recordPaymentResult');
    expect(run.inputs('recordPaymentResult')[0]).toMatchObject({ status: 'authorized_not_captured' });
    expect(run.inputs('recordPaymentResult')[0]!.holdExpiresAt).toBeGreaterThanOrEqual(
      record!.scheduledAt + HOLD_MS - 1000,
    );
    expect(await decide(run, 'capture')).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(run.inputs('confirmPayment')).toEqual([
      expect.objectContaining({ action: 'capture', reason: 'operator' }),
    ]);
    expect(run.inputs('recordConfirmation')).toEqual([
      expect.objectContaining({ status: 'succeeded', action: 'capture', by: 'ops' }),
    ]);
    await captureHistory(h.env.client, run.workflowId, 'authorized-then-captured');
  });

  it('cancel → cancelled', async () => {
    const run = await authorized({ confirmPayment: async () => confirmAnswer('cancelled') });
    expect(await decide(run, 'cancel')).toMatchObject({ status: 'cancelled' });
    expect(await run.result()).toMatchObject({ status: 'cancelled' });
  });

  it('the gateway answers the operator "expired": authorization_expired', async () => {
    const run = await authorized({ confirmPayment: async () => confirmAnswer('expired', 1018) });
    expect(await decide(run, 'capture')).toMatchObject({ status: 'authorization_expired', resultCode: 1018 });
    expect(await run.result()).toMatchObject({ status: 'authorization_expired', resultCode: 1018 });
  });

  it('the gateway refuses the operator: still authorized, the operator may try again', async () => {
    const run = await authorized({
      confirmPayment: inTurn(confirmAnswer('refused', 99), confirmAnswer('captured')),
    });
    expect(await decide(run, 'capture')).toMatchObject({
      status: 'authorized_not_captured',
      resultCode: 99,
    });
    expect(await run.handle.query(paymentStatusQuery)).toBe('authorized_not_captured');
    expect(await decide(run, 'capture')).toMatchObject({ status: 'succeeded' });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(run.inputs('recordConfirmation').map((record) => record.status)).toEqual([
      'authorized_not_captured',
      'succeeded',
    ]);
  });

  it('nobody decides within the hold: payrun releases it (cancel, hold-over) → authorization_expired', async () => {
    const run = await authorized({ confirmPayment: async () => confirmAnswer('cancelled') });
    expect(await run.result()).toMatchObject({ status: 'authorization_expired' });
    const [record] = run.calls('recordPaymentResult');
    const [release] = run.calls('confirmPayment');
    expect(run.gap(record!, release!)).toBeGreaterThanOrEqual(HOLD_MS);
    expect(release!.input).toMatchObject({ action: 'cancel', reason: 'hold-over' });
    expect(run.inputs('recordConfirmation')).toEqual([
      expect.objectContaining({ status: 'authorization_expired', action: 'expire', by: 'payrun' }),
    ]);
  });

  it.each([
    ['refused', 'authorization_expired'],
    ['captured', 'succeeded'],
  ] as const)('the release at the end of the hold is answered %s → %s', async (answer, status) => {
    const run = await authorized({ confirmPayment: async () => confirmAnswer(answer) });
    expect(await run.result()).toMatchObject({ status });
  });

  it('refused updates: before authorization, an unknown action, while another decision is in progress', async () => {
    const confirming = gate();
    const run = await pay(
      {
        createPayment: awaitingCustomer,
        confirmPayment: async () => {
          await confirming.opened;
          return confirmAnswer('captured');
        },
      },
      { autoCapture: false },
    );
    await run.reached('createPayment');
    expect((await refusal(decide(run, 'capture'))).type).toBe(CONFIRM_REFUSED);

    await run.handle.signal(paymentResultSignal, ipn(0));
    await eventually(async () =>
      expect(await run.handle.query(paymentStatusQuery)).toBe('authorized_not_captured'),
    );
    const unknown = run.handle.executeUpdate(confirmPaymentUpdate, {
      args: [{ action: 'refund' as 'capture', by: 'ops' }],
    });
    expect((await refusal(unknown)).type).toBe(CONFIRM_REFUSED);

    const first = decide(run, 'capture');
    await run.reached('confirmPayment');
    const second = await refusal(decide(run, 'cancel'));
    expect(second.type).toBe(CONFIRM_REFUSED);
    expect(second.message).toContain('capture in progress');
    confirming.open();
    expect(await first).toMatchObject({ status: 'succeeded' });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(run.calls('confirmPayment')).toHaveLength(1);
  });
});
