/**
 * The records side of a plan's price change (workflows/subscriptions/plan-price-change.ts): a page of the
 * plan's subscriptions with their rows made once, refusals where a workflow could not be told, progress.
 * Nothing here calls the gateway: each subscription's own workflow does, for its own change.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/shared/knex';
import {
  completePlanPriceChange,
  getPlanPriceChange,
  insertPlanSubscriptionPriceChanges,
  planSubscriptionsPage,
  progressOf,
  type PlanPriceChangeRow,
} from '../../db/subscriptions/plan-price-changes';
import { updateSubscriptionPriceChange } from '../../db/subscriptions/price-changes';
import {
  planSubscriptionPriceChangeId,
  reachedFrom,
  type PlanPriceChangeActivities,
} from '../../contracts/subscriptions';
import { bindActivities } from '../shared/bind';

interface Deps {
  db: Db;
}

async function requireChange(db: Db, planPriceChangeId: string): Promise<PlanPriceChangeRow> {
  const change = await getPlanPriceChange(db, planPriceChangeId);
  if (!change)
    throw ApplicationFailure.nonRetryable(
      `Plan price change ${planPriceChangeId} is not recorded`,
      'unknown_record',
    );
  return change;
}

export async function planPriceChangePage(
  { db }: Deps,
  input: Parameters<PlanPriceChangeActivities['planPriceChangePage']>[0],
): ReturnType<PlanPriceChangeActivities['planPriceChangePage']> {
  const change = await requireChange(db, input.planPriceChangeId);
  const read = await planSubscriptionsPage(db, change, input.after, input.limit);
  const newAmount = Number(change.new_amount);
  const reached = read.filter((row) => reachedFrom(row, change.effective_date));
  const statuses = await insertPlanSubscriptionPriceChanges(
    db,
    change.plan_price_change_id,
    reached.map((row) => ({
      price_change_id: planSubscriptionPriceChangeId(change.plan_price_change_id, row.subscription_id),
      subscription_id: row.subscription_id,
      plan_price_change_id: change.plan_price_change_id,
      old_amount: Number(row.recurring_amount),
      new_amount: newAmount,
      authorized_amount: Number(row.recurring_amount),
      effective_date: change.effective_date,
      if_not_reauthorized: change.if_not_reauthorized,
      // The gateway charges a FIXED subscription exactly its recurringAmount: any other amount needs the customer.
      needs_reauthorization: newAmount !== Number(row.recurring_amount),
      status: 'scheduled',
      created_by: change.created_by,
    })),
  );
  return {
    // Only rows its workflow has not answered: one that took (or refused) the change is not told again.
    targets: reached
      .filter((row) => statuses.get(row.subscription_id) === 'scheduled')
      .map((row) => ({
        subscriptionId: row.subscription_id,
        workflowId: row.workflow_id,
        order: {
          priceChangeId: planSubscriptionPriceChangeId(change.plan_price_change_id, row.subscription_id),
          newAmount,
          effectiveDate: change.effective_date,
          ifNotReauthorized: change.if_not_reauthorized,
        },
      })),
    ...(read.length > 0 && { last: read[read.length - 1]!.subscription_id }),
  };
}

export async function refusePlanPriceChange(
  { db }: Deps,
  input: Parameters<PlanPriceChangeActivities['refusePlanPriceChange']>[0],
): Promise<void> {
  await updateSubscriptionPriceChange(db, input.priceChangeId, {
    status: 'refused',
    status_reason: input.reason,
  });
}

export async function planPriceChangeProgress(
  { db }: Deps,
  input: { planPriceChangeId: string },
): ReturnType<PlanPriceChangeActivities['planPriceChangeProgress']> {
  return progressOf(db, await requireChange(db, input.planPriceChangeId));
}

export async function finishPlanPriceChange(
  { db }: Deps,
  input: { planPriceChangeId: string },
): ReturnType<PlanPriceChangeActivities['finishPlanPriceChange']> {
  await completePlanPriceChange(db, input.planPriceChangeId);
  return progressOf(db, await requireChange(db, input.planPriceChangeId));
}

export const createPlanPriceChangeActivities = (deps: Deps): PlanPriceChangeActivities =>
  bindActivities(deps, {
    planPriceChangePage,
    refusePlanPriceChange,
    planPriceChangeProgress,
    finishPlanPriceChange,
  });
