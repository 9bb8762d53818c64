/** What the revenue figures read: subscriptions by plan and status, charges and events by GMT+7 month. */
import type { Db } from '../shared/knex';
import type { Frequency, SubscriptionStatus, SubscriptionType } from '../../contracts/subscriptions';

export interface RevenueSubscription {
  subscription_id: string;
  plan_id: string | null;
  status: SubscriptionStatus;
  type: SubscriptionType;
  frequency: Frequency;
  recurring_amount: string;
}

export const revenueSubscriptions = (db: Db): Promise<RevenueSubscription[]> =>
  db('subscriptions').select('subscription_id', 'plan_id', 'status', 'type', 'frequency', 'recurring_amount');

/** One cycle of one subscription: its month (by due date), whether any attempt failed, whether one succeeded. */
export interface RevenueCycle {
  plan_id: string | null;
  month: string;
  failed: boolean;
  succeeded: boolean;
  collected: string;
}

export function revenueCycles(db: Db, from: string, to: string): Promise<RevenueCycle[]> {
  return db('subscription_charges as c')
    .join('subscriptions as s', 's.subscription_id', 'c.subscription_id')
    .whereBetween('c.due_date', [from, to])
    .groupBy('s.plan_id', 'c.subscription_id', 'c.cycle', db.raw('substr(c.due_date, 1, 7)'))
    .select(
      's.plan_id',
      db.raw('substr(c.due_date, 1, 7) as month'),
      db.raw(`bool_or(c.status = 'failed') as failed`),
      db.raw(`bool_or(c.status = 'succeeded') as succeeded`),
      db.raw(`coalesce(sum(c.amount) filter (where c.status = 'succeeded'), 0) as collected`),
    );
}

/** Subscriptions first authorized, and cancelled, per GMT+7 month (from their events). */
export interface RevenueMovement {
  plan_id: string | null;
  month: string;
  type: 'subscription.authorized' | 'subscription.cancelled';
  subscriptions: string;
}

export function revenueMovements(db: Db, from: string, to: string): Promise<RevenueMovement[]> {
  const firsts = db('events')
    .whereIn('type', ['subscription.authorized', 'subscription.cancelled'])
    .groupBy('object_id', 'type')
    .select('object_id', 'type', db.raw('min(created_at) as at'));
  return db
    .from(firsts.as('e'))
    .join('subscriptions as s', 's.subscription_id', 'e.object_id')
    .whereRaw(`(e.at at time zone 'Asia/Ho_Chi_Minh')::date between ?::date and ?::date`, [from, to])
    .groupBy('s.plan_id', 'e.type', db.raw(`to_char(e.at at time zone 'Asia/Ho_Chi_Minh', 'YYYY-MM')`))
    .select(
      's.plan_id',
      'e.type',
      db.raw(`to_char(e.at at time zone 'Asia/Ho_Chi_Minh', 'YYYY-MM') as month`),
      db.raw('count(*) as subscriptions'),
    );
}
