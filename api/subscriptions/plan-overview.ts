/**
 * What the console's plans page reads: every plan with how many subscriptions it has, one plan's
 * subscriptions, and how far each of its price changes has got. Reads only; nothing here moves money.
 */
import type { PriceChangeStatus } from '../../contracts/subscriptions';
import type { ListFilter } from '../../db/shared/list-filter';
import {
  listPlanSubscriptions,
  planPriceChangesWithProgress,
  subscriptionCountsByPlan,
} from '../../db/subscriptions/plan-overview';
import { plansView, requirePlan } from './plans';
import { planPriceChangeView } from './price-changes';
import { summary as subscriptionSummary, type SubscriptionDeps } from './subscriptions';

/**
 * Still open: the subscription's workflow holds the change and will decide its cycle. The rest are settled
 * (applied, charged the old amount, flagged, superseded by a later change, or refused by the workflow).
 */
const PENDING: readonly PriceChangeStatus[] = ['scheduled', 'awaiting_authorization', 'authorized'];

export async function plansWithCounts(deps: SubscriptionDeps) {
  const [{ plans }, counts] = await Promise.all([plansView(deps), subscriptionCountsByPlan(deps.db)]);
  const byPlan = new Map(counts.map((row) => [row.plan_id, row]));
  return {
    plans: plans.map((plan) => ({
      ...plan,
      subscriptionCount: {
        total: byPlan.get(plan.planId)?.total ?? 0,
        billing: byPlan.get(plan.planId)?.billing ?? 0,
      },
    })),
  };
}

export async function planSubscriptions(deps: SubscriptionDeps, planId: string, filter: ListFilter) {
  await requirePlan(deps, planId);
  const page = await listPlanSubscriptions(deps.db, planId, filter);
  return { planId, rows: page.rows.map(subscriptionSummary), nextOffset: page.nextOffset };
}

export async function planPriceChanges(deps: SubscriptionDeps, planId: string) {
  await requirePlan(deps, planId);
  const changes = await planPriceChangesWithProgress(deps.db, planId);
  return {
    planId,
    priceChanges: await Promise.all(
      changes.map(async (change) => {
        const counts = Object.entries(change.statuses) as Array<[PriceChangeStatus, number]>;
        const total = counts.reduce((sum, [, n]) => sum + n, 0);
        const pending = counts.reduce((sum, [status, n]) => sum + (PENDING.includes(status) ? n : 0), 0);
        return {
          // The change's own record and its workflow's progress, then what its subscriptions hold now.
          ...(await planPriceChangeView(deps, change)),
          subscriptions: total,
          pending,
          settled: total - pending,
          statuses: change.statuses,
        };
      }),
    ),
  };
}
