/**
 * A plan's price change as a process: the change recorded once (with the plan's new amount for new
 * subscriptions), its subscriptions read a page at a time, one price change row per (change, subscription)
 * made at most once, and how far it got.
 */
import type { Db } from '../shared/knex';
import type { SubscriptionRow } from './subscriptions';
import {
  FINAL_SUBSCRIPTION_STATUSES,
  type IfNotReauthorized,
  type PlanPriceChangeProgress,
  type PlanPriceChangeStatus,
  type PriceChangeStatus,
} from '../../contracts/subscriptions';
import type { NewSubscriptionPriceChange } from './price-changes';

export interface PlanPriceChangeRow {
  plan_price_change_id: string;
  plan_id: string;
  new_amount: string;
  effective_date: string;
  if_not_reauthorized: IfNotReauthorized;
  status: PlanPriceChangeStatus;
  total: number | null;
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
}

export type NewPlanPriceChange = Pick<
  PlanPriceChangeRow,
  'plan_price_change_id' | 'plan_id' | 'effective_date' | 'if_not_reauthorized' | 'created_by'
> & { new_amount: number; total: number };

/**
 * `recorded`, or why not: `exists` (this very change was recorded by an interrupted attempt of the request)
 * or `running` (another change of the plan is still being applied: two at once could leave each
 * subscription with whichever reached it last). The plan row is locked so two requests decide in turn.
 */
export async function recordPlanPriceChange(
  db: Db,
  change: NewPlanPriceChange,
): Promise<'recorded' | 'exists' | 'running'> {
  return db.transaction(async (trx) => {
    await trx('plans').where({ plan_id: change.plan_id }).forUpdate().first();
    const existing = await trx('plan_price_changes')
      .where({ plan_price_change_id: change.plan_price_change_id })
      .first();
    if (existing) return 'exists';
    const running = await trx('plan_price_changes')
      .where({ plan_id: change.plan_id, status: 'applying' })
      .first();
    if (running) return 'running';
    await trx('plan_price_changes').insert({ ...change, status: 'applying' });
    // New subscriptions of the plan take the new amount from now on: their authorization carries it.
    await trx('plans').where({ plan_id: change.plan_id }).update({ amount: change.new_amount });
    return 'recorded';
  });
}

export const getPlanPriceChange = (
  db: Db,
  planPriceChangeId: string,
): Promise<PlanPriceChangeRow | undefined> =>
  db('plan_price_changes').where({ plan_price_change_id: planPriceChangeId }).first();

/**
 * The plan's subscriptions a change may reach, after `after` in id order: FIXED, billing, and created before
 * the change (a later one authorized the new amount already).
 */
export function planSubscriptionsPage(
  db: Db,
  change: Pick<PlanPriceChangeRow, 'plan_id' | 'created_at'>,
  after: string | undefined,
  limit: number,
): Promise<SubscriptionRow[]> {
  const query = db('subscriptions')
    .where({ plan_id: change.plan_id, type: 'FIXED' })
    .whereNotIn('status', [...FINAL_SUBSCRIPTION_STATUSES, 'authorizing'])
    .andWhere('created_at', '<=', change.created_at)
    .orderBy('subscription_id')
    .limit(limit);
  return after === undefined ? query : query.andWhere('subscription_id', '>', after);
}

/** Rows already there are kept as they are: a page read twice makes nothing twice. Returns each row's status. */
export async function insertPlanSubscriptionPriceChanges(
  db: Db,
  planPriceChangeId: string,
  rows: NewSubscriptionPriceChange[],
): Promise<Map<string, PriceChangeStatus>> {
  if (rows.length === 0) return new Map();
  await db('subscription_price_changes')
    .insert(rows)
    .onConflict(['plan_price_change_id', 'subscription_id'])
    .ignore();
  const stored = (await db('subscription_price_changes')
    .where({ plan_price_change_id: planPriceChangeId })
    .whereIn(
      'subscription_id',
      rows.map((row) => row.subscription_id),
    )
    .select('subscription_id', 'status')) as Array<{ subscription_id: string; status: PriceChangeStatus }>;
  return new Map(stored.map((row) => [row.subscription_id, row.status]));
}

/** Accepted: any status its workflow set; failed: refused; waiting: handed over, not answered yet. */
export async function planPriceChangeCounts(db: Db, planPriceChangeId: string) {
  const rows = (await db('subscription_price_changes')
    .where({ plan_price_change_id: planPriceChangeId })
    .groupBy('status')
    .select('status')
    .count({ n: '*' })) as Array<{ status: PriceChangeStatus; n: string | number }>;
  const count = (match: (status: PriceChangeStatus) => boolean) =>
    rows.filter((row) => match(row.status)).reduce((sum, row) => sum + Number(row.n), 0);
  return {
    made: count(() => true),
    applied: count((status) => status !== 'scheduled' && status !== 'refused'),
    failed: count((status) => status === 'refused'),
    waiting: count((status) => status === 'scheduled'),
  };
}

export async function progressOf(db: Db, change: PlanPriceChangeRow): Promise<PlanPriceChangeProgress> {
  const counts = await planPriceChangeCounts(db, change.plan_price_change_id);
  return {
    total: change.status === 'done' ? counts.made : Math.max(change.total ?? 0, counts.made),
    applied: counts.applied,
    failed: counts.failed,
    waiting: counts.waiting,
  };
}

/** Done: the total becomes the rows it made (a subscription that ended before its page was not reached). */
export async function completePlanPriceChange(db: Db, planPriceChangeId: string): Promise<void> {
  const { made } = await planPriceChangeCounts(db, planPriceChangeId);
  await db('plan_price_changes')
    .where({ plan_price_change_id: planPriceChangeId, status: 'applying' })
    .update({ status: 'done', total: made, completed_at: db.fn.now() });
}

export const planPriceChangesOf = (db: Db, planId: string): Promise<PlanPriceChangeRow[]> =>
  db('plan_price_changes')
    .where({ plan_id: planId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'plan_price_change_id' }]);
