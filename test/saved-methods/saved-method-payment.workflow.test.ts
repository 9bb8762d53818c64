/** savedMethodPayment with fake activities: 0, refusal, 8000 redirect, 7000 pending, 8200 and every OTP verdict. */
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../gateway';
import {
  OTP_RULES,
  type OtpAttempt,
  submitOtpUpdate,
  savedMethodPaymentResultSignal,
  savedMethodPaymentStartedUpdate,
  OTP_FAILURE,
  savedMethodPaymentStateQuery,
  savedMethodPaymentWorkflowId,
  type SavedMethodPaymentInput,
} from '../../contracts/saved-methods';
import { savedMethodPayment } from '../../workflows/saved-methods/saved-method-payment';
import { captureHistory } from '../support/history-capture';
import { eventually } from '../support/wait';
import {
  gate,
  inTurn,
  losingFirst,
  ok,
  refusal,
  useWorkflowHarness,
  type AnswerOf,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const timing: SavedMethodPaymentInput['timing'] = {
  gatewayAttemptTimeout: '1 minute',
  resultWait: '2 minutes',
  giveUpAfter: '10 minutes',
};
type Pay = AnswerOf<'payWithToken'>;
type Verify = AnswerOf<'verifyTokenPayment'>;
const first = (outcome: Pay['outcome'], resultCode: number): Pay => ({
  outcome,
  resultCode,
  message: `pay ${resultCode}`,
  transId: undefined,
});
const verdict = (attemptOutcome: Verify['attemptOutcome'], resultCode: number): Verify => ({
  attemptOutcome,
  resultCode,
  message: `verify ${resultCode}`,
});
const query = (final: boolean, resultCode: number) => ({
  final,
  resultCode,
  message: `query ${resultCode}`,
  transId: final ? 'tq' : undefined,
});

/** `wrong` wrong codes of this user earlier today. */
const history =
  (wrong: number) =>
  async ({ now }: { now: number }): Promise<OtpAttempt[]> =>
    Array.from({ length: wrong }, (_, i) => ({ at: now - 60_000 + i, kind: 'verify', outcome: 'wrong' }));

async function payWith(fakes: Fakes) {
  const paymentId = h.id('tp');
  const run = await h.start(savedMethodPayment, {
    workflowId: savedMethodPaymentWorkflowId(paymentId),
    args: [{ paymentId, partnerClientId: 'user-1', timing }],
    fakes: { recordTokenPayment: ok, otpAttemptsToday: history(0), ...fakes },
  });
  return { run, paymentId };
}
const states = (run: Run<typeof savedMethodPayment>) =>
  run.inputs('recordTokenPayment').map((record) => record.state);
const started = (run: Run<typeof savedMethodPayment>) =>
  run.handle.executeUpdate(savedMethodPaymentStartedUpdate);
const submit = (run: Run<typeof savedMethodPayment>, code = '123456') =>
  run.handle.executeUpdate(submitOtpUpdate, { args: [{ code }] });

describe('savedMethodPayment: the first answer', () => {
  it('0: succeeded at once; the API is told', async () => {
    const { run } = await payWith({ payWithToken: async () => first('succeeded', 0) });
    expect(await started(run)).toEqual({ state: 'succeeded', resultCode: 0, message: 'pay 0' });
    expect(await run.result()).toEqual({ state: 'succeeded', resultCode: 0, message: 'pay 0' });
    expect(run.names()).toEqual(['payWithToken', 'recordTokenPayment']);
  });

  it('a refusal (2001 token invalid): failed at once', async () => {
    const { run } = await payWith({ payWithToken: async () => first('failed', 2001) });
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: 2001 });
    expect(states(run)).toEqual(['failed']);
  });

  it('a lost answer re-sends the same payment (one order)', async () => {
    const { run } = await payWith({
      payWithToken: losingFirst('tokenization.pay', async () => first('succeeded', 0)),
    });
    expect(await run.result()).toMatchObject({ state: 'succeeded' });
    const [a, b] = run.calls('payWithToken');
    expect([a!.attempt, b!.attempt]).toEqual([1, 2]);
    expect(b!.input).toEqual(a!.input);
  });
});

describe('savedMethodPayment: 8000 (confirm at the provider) and 7000 (pending)', () => {
  it.each([
    [0, 'succeeded'],
    [1006, 'failed'],
  ] as const)('8000, then IPN %i → %s; a waiting IPN is ignored', async (code, state) => {
    const { run } = await payWith({ payWithToken: async () => first('redirect', 8000) });
    expect(await started(run)).toMatchObject({ state: 'awaiting_customer', resultCode: 8000 });
    await run.handle.signal(savedMethodPaymentResultSignal, { resultCode: 7000, message: 'wait' });
    await run.handle.signal(savedMethodPaymentResultSignal, {
      resultCode: code,
      message: 'final',
      transId: 't',
    });
    expect(await run.result()).toEqual({ state, resultCode: code, message: 'final' });
    expect(run.inputs('recordTokenPayment').at(-1)).toMatchObject({ state, transId: 't' });
    expect(run.calls('queryTokenPayment')).toEqual([]);
  });

  it('8000 and no IPN: api/query every resultWait; the customer never confirms → needs_attention at giveUpAfter, asked on', async () => {
    const { run, paymentId } = await payWith({
      payWithToken: async () => first('redirect', 8000),
      queryTokenPayment: async () => query(false, 1000),
    });
    expect(await run.result()).toMatchObject({ state: 'needs_attention', resultCode: 1000 });
    expect(states(run)).toEqual(['awaiting_customer', 'needs_attention']);
    // Five asks until giveUpAfter, then every 6 hours for 30 days: a customer who confirms late is heard.
    expect(run.inputs('queryTokenPayment').slice(0, 5)).toEqual(
      [1, 2, 3, 4, 5].map((attempt) => ({ paymentId, attempt })),
    );
    expect(run.calls('queryTokenPayment')).toHaveLength(5 + 120);
    const [pay] = run.calls('payWithToken');
    expect(run.gap(pay!, run.calls('queryTokenPayment')[4]!)).toBeGreaterThanOrEqual(10 * MINUTE);
  });

  it('8000, the customer confirms after needs_attention: the late answer is the result', async () => {
    let asks = 0;
    const { run } = await payWith({
      payWithToken: async () => first('redirect', 8000),
      queryTokenPayment: async () => (++asks < 8 ? query(false, 1000) : query(true, 0)),
    });
    expect(await run.result()).toMatchObject({ state: 'succeeded', resultCode: 0 });
    expect(states(run)).toEqual(['awaiting_customer', 'needs_attention', 'succeeded']);
    await captureHistory(h.env.client, run.workflowId, 'customer-confirms-after-needs-attention');
  });

  it('7000: the query finds the outcome', async () => {
    const { run } = await payWith({
      payWithToken: async () => first('pending', 7000),
      queryTokenPayment: inTurn(query(false, 7000), query(true, 0)),
    });
    expect(await started(run)).toMatchObject({ state: 'pending' });
    expect(await run.result()).toMatchObject({ state: 'succeeded', resultCode: 0 });
    expect(run.inputs('recordTokenPayment').at(-1)).toMatchObject({ transId: 'tq' });
  });

  it('7000 and the query finds a failure', async () => {
    const { run } = await payWith({
      payWithToken: async () => first('pending', 7002),
      queryTokenPayment: async () => query(true, 1006),
    });
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: 1006 });
  });

  it('7000 with no final word by giveUpAfter: needs_attention, not a guess', async () => {
    const { run } = await payWith({
      payWithToken: async () => first('pending', 7000),
      queryTokenPayment: async () => query(false, 7000),
    });
    expect(await run.result()).toMatchObject({ state: 'needs_attention', resultCode: 7000 });
    expect(states(run)).toEqual(['pending', 'needs_attention']);
  });
});

describe('savedMethodPayment: 8200, the customer types the code', () => {
  async function awaitingOtp(fakes: Fakes) {
    const started8200 = await payWith({ payWithToken: async () => first('otp', 8200), ...fakes });
    expect(await started(started8200.run)).toMatchObject({ state: 'awaiting_otp', resultCode: 8200 });
    // Document 2: requests of a user at least 3 seconds apart.
    await h.skip(OTP_RULES.minSpacingMs);
    return started8200;
  }

  it('the right code, paid (0): succeeded; the day’s attempts were read for this user', async () => {
    const { run, paymentId } = await awaitingOtp({ verifyTokenPayment: async () => verdict('accepted', 0) });
    expect(await submit(run, '654321')).toEqual({ state: 'succeeded', resultCode: 0, message: 'verify 0' });
    expect(await run.result()).toMatchObject({ state: 'succeeded' });
    expect(run.inputs('otpAttemptsToday')).toEqual([{ partnerClientId: 'user-1', now: expect.any(Number) }]);
    expect(run.inputs('verifyTokenPayment')).toEqual([
      { paymentId, code: '654321', attempt: 1, at: expect.any(Number) },
    ]);
    expect(states(run)).toEqual(['awaiting_otp', 'succeeded']);
  });

  it('the right code, pending (7000): pending, then the IPN decides', async () => {
    const { run } = await awaitingOtp({ verifyTokenPayment: async () => verdict('accepted', 7000) });
    expect(await submit(run)).toMatchObject({ state: 'pending', resultCode: 7000 });
    await run.handle.signal(savedMethodPaymentResultSignal, { resultCode: 0, message: 'paid' });
    expect(await run.result()).toMatchObject({ state: 'succeeded', resultCode: 0 });
    expect(states(run)).toEqual(['awaiting_otp', 'pending', 'succeeded']);
  });

  it('a wrong code with tries left: refused otp_wrong, the customer tries again (3 s later)', async () => {
    const { run } = await awaitingOtp({
      verifyTokenPayment: inTurn(verdict('wrong', 8201), verdict('accepted', 0)),
    });
    const wrong = await refusal(submit(run));
    expect(wrong.type).toBe(OTP_FAILURE.wrong);
    expect(wrong.details?.[0]).toEqual({ attemptsLeft: 4 });
    expect(await run.handle.query(savedMethodPaymentStateQuery)).toBe('awaiting_otp');
    const tooSoon = await refusal(submit(run));
    expect(tooSoon.type).toBe(OTP_FAILURE.tooSoon);
    await h.skip(OTP_RULES.minSpacingMs);
    expect(await submit(run)).toMatchObject({ state: 'succeeded' });
    expect(run.inputs('verifyTokenPayment').map((input) => input.attempt)).toEqual([1, 2]);
  });

  it('the fifth wrong code of the day: failed, locked until tomorrow', async () => {
    const { run } = await awaitingOtp({
      otpAttemptsToday: history(4),
      verifyTokenPayment: async () => verdict('wrong', 8201),
    });
    expect((await refusal(submit(run))).type).toBe(OTP_FAILURE.locked);
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: codeOf('otp_locked') });
  });

  it('already locked today: refused before the gateway is asked', async () => {
    const { run } = await awaitingOtp({ otpAttemptsToday: history(5) });
    expect((await refusal(submit(run))).type).toBe(OTP_FAILURE.locked);
    expect(run.calls('verifyTokenPayment')).toEqual([]);
  });

  it.each([
    ['locked', 8203, OTP_FAILURE.locked],
    ['expired', 8202, OTP_FAILURE.expired],
  ] as const)('the gateway answers %s (%i): failed, refused as %s', async (outcome, code, type) => {
    const { run } = await awaitingOtp({ verifyTokenPayment: async () => verdict(outcome, code) });
    expect((await refusal(submit(run))).type).toBe(type);
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: code });
  });

  it('the gateway answers too_soon (8204): refused, still waiting for the code', async () => {
    const { run } = await awaitingOtp({
      verifyTokenPayment: inTurn(verdict('too_soon', 8204), verdict('accepted', 0)),
    });
    expect((await refusal(submit(run))).type).toBe(OTP_FAILURE.tooSoon);
    expect(await run.handle.query(savedMethodPaymentStateQuery)).toBe('awaiting_otp');
    await h.skip(OTP_RULES.minSpacingMs);
    expect(await submit(run)).toMatchObject({ state: 'succeeded' });
  });

  it('any other answer (99): failed, refused as otp_failed with the code', async () => {
    const { run } = await awaitingOtp({ verifyTokenPayment: async () => verdict('error', 99) });
    const failed = await refusal(submit(run));
    expect(failed.type).toBe(OTP_FAILURE.failed);
    expect(failed.details?.[0]).toEqual({ resultCode: 99 });
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: 99 });
  });

  it('a malformed code, or a second code while one is being checked: refused, never sent', async () => {
    const checking = gate();
    const { run } = await awaitingOtp({
      verifyTokenPayment: async () => {
        await checking.opened;
        return verdict('accepted', 0);
      },
    });
    expect((await refusal(submit(run, '12ab'))).type).toBe(OTP_FAILURE.invalid);
    const pending = submit(run);
    await run.reached('verifyTokenPayment');
    expect((await refusal(submit(run))).type).toBe(OTP_FAILURE.tooSoon);
    checking.open();
    expect(await pending).toMatchObject({ state: 'succeeded' });
    expect(run.calls('verifyTokenPayment')).toHaveLength(1);
  });

  it('no code within 5 minutes: failed as otp_expired; a late code is refused as expired', async () => {
    const recording = gate();
    const { run } = await awaitingOtp({
      recordTokenPayment: async ({ state }) => {
        if (state === 'failed') await recording.opened;
      },
    });
    // To the code's end (3 s of it were spent before): time stops skipping while an activity runs.
    await h.skip(OTP_RULES.codeLifetimeMs - OTP_RULES.minSpacingMs);
    await eventually(() => expect(states(run)).toContain('failed'));
    expect((await refusal(submit(run))).type).toBe(OTP_FAILURE.expired);
    recording.open();
    expect(await run.result()).toMatchObject({ state: 'failed', resultCode: codeOf('otp_expired') });
    expect(run.calls('verifyTokenPayment')).toEqual([]);
  });

  it('a code being checked when the 5 minutes end: its verdict counts', async () => {
    const checking = gate();
    const { run } = await awaitingOtp({
      verifyTokenPayment: async () => {
        await checking.opened;
        return verdict('accepted', 0);
      },
    });
    // 5 s before the code's end: between skips time passes in real time, and a loaded machine took more
    // than the 100 ms this test once left (the code had expired before it was submitted). The check then
    // outlives the code.
    await h.skip(OTP_RULES.codeLifetimeMs - OTP_RULES.minSpacingMs - 5_000);
    const pending = submit(run);
    await run.reached('verifyTokenPayment');
    await h.skip(10_000);
    checking.open();
    expect(await pending).toMatchObject({ state: 'succeeded' });
    expect(await run.result()).toMatchObject({ state: 'succeeded' });
    expect(states(run)).toEqual(['awaiting_otp', 'succeeded']);
    // The code's timer did fire while the check was out.
    const events = await run.events();
    const verifyScheduled = events.indexOf(
      'activityTaskScheduled',
      events.lastIndexOf('workflowExecutionUpdateAccepted'),
    );
    const timerFired = events.indexOf('timerFired');
    expect(timerFired).toBeGreaterThan(verifyScheduled);
    expect(timerFired).toBeLessThan(events.indexOf('activityTaskCompleted', verifyScheduled));
  });
});
