/**
 * What the plans page reads besides a plan's own row: how many subscriptions each plan has, its subscriptions,
 * and how far each of its price changes has got across them. Reads only.
 */
import type { Db } from '../shared/knex';
import { FINAL_SUBSCRIPTION_STATUSES, type PriceChangeStatus } from '../../contracts/subscriptions';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import { planPriceChangesOf, type PlanPriceChangeRow } from './plan-price-changes';
import type { SubscriptionRow } from './subscriptions';

export interface PlanSubscriptionCount {
  plan_id: string;
  /** Every subscription created from the plan, ended or not. */
  total: number;
  /** Those still billed or able to be (not cancelled, expired, refused or waiting on a new authorization). */
  billing: number;
}

export async function subscriptionCountsByPlan(db: Db): Promise<PlanSubscriptionCount[]> {
  const rows: Array<{ plan_id: string; total: string | number; billing: string | number }> = await db(
    'subscriptions',
  )
    .whereNotNull('plan_id')
    .groupBy('plan_id')
    .select('plan_id')
    .count({ total: '*' })
    .select(
      db.raw('count(*) filter (where not (status = any(?))) as billing', [[...FINAL_SUBSCRIPTION_STATUSES]]),
    );
  return rows.map((row) => ({
    plan_id: row.plan_id,
    total: Number(row.total),
    billing: Number(row.billing),
  }));
}

export interface PlanPriceChangeWithStatuses extends PlanPriceChangeRow {
  /** Per-subscription rows of the change, by status (a status no row has is absent). */
  statuses: Partial<Record<PriceChangeStatus, number>>;
}

/** A plan's price changes, newest first, each with how many of its subscriptions stand at each status. */
export async function planPriceChangesWithProgress(
  db: Db,
  planId: string,
): Promise<PlanPriceChangeWithStatuses[]> {
  const changes = await planPriceChangesOf(db, planId);
  if (changes.length === 0) return [];
  const counted: Array<{ plan_price_change_id: string; status: PriceChangeStatus; n: string | number }> =
    await db('subscription_price_changes')
      .whereIn(
        'plan_price_change_id',
        changes.map((change) => change.plan_price_change_id),
      )
      .groupBy('plan_price_change_id', 'status')
      .select('plan_price_change_id', 'status')
      .count({ n: '*' });
  return changes.map((change) => ({
    ...change,
    statuses: Object.fromEntries(
      counted
        .filter((row) => row.plan_price_change_id === change.plan_price_change_id)
        .map((row) => [row.status, Number(row.n)]),
    ),
  }));
}

/** A page of the plan's subscriptions, newest first, with the filters of every list. */
export async function listPlanSubscriptions(
  db: Db,
  planId: string,
  filter: ListFilter,
): Promise<{ rows: SubscriptionRow[]; nextOffset: number | null }> {
  const query = applyListFilter(db('subscriptions').where({ plan_id: planId }), filter, {
    created: 'created_at',
    status: 'status',
    ids: ['subscription_id', 'partner_client_id', 'name'],
    tiebreak: 'subscription_id',
  });
  return pageOf((await query) as SubscriptionRow[], filter);
}
