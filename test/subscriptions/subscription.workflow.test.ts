/**
 * subscription with fake activities: the authorization (IPN or query), every charge outcome of a cycle,
 * pending charges, the insufficient-funds retry, pause / cancel / reactivate, VARIABLE amounts, expiry
 * and continue-as-new. DAILY cycles at 09:00 GMT+7; dates follow the test server's (skipped) clock.
 */
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../gateway';
import {
  instantOf,
  authorizationSignal,
  cancelUpdate,
  chargeOrderId,
  chargeResultSignal,
  cycleAmountUpdate,
  manageOrderId,
  reactivationSignal,
  SUBSCRIPTION_REFUSED,
  subscriptionViewQuery,
  type SubscriptionInput,
} from '../../contracts/subscriptions';
import { eventually } from '../support/wait';
import {
  answer,
  cancel,
  charged,
  cycles,
  DAY,
  ledger,
  MINUTE,
  pause,
  reactivate,
  statuses,
  subscriptionSteps,
  timing,
  untilStatus,
  type Sub,
} from './subscription-fixtures';
import { captureHistory } from '../support/history-capture';
import { placesOf, stepsOf } from '../support/history-steps';
import { inTurn, losingFirst, ok, refusal, useWorkflowHarness } from '../support/workflow-harness';

const h = useWorkflowHarness();

const { subscribe, active, skipTo } = subscriptionSteps(h);

describe('subscription: authorization', () => {
  it('the gateway refuses the subscription: not_authorized, nothing else asked', async () => {
    const { run } = await subscribe({ startSubscriptionAuthorization: async () => answer(22) });
    expect(await run.result()).toMatchObject({
      status: 'not_authorized',
      statusReason: expect.stringContaining('22'),
    });
    expect(run.names().filter((name) => name !== 'recordSubscription')).toEqual([
      'startSubscriptionAuthorization',
    ]);
  });

  it('IPN 0 with callbackToken: activated with it, anchored on nextPaymentDate as cycle 1', async () => {
    const { run, subscriptionId, due } = await active({}, {}, 1);
    expect(run.inputs('activateSubscription')).toEqual([{ subscriptionId, callbackToken: 'cb-1' }]);
    // The anchor and the active status in one record (patched 'activation-one-record').
    expect(run.inputs('recordSubscription')).toContainEqual({
      subscriptionId,
      status: 'active',
      statusReason: null,
      failures: 0,
      anchorDate: due(1),
      anchorCycle: 1,
      nextCycle: 1,
      nextPaymentDate: due(1),
    });
    // initialAmount 0: no cycle-0 charge. Expiry on the first due date: nothing is charged.
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(ledger(run)).toEqual([]);
    expect(run.calls('chargeSubscriptionCycle')).toEqual([]);
  });

  it('an initial amount with no nextPaymentDate: cycle 0 (today) is the authorization charge, recorded once', async () => {
    const { run, subscriptionId, today } = await active(
      {},
      { initialAmount: 20_000, nextPaymentDate: undefined },
      1,
    );
    expect(run.inputs('recordSubscription')).toContainEqual(
      expect.objectContaining({ anchorDate: today, anchorCycle: 0 }),
    );
    expect(ledger(run)).toEqual([
      expect.objectContaining({
        subscriptionId,
        orderId: subscriptionId,
        cycle: 0,
        amount: 20_000,
        status: 'succeeded',
        transId: 't-auth',
      }),
    ]);
    expect(await run.result()).toMatchObject({ status: 'expired' });
  });

  it('IPN with a refusal (1006): not_authorized, never activated', async () => {
    const { run } = await subscribe({});
    await run.reached('startSubscriptionAuthorization');
    await run.handle.signal(authorizationSignal, { resultCode: 1006, message: 'declined' });
    expect(await run.result()).toMatchObject({
      status: 'not_authorized',
      statusReason: 'The customer did not authorize: 1006 declined',
    });
    expect(run.calls('activateSubscription')).toEqual([]);
  });

  it.each([
    [7000, 'pending'],
    [7002, 'provider processing'],
    [1000, 'awaiting the customer'],
    [42, 'not found yet'],
  ])('no IPN: api/query after the wait; %i (%s) is not an answer, the next query is', async (code) => {
    const { run, subscriptionId } = await subscribe(
      {
        checkSubscriptionAuthorization: inTurn(
          { ...answer(code), transId: undefined },
          { ...answer(0), transId: 'tq' },
        ),
      },
      {},
      1,
    );
    await eventually(() => expect(statuses(run)).toContain('active'), { between: () => h.skip(MINUTE) });
    const [start] = run.calls('startSubscriptionAuthorization');
    const [first, second] = run.calls('checkSubscriptionAuthorization');
    expect(run.gap(start!, first!)).toBeGreaterThanOrEqual(2 * MINUTE);
    // The checks grow apart: the second waits twice the first wait.
    expect(run.gap(first!, second!)).toBeGreaterThanOrEqual(4 * MINUTE);
    // No callbackToken from a query: the activity finds it with cbQuery.
    expect(run.inputs('activateSubscription')).toEqual([{ subscriptionId, callbackToken: undefined }]);
    // Each check ran in the workflow task its timer woke (patch 'authorization-check-in-workflow-task'):
    // a marker, never a queued activity.
    expect(await placesOf(run.handle, 'checkSubscriptionAuthorization')).toEqual(['local', 'local']);
    if (code === 7002)
      await captureHistory(h.env.client, run.workflowId, 'authorization-checked-in-workflow-task', {
        stillOpen: true,
      });
  });

  it('the customer never authorizes: not_authorized as link_expired after authorizationGiveUpAfter', async () => {
    const { run } = await subscribe({
      checkSubscriptionAuthorization: async () => ({ ...answer(7000), transId: undefined }),
    });
    const result = await run.result();
    expect(result).toMatchObject({
      status: 'not_authorized',
      statusReason: expect.stringContaining(
        // After 2, 6, 14, 22 and 30 minutes: 5 checks over the 30-minute link, not one every 2 minutes.
        `${codeOf('link_expired')} The customer did not authorize (checked 5 times)`,
      ),
    });
    expect(run.calls('activateSubscription')).toEqual([]);
  });

  it('a cancel while authorizing is refused (nothing to cancel at the gateway yet)', async () => {
    const { run } = await subscribe({});
    await run.reached('startSubscriptionAuthorization');
    const refused = await refusal(run.handle.executeUpdate(cancelUpdate, { args: [{ by: 'ops' }] }));
    expect(refused.message).toBe('This subscription is authorizing; it cannot be cancelled.');
    expect(run.calls('manageSubscription')).toEqual([]);
  });

  it('subscription/create fails: not_authorized with its code', async () => {
    const { run } = await subscribe({ activateSubscription: async () => answer(2001) });
    await run.handle.signal(authorizationSignal, { resultCode: 0, callbackToken: 'cb' });
    expect(await run.result()).toMatchObject({
      status: 'not_authorized',
      statusReason: 'subscription/create failed: 2001 answer 2001',
    });
  });
});

describe('subscription: where its steps run', () => {
  /** Each step up to the cycle's own charge: in the workflow task that decided it (local), or queued. */
  async function stepsBeforeTheCharge(run: Sub) {
    const steps = await stepsOf(run.handle);
    return steps.slice(
      0,
      steps.findIndex((step) => step.type === 'chargeSubscriptionCycle'),
    );
  }

  /** Handed to the billing run, which does not charge it: the workflow reads that at its grace and charges. */
  async function handedAndChargedByItself(input: Partial<SubscriptionInput>) {
    const { run, due } = await active(
      { handOverCycle: ok, settleHandedCycle: async () => undefined },
      { timing: { ...timing, billingRunGrace: '2 hours' }, ...input },
      2,
    );
    await skipTo(instantOf(due(1), 9) + 120 * MINUTE);
    await eventually(() => expect(run.calls('chargeSubscriptionCycle')).toHaveLength(1), {
      between: () => h.skip(MINUTE),
    });
    return stepsBeforeTheCharge(run);
  }

  const onboardingAndHandOver = [
    'startSubscriptionAuthorization',
    'activateSubscription',
    'handOverCycle',
    'settleHandedCycle',
  ];
  // Since `activation-in-one-step`: the call, its records and the first cycle's hand-over are one local activity.
  const onboardingAndHandOverInTasks = [
    'startSubscriptionAuthorization',
    'activateAndRecord',
    'settleHandedCycle',
  ];

  it("the onboarding, the hand-over and the reading of the run's word run in the workflow tasks that decide them", async () => {
    const steps = await handedAndChargedByItself({});
    expect(steps.map((step) => step.type)).toEqual(expect.arrayContaining(onboardingAndHandOverInTasks));
    expect(steps.map((step) => step.type)).not.toContain('handOverCycle');
    expect(new Set(steps.map((step) => step.where))).toEqual(new Set(['local']));
  });

  it('queuedSteps (STEPS_AS_QUEUED_ACTIVITIES, the benchmark comparison): every one of them is a queued activity, as before', async () => {
    const steps = await handedAndChargedByItself({ queuedSteps: true });
    expect(steps.map((step) => step.type)).toEqual(expect.arrayContaining(onboardingAndHandOver));
    expect(new Set(steps.map((step) => step.where))).toEqual(new Set(['queued']));
  });

  it('queuedSteps: an authorization found by checking (no notification) is checked by a queued activity too', async () => {
    const { run } = await subscribe(
      { checkSubscriptionAuthorization: async () => ({ ...answer(0), transId: 'tq' }) },
      { queuedSteps: true },
      1,
    );
    await eventually(() => expect(statuses(run)).toContain('active'), { between: () => h.skip(MINUTE) });
    expect(await placesOf(run.handle, 'checkSubscriptionAuthorization')).toEqual(['queued']);
  });
});

describe('subscription: a cycle’s charge', () => {
  it('0: each cycle charged once on its date at the billing hour, with orderIds from the cycle', async () => {
    const { run, subscriptionId, due } = await active();
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.inputs('chargeSubscriptionCycle')).toEqual([
      expect.objectContaining({
        subscriptionId,
        cycle: 1,
        attempt: 0,
        amount: 50_000,
        dueDate: due(1),
        nextPaymentDate: due(2),
        chargedOn: due(1),
      }),
      expect.objectContaining({ cycle: 2, attempt: 0, dueDate: due(2), nextPaymentDate: due(3) }),
    ]);
    const [first, second] = run.calls('chargeSubscriptionCycle');
    expect(first!.scheduledAt).toBeGreaterThanOrEqual(instantOf(due(1), 9));
    expect(second!.scheduledAt).toBeGreaterThanOrEqual(instantOf(due(2), 9));
    expect(statuses(run).at(-1)).toBe('expired');
  });

  it('a successful charge records the next cycle itself: no record write follows it', async () => {
    const { run } = await active({
      // The activity as it answers since the patch: it wrote the next cycle (status active).
      chargeSubscriptionCycle: async (input) => ({
        ...charged('succeeded', 0),
        ...(input.nextCycleOnSuccess !== undefined && {
          billed: { nextCycle: input.nextCycleOnSuccess, nextPaymentDate: input.nextPaymentDate },
        }),
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.inputs('chargeSubscriptionCycle').map((input) => input.nextCycleOnSuccess)).toEqual([2, 3]);
    // Activation, then the expiry: nothing written between the charges.
    expect(run.inputs('recordSubscription').map((record) => [record.status, record.nextCycle])).toEqual([
      ['active', 1],
      ['expired', 3],
    ]);
  });

  it('a charge answered without the write (a worker from before the patch): the workflow records the next cycle', async () => {
    const { run, due } = await active();
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.inputs('recordSubscription')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'active', nextCycle: 2, nextPaymentDate: due(2), failures: 0 }),
        expect.objectContaining({ status: 'active', nextCycle: 3, nextPaymentDate: due(3), failures: 0 }),
      ]),
    );
  });

  it('a lost answer re-sends the same cycle and attempt (one order)', async () => {
    const { run } = await active(
      { chargeSubscriptionCycle: losingFirst('subscription.pay', async () => charged('succeeded', 0)) },
      {},
      2,
    );
    expect(await run.result()).toMatchObject({ status: 'expired' });
    const [a, b] = run.calls('chargeSubscriptionCycle');
    expect([a!.attempt, b!.attempt]).toEqual([1, 2]);
    expect(b!.input).toEqual(a!.input);
  });

  it('pending (7000): the charge notification settles it; a pending notification does not', async () => {
    const { run, subscriptionId, due } = await active(
      { chargeSubscriptionCycle: async () => charged('pending', 7000) },
      {},
      2,
    );
    await skipTo(instantOf(due(1), 9));
    await run.reached('chargeSubscriptionCycle');
    const orderId = chargeOrderId(subscriptionId, 1, 0);
    await run.handle.signal(chargeResultSignal, { orderId, resultCode: 7000 });
    await run.handle.signal(chargeResultSignal, { orderId, resultCode: 0, transId: 'tn' });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(ledger(run)).toEqual([
      expect.objectContaining({ cycle: 1, attempt: 0, status: 'succeeded', resultCode: 0, transId: 'tn' }),
    ]);
    expect(run.calls('querySubscriptionCharge')).toEqual([]);
  });

  it('pending, then a signed notification that settles nothing (42): the check still asks the gateway', async () => {
    const { run, subscriptionId, due } = await active(
      {
        chargeSubscriptionCycle: async () => charged('pending', 7000),
        querySubscriptionCharge: async () => ({ ...answer(0), transId: 'tq' }),
      },
      {},
      2,
    );
    await skipTo(instantOf(due(1), 9));
    await run.reached('chargeSubscriptionCycle');
    await run.handle.signal(chargeResultSignal, {
      orderId: chargeOrderId(subscriptionId, 1, 0),
      resultCode: 42,
    });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.calls('querySubscriptionCharge')).toHaveLength(1);
    expect(ledger(run)).toEqual([
      expect.objectContaining({ cycle: 1, attempt: 0, status: 'succeeded', resultCode: 0, transId: 'tq' }),
    ]);
    await captureHistory(h.env.client, run.workflowId, 'pending-charge-unsettled-notice-then-asked');
  });

  it('pending and no notification: api/query every pendingCheckInterval until final', async () => {
    const { run, subscriptionId } = await active(
      {
        chargeSubscriptionCycle: async () => charged('pending', 7000),
        querySubscriptionCharge: inTurn(
          { ...answer(7002), transId: undefined },
          { ...answer(1006), transId: undefined },
        ),
      },
      {},
      2,
    );
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(
      run
        .inputs('querySubscriptionCharge')
        .map((input) => [input.subscriptionId, input.cycle, input.attempt, input.check]),
    ).toEqual([
      [subscriptionId, 1, 0, 1],
      [subscriptionId, 1, 0, 2],
    ]);
    const [pay] = run.calls('chargeSubscriptionCycle');
    expect(run.gap(pay!, run.calls('querySubscriptionCharge')[0]!)).toBeGreaterThanOrEqual(10 * MINUTE);
    expect(ledger(run)).toEqual([expect.objectContaining({ cycle: 1, status: 'failed', resultCode: 1006 })]);
    await captureHistory(h.env.client, run.workflowId, 'pending-charge-asked-until-final');
  });

  it('still pending after pendingMaxChecks: recorded needs_attention for an operator, billing goes on', async () => {
    const { run } = await active({
      chargeSubscriptionCycle: inTurn(charged('pending', 7000), charged('succeeded', 0)),
      querySubscriptionCharge: async () => ({ ...answer(7000), transId: undefined }),
    });
    expect(await run.result()).toMatchObject({ status: 'expired', failures: 0 });
    expect(run.calls('querySubscriptionCharge')).toHaveLength(3);
    expect(ledger(run)).toEqual([
      expect.objectContaining({ cycle: 1, attempt: 0, status: 'needs_attention' }),
    ]);
    await captureHistory(h.env.client, run.workflowId, 'pending-charge-needs-attention');
    expect(cycles(run)).toEqual([
      [1, 0],
      [2, 0],
    ]);
  });

  it('insufficient funds once: retrying, one retry a day later as -r1, succeeded → active', async () => {
    const { run, subscriptionId } = await active(
      {
        chargeSubscriptionCycle: inTurn(charged('failed', 1001), charged('succeeded', 0)),
      },
      {},
      3,
    );
    expect(await run.result()).toMatchObject({ status: 'expired', failures: 0 });
    expect(cycles(run)).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
    const [first, retry] = run.calls('chargeSubscriptionCycle');
    expect(run.gap(first!, retry!)).toBeGreaterThanOrEqual(DAY);
    expect(chargeOrderId(subscriptionId, 1, 1)).toBe(`${subscriptionId}-c1-r1`);
    expect(statuses(run)).toEqual(expect.arrayContaining(['retrying', 'active']));
    expect(run.inputs('recordSubscription').find((r) => r.status === 'retrying')!.statusReason).toContain(
      'insufficient funds; one retry',
    );
  });

  it('insufficient funds when the retry would fall after the expiry date: expired, no retry', async () => {
    const { run } = await active({ chargeSubscriptionCycle: async () => charged('failed', 1001) }, {}, 2);
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(cycles(run)).toEqual([[1, 0]]);
    expect(statuses(run).slice(-2)).toEqual(['retrying', 'expired']);
    expect(run.inputs('recordSubscription').at(-1)!.statusReason).toContain('before the retry of cycle 1');
    await captureHistory(h.env.client, run.workflowId, 'expired-before-retry');
  });

  it('insufficient funds twice: paused (the gateway paused it), then expired while paused', async () => {
    const { run } = await active({ chargeSubscriptionCycle: async () => charged('failed', 1001) }, {}, 4);
    expect(await run.result()).toMatchObject({
      status: 'expired',
      statusReason: expect.stringContaining('while paused'),
    });
    expect(cycles(run)).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(run.inputs('recordSubscription').find((r) => r.status === 'paused')).toMatchObject({
      statusReason: expect.stringContaining('Insufficient funds twice on cycle 1'),
      failures: 2,
    });
  });

  it.each([
    [2001, 'needs_reauthorization'],
    [2100, 'cancelled'],
    [2102, 'expired'],
  ] as const)('the charge answers %i: %s, and billing ends', async (code, status) => {
    const { run } = await active({ chargeSubscriptionCycle: async () => charged('failed', code) }, {}, 5);
    expect(await run.result()).toMatchObject({ status, statusReason: expect.stringContaining(String(code)) });
    expect(cycles(run)).toEqual([[1, 0]]);
  });

  it('the charge answers 2101 (paused at the gateway): paused until reactivated or expired', async () => {
    const { run } = await active({ chargeSubscriptionCycle: async () => charged('failed', 2101) }, {}, 3);
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(statuses(run)).toContain('paused');
    expect(cycles(run)).toEqual([[1, 0]]);
  });

  it('any other final code (1006): the cycle fails, billing goes on', async () => {
    const { run } = await active({
      chargeSubscriptionCycle: inTurn(charged('failed', 1006), charged('succeeded', 0)),
    });
    expect(await run.result()).toMatchObject({ status: 'expired', failures: 0 });
    expect(cycles(run)).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(statuses(run)).not.toContain('retrying');
  });

  it('another final code on the retry: back to active with the reason, next cycle charged', async () => {
    const { run } = await active(
      {
        chargeSubscriptionCycle: inTurn(
          charged('failed', 1001),
          charged('failed', 99),
          charged('succeeded', 0),
        ),
      },
      {},
      4,
    );
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(cycles(run)).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
      [3, 0],
    ]);
    expect(run.inputs('recordSubscription')).toContainEqual(
      expect.objectContaining({ status: 'active', statusReason: 'Cycle 1 failed: 99 pay 99' }),
    );
  });

  it('continue-as-new after cyclesPerRun keeps the next cycle and the failures', async () => {
    const { run } = await active({}, { timing: { ...timing, cyclesPerRun: 1 } }, 4);
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(cycles(run)).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    const runs = new Set(run.calls('chargeSubscriptionCycle').map((call) => call.runId));
    expect(runs.size).toBe(3);
  });
});

describe('subscription: VARIABLE amounts', () => {
  const variable = { type: 'VARIABLE' as const, recurringAmount: 100_000 };
  const report = (run: Sub, amount: number, cycle?: number) =>
    run.handle.executeUpdate(cycleAmountUpdate, { args: [{ amount, ...(cycle ? { cycle } : {}) }] });

  it('a reported amount is charged for its cycle; a cycle without one is skipped', async () => {
    const { run, due } = await active({}, variable);
    expect(await report(run, 30_000, 2)).toEqual({ cycle: 2, amount: 30_000 });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.inputs('chargeSubscriptionCycle')).toEqual([
      expect.objectContaining({ cycle: 2, amount: 30_000 }),
    ]);
    expect(ledger(run)).toEqual([
      expect.objectContaining({ cycle: 1, amount: 0, dueDate: due(1), status: 'skipped' }),
    ]);
  });

  it('refused: a FIXED subscription, an amount above recurringAmount or below the minimum, a past cycle', async () => {
    const fixed = await active({}, {});
    expect((await refusal(report(fixed.run, 10_000))).message).toContain('Only a VARIABLE');
    const { run, due } = await active({}, variable);
    expect((await refusal(report(run, 100_001))).message).toContain('1000..100000');
    expect((await refusal(report(run, 999))).message).toContain('1000..100000');
    expect(await report(run, 40_000)).toEqual({ cycle: 1, amount: 40_000 });
    await skipTo(instantOf(due(1), 10));
    await eventually(() => expect(run.calls('chargeSubscriptionCycle')).toHaveLength(1));
    await eventually(async () => expect((await run.handle.query(subscriptionViewQuery)).nextCycle).toBe(2));
    expect((await refusal(report(run, 40_000, 1))).message).toContain('Cycle 1 is already billed');
  });

  it('refused for the cycle being charged (its retry pending): it would never be charged; the next cycle takes it', async () => {
    const { run, due } = await active(
      { chargeSubscriptionCycle: inTurn(charged('failed', 1001), charged('succeeded', 0)) },
      variable,
      5,
    );
    expect(await report(run, 40_000)).toEqual({ cycle: 1, amount: 40_000 });
    await skipTo(instantOf(due(1), 10));
    await untilStatus(run, 'retrying');
    expect((await refusal(report(run, 60_000))).message).toContain('Cycle 1 is being charged now');
    expect((await refusal(report(run, 60_000, 1))).message).toContain('report the amount of cycle 2');
    expect(await report(run, 60_000, 2)).toEqual({ cycle: 2, amount: 60_000 });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(run.inputs('chargeSubscriptionCycle').map(({ cycle, amount }) => [cycle, amount])).toEqual([
      [1, 40_000],
      [1, 40_000],
      [2, 60_000],
    ]);
  });
});

describe('subscription: pause, cancel, reactivate', () => {
  it('pause → reactivate (customer confirms) → active; missed cycles are not charged afterwards', async () => {
    const { run, subscriptionId, due } = await active({}, {}, 5);
    expect(await pause(run)).toMatchObject({ status: 'paused', statusReason: 'Paused by ops: holiday' });
    expect(run.inputs('manageSubscription')).toEqual([{ subscriptionId, action: 'pause', seq: 1 }]);
    await skipTo(instantOf(due(2), 12));
    expect(await reactivate(run)).toMatchObject({ status: 'reactivating', payUrl: 'https://pay.example/re' });
    // A notification for another order changes nothing.
    await run.handle.signal(reactivationSignal, { orderId: manageOrderId(subscriptionId, 1), resultCode: 0 });
    await run.handle.signal(reactivationSignal, { orderId: manageOrderId(subscriptionId, 2), resultCode: 0 });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    // Cycle 1 fell while paused and is not charged; cycle 2 is due the day of the reactivation.
    expect(cycles(run)).toEqual([
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect(statuses(run)).toEqual(expect.arrayContaining(['paused', 'reactivating', 'active']));
  });

  it('pause during a retry (retrying) stops the retry', async () => {
    const { run, due } = await active(
      { chargeSubscriptionCycle: async () => charged('failed', 1001) },
      {},
      3,
    );
    await skipTo(instantOf(due(1), 10));
    await untilStatus(run, 'retrying');
    expect(await pause(run)).toMatchObject({ status: 'paused' });
    expect(await run.result()).toMatchObject({ status: 'expired' });
    expect(cycles(run)).toEqual([[1, 0]]);
  });

  it.each([
    ['pause', 'subscription_paused', 2101],
    ['cancel', 'subscription_cancelled', 2100],
  ] as const)(
    '%s answered %s (%i, already so at the gateway) is taken as done',
    async (action, _outcome, code) => {
      const { run } = await active({
        manageSubscription: async ({ subscriptionId, seq }) => ({
          orderId: manageOrderId(subscriptionId, seq),
          ...answer(code),
          payUrl: undefined,
          deeplink: undefined,
        }),
      });
      expect(await (action === 'pause' ? pause(run) : cancel(run))).toMatchObject({
        status: action === 'pause' ? 'paused' : 'cancelled',
      });
    },
  );

  it('the gateway refuses a pause, a cancel, a reactivation: refused, nothing changes', async () => {
    const manageSubscription = async ({ subscriptionId, seq }: { subscriptionId: string; seq: number }) => ({
      orderId: manageOrderId(subscriptionId, seq),
      ...answer(99),
      payUrl: undefined,
      deeplink: undefined,
    });
    const { run } = await active({ manageSubscription });
    const refused = await refusal(pause(run));
    expect(refused.type).toBe(SUBSCRIPTION_REFUSED);
    expect(refused.message).toContain('refused the pause: 99');
    expect((await refusal(cancel(run))).message).toContain('refused the cancel: 99');
    expect(await run.handle.query(subscriptionViewQuery)).toMatchObject({ status: 'active' });
    const paused = await active(
      { chargeSubscriptionCycle: async () => charged('failed', 2101), manageSubscription },
      {},
      5,
    );
    await skipTo(instantOf(paused.due(1), 10));
    await untilStatus(paused.run, 'paused');
    expect((await refusal(reactivate(paused.run))).message).toContain('refused the reactivation: 99');
    expect(await paused.run.handle.query(subscriptionViewQuery)).toMatchObject({ status: 'paused' });
  });

  it('cancel: cancelled at the gateway, then the workflow ends', async () => {
    const { run, subscriptionId } = await active({}, {}, 30);
    expect(await cancel(run)).toMatchObject({ status: 'cancelled', statusReason: 'Cancelled by ops' });
    expect(await run.result()).toMatchObject({ status: 'cancelled' });
    expect(run.inputs('manageSubscription')).toEqual([{ subscriptionId, action: 'cancel', seq: 1 }]);
    expect(run.calls('chargeSubscriptionCycle')).toEqual([]);
  });

  it.each([
    [1006, 'paused', 'did not confirm the reactivation: 1006'],
    [2102, 'expired', 'expired before the customer confirmed'],
  ] as const)('the customer answers the reactivation %i: %s', async (code, status, reason) => {
    const { run, subscriptionId } = await active({}, {}, 3);
    await pause(run);
    await reactivate(run);
    await run.handle.signal(reactivationSignal, {
      orderId: manageOrderId(subscriptionId, 2),
      resultCode: code,
    });
    await eventually(() =>
      expect(run.inputs('recordSubscription').at(-1)).toMatchObject({
        status,
        statusReason: expect.stringContaining(reason),
      }),
    );
  });

  it('refused by state: pause or reactivate twice, reactivate an active one', async () => {
    const { run } = await active({}, {}, 30);
    expect((await refusal(reactivate(run))).message).toContain('Only a paused subscription');
    await pause(run);
    expect((await refusal(pause(run))).message).toContain('Only an active subscription can be paused');
    await reactivate(run);
    expect((await refusal(reactivate(run))).message).toContain('Only a paused subscription');
    expect(run.calls('manageSubscription')).toHaveLength(2);
  });
});
