/**
 * A DAILY subscription on the fast layer's harness, shared by the subscription test files: its timing,
 * fakes that answer like the gateway, and the steps a test takes (subscribe, activate, move time, pause,
 * cancel, reactivate). DAILY cycles at 09:00 GMT+7; dates follow the test server's (skipped) clock.
 */
import { expect } from 'vitest';
import {
  addDays,
  dayOfGmt7,
  authorizationSignal,
  cancelUpdate,
  manageOrderId,
  pauseUpdate,
  reactivateUpdate,
  subscriptionWorkflowId,
  type SubscriptionInput,
  type SubscriptionStatus,
} from '../../contracts/subscriptions';
import { subscription } from '../../workflows/subscriptions/subscription';
import { eventually } from '../support/wait';
import {
  ok,
  type AnswerOf,
  type Fakes,
  type Run,
  type useWorkflowHarness,
} from '../support/workflow-harness';

export const MINUTE = 60_000;
export const DAY = 24 * 3600_000;

export const timing: SubscriptionInput['timing'] = {
  billingHourGmt7: 9,
  insufficientFundsRetryDelay: '1 day',
  authorizationIpnWait: '2 minutes',
  authorizationGiveUpAfter: '30 minutes',
  pendingCheckInterval: '10 minutes',
  pendingMaxChecks: 3,
  gatewayAttemptTimeout: '1 minute',
  cyclesPerRun: 24,
};

type Charge = AnswerOf<'chargeSubscriptionCycle'>;
export const charged = (outcome: Charge['outcome'], resultCode: number): Charge => ({
  outcome,
  resultCode,
  message: `pay ${resultCode}`,
  transId: outcome === 'succeeded' ? `t${resultCode}` : undefined,
});
export const answer = (resultCode: number) => ({ resultCode, message: `answer ${resultCode}` });

const defaults: Fakes = {
  recordSubscription: ok,
  recordSubscriptionCharge: ok,
  startSubscriptionAuthorization: async () => answer(0),
  activateSubscription: async () => answer(0),
  chargeSubscriptionCycle: async () => charged('succeeded', 0),
  manageSubscription: async ({ subscriptionId, seq, action }) => ({
    orderId: manageOrderId(subscriptionId, seq),
    resultCode: action === 'reactivate' ? 8000 : 0,
    message: action,
    payUrl: action === 'reactivate' ? 'https://pay.example/re' : undefined,
    deeplink: undefined,
  }),
};

export type Sub = Run<typeof subscription>;

/** The statuses recorded, in order (a reported VARIABLE amount is recorded without one). */
export const statuses = (run: Sub) =>
  run.inputs('recordSubscription').flatMap((record) => (record.status === undefined ? [] : [record.status]));
export const untilStatus = (run: Sub, status: SubscriptionStatus) =>
  eventually(() => expect(statuses(run).at(-1)).toBe(status));
export const cycles = (run: Sub) =>
  run.inputs('chargeSubscriptionCycle').map((input) => [input.cycle, input.attempt]);
export const ledger = (run: Sub) => run.inputs('recordSubscriptionCharge');

export const pause = (run: Sub) =>
  run.handle.executeUpdate(pauseUpdate, { args: [{ by: 'ops', reason: 'holiday' }] });
export const cancel = (run: Sub) => run.handle.executeUpdate(cancelUpdate, { args: [{ by: 'ops' }] });
export const reactivate = (run: Sub) => run.handle.executeUpdate(reactivateUpdate, { args: [{ by: 'ops' }] });

/** The steps that need the file's harness (its server clock and worker). */
export function subscriptionSteps(h: ReturnType<typeof useWorkflowHarness>) {
  /** A DAILY subscription whose cycle 1 is due tomorrow; it expires `days` days from today. */
  async function subscribe(fakes: Fakes, input: Partial<SubscriptionInput> = {}, days = 3) {
    const today = dayOfGmt7(await h.now());
    const subscriptionId = h.id('sub');
    const run = await h.start(subscription, {
      workflowId: subscriptionWorkflowId(subscriptionId),
      args: [
        {
          subscriptionId,
          type: 'FIXED',
          recurringAmount: 50_000,
          frequency: 'DAILY',
          initialAmount: 0,
          nextPaymentDate: addDays(today, 1),
          expiryDate: addDays(today, days),
          timing,
          ...input,
        },
      ],
      fakes: { ...defaults, ...fakes },
    });
    return { run, subscriptionId, today, due: (cycle: number) => addDays(today, cycle) };
  }

  /** Authorized by the IPN (as api/subscriptions/routes.ts signals it) and active. */
  async function active(fakes: Fakes = {}, input: Partial<SubscriptionInput> = {}, days = 3) {
    const started = await subscribe(fakes, input, days);
    await started.run.handle.signal(authorizationSignal, {
      resultCode: 0,
      callbackToken: 'cb-1',
      transId: 't-auth',
    });
    await untilStatus(started.run, 'active');
    return started;
  }

  /** Moves workflow time to `at` (epoch ms), firing the timers on the way. */
  async function skipTo(at: number) {
    const now = await h.now();
    if (at > now) await h.skip(at - now);
  }

  return { subscribe, active, skipTo };
}
