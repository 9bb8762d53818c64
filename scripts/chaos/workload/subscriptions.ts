/**
 * Subscriptions billed through one cycle: created through the API, authorized by the simulated customer
 * (the sandbox's autoApprove), cycle 1 due at once (it fell due yesterday, billed at hour 0). About one
 * in ten customers has no funds: 1001, one retry after SUBSCRIPTION_RETRY_DELAY_HOURS, 1001 again, paused.
 */
import { POOR_CUSTOMER_MARKER } from '../../../sandbox/customer-scenarios';
import { addDays, dayOfGmt7 } from '../../../contracts/subscriptions';
import { describeAnswer, inPool, waitUntil, type DriveFailure, type WorkloadContext } from './context';

export interface SubscriptionIntent {
  subscriptionId: string;
  poor: boolean;
  amount: number;
}

export interface SubscriptionsDriven {
  subscriptions: SubscriptionIntent[];
  failures: DriveFailure[];
}

const POOR_SHARE = 0.1;

/** Cycle 1 settled: charged (or refused) and, for a customer without funds, retried and paused. */
export const SUBSCRIPTION_SETTLED = [
  'active',
  'paused',
  'cancelled',
  'expired',
  'not_authorized',
  'needs_reauthorization',
];

export async function driveSubscriptions(ctx: WorkloadContext, count: number): Promise<SubscriptionsDriven> {
  const failures: DriveFailure[] = [];
  const firstDate = addDays(dayOfGmt7(Date.now()), -1);
  const subscriptions: SubscriptionIntent[] = Array.from({ length: count }, (_, index) => ({
    subscriptionId: `${ctx.tag}-sub${index + 1}`,
    poor: ctx.random.next() < POOR_SHARE,
    // Ends in 50: never one of the sandbox's amount scenarios (1001, 7000, 8200, …).
    amount: 50_050 + index * 100,
  }));
  await inPool(subscriptions, 8, async (subscription) => {
    const created = await ctx.api.call(ctx.keys.billing, 'POST', '/v1/subscriptions', {
      idempotencyKey: `create-${subscription.subscriptionId}`,
      body: {
        subscriptionId: subscription.subscriptionId,
        partnerClientId: `${subscription.subscriptionId}${subscription.poor ? `-${POOR_CUSTOMER_MARKER}` : ''}-member`,
        amount: 0,
        orderInfo: 'Chaos membership',
        subscriptionInfo: {
          name: 'Chaos gym',
          type: 'FIXED',
          recurringAmount: subscription.amount,
          frequency: 'MONTHLY',
          nextPaymentDate: firstDate,
        },
      },
    });
    if (created.status !== 201)
      failures.push({ id: subscription.subscriptionId, step: 'create', detail: describeAnswer(created) });
  });
  ctx.log(`${subscriptions.length} subscriptions created`);

  const ids = subscriptions.map((subscription) => subscription.subscriptionId);
  await waitUntil(ctx.deadline, async () => {
    const rows = await ctx
      .db('subscriptions')
      .whereIn('subscription_id', ids)
      .select('subscription_id', 'status');
    const chargesInFlight = await ctx
      .db('subscription_charges')
      .whereIn('subscription_id', ids)
      .whereIn('status', ['submitted', 'pending']);
    const unsettled = rows.filter((row) => !SUBSCRIPTION_SETTLED.includes(row.status as string));
    const charged = await ctx
      .db('subscription_charges')
      .whereIn('subscription_id', ids)
      .distinct('subscription_id');
    const active = rows.filter((row) => row.status === 'active').map((row) => row.subscription_id as string);
    const chargedIds = new Set(charged.map((row) => row.subscription_id as string));
    const waitingForCycle = active.filter((id) => !chargedIds.has(id));
    return rows.length === ids.length - failures.length &&
      unsettled.length === 0 &&
      chargesInFlight.length === 0 &&
      waitingForCycle.length === 0
      ? true
      : undefined;
  });
  return { subscriptions, failures };
}
