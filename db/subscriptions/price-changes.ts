/** Plans, dated price changes and the notices a subscriber is to receive: their rows and queries. */
import type { Db } from '../shared/knex';
import { recordEvent } from '../events/events';
import type { SubscriptionRow } from './subscriptions';
import {
  FINAL_SUBSCRIPTION_STATUSES,
  type Frequency,
  noticeKey,
  type IfNotReauthorized,
  type PriceChangeStatus,
  type SubscriberNotice,
  type SubscriptionType,
} from '../../contracts/subscriptions';

export interface PlanRow {
  plan_id: string;
  name_en: string;
  name_vi: string;
  amount: string;
  currency: string;
  frequency: Frequency;
  type: SubscriptionType;
  trial_days: number | null;
  /** The schedule its new subscriptions follow; null: the default one. */
  dunning_schedule_id: string | null;
  status: 'active' | 'archived';
  created_by: string;
  created_at: Date;
  archived_at: Date | null;
}

export type NewPlan = Omit<PlanRow, 'amount' | 'status' | 'created_at' | 'archived_at'> & { amount: number };

/** False when the code is taken already. */
export async function insertPlan(db: Db, plan: NewPlan): Promise<boolean> {
  const inserted = await db('plans').insert(plan).onConflict('plan_id').ignore().returning('plan_id');
  return inserted.length === 1;
}

export const getPlan = (db: Db, planId: string): Promise<PlanRow | undefined> =>
  db('plans').where({ plan_id: planId }).first();

export const listPlans = (db: Db): Promise<PlanRow[]> =>
  db('plans').orderBy([{ column: 'status' }, { column: 'plan_id' }]);

/** False when the plan does not exist. */
export async function setPlanDunningSchedule(
  db: Db,
  planId: string,
  dunningScheduleId: string | null,
): Promise<boolean> {
  const changed = await db('plans')
    .where({ plan_id: planId })
    .update({ dunning_schedule_id: dunningScheduleId });
  return changed === 1;
}

/** True when it was active: an archived plan takes no new subscriptions; its subscriptions go on. */
export async function archivePlan(db: Db, planId: string): Promise<boolean> {
  const changed = await db('plans')
    .where({ plan_id: planId, status: 'active' })
    .update({ status: 'archived', archived_at: db.fn.now() });
  return changed === 1;
}

/** Subscriptions whose price may change: FIXED and not ended (a VARIABLE one reports each cycle). */
export function priceableSubscriptions(
  db: Db,
  where: { plan_id: string } | { subscription_id: string },
): Promise<SubscriptionRow[]> {
  return db('subscriptions')
    .where(where)
    .andWhere({ type: 'FIXED' })
    .whereNotIn('status', [...FINAL_SUBSCRIPTION_STATUSES, 'authorizing'])
    .orderBy('subscription_id');
}

export interface SubscriptionPriceChangeRow {
  price_change_id: string;
  subscription_id: string;
  plan_price_change_id: string | null;
  old_amount: string;
  new_amount: string;
  authorized_amount: string;
  effective_date: string;
  if_not_reauthorized: IfNotReauthorized;
  needs_reauthorization: boolean;
  status: PriceChangeStatus;
  status_reason: string | null;
  reauthorization_order_id: string | null;
  reauthorization_pay_url: string | null;
  pending_token_ciphertext: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscriptionPriceChange = Pick<
  SubscriptionPriceChangeRow,
  | 'price_change_id'
  | 'subscription_id'
  | 'plan_price_change_id'
  | 'effective_date'
  | 'if_not_reauthorized'
  | 'needs_reauthorization'
  | 'status'
  | 'created_by'
> & { old_amount: number; new_amount: number; authorized_amount: number };

export async function insertSubscriptionPriceChange(db: Db, row: NewSubscriptionPriceChange): Promise<void> {
  await db('subscription_price_changes').insert(row);
}

export const getSubscriptionPriceChange = (
  db: Db,
  priceChangeId: string,
): Promise<SubscriptionPriceChangeRow | undefined> =>
  db('subscription_price_changes').where({ price_change_id: priceChangeId }).first();

export const priceChangesOf = (db: Db, subscriptionId: string): Promise<SubscriptionPriceChangeRow[]> =>
  db('subscription_price_changes')
    .where({ subscription_id: subscriptionId })
    .orderBy([{ column: 'created_at' }, { column: 'price_change_id' }]);

export async function updateSubscriptionPriceChange(
  db: Db,
  priceChangeId: string,
  update: Partial<
    Pick<
      SubscriptionPriceChangeRow,
      | 'status'
      | 'status_reason'
      | 'reauthorization_order_id'
      | 'reauthorization_pay_url'
      | 'pending_token_ciphertext'
    >
  >,
): Promise<void> {
  await db('subscription_price_changes')
    .where({ price_change_id: priceChangeId })
    .update({ ...update, updated_at: db.fn.now() });
}

/**
 * A notice to the subscriber: on the subscription's timeline and as event subscription.notice_requested, in
 * one transaction and once per (subscription, kind, key), so an activity retried after a lost answer
 * records nothing twice. The one place a mail channel hooks in to send it.
 */
export async function notifySubscriber(db: Db, notice: SubscriberNotice): Promise<void> {
  await db.transaction(async (trx) => {
    const inserted = await trx('subscription_notice_requests')
      .insert({
        subscription_id: notice.subscriptionId,
        kind: notice.kind,
        notice_key: notice.key,
        data: JSON.stringify(notice.data),
      })
      .onConflict(['subscription_id', 'kind', 'notice_key'])
      .ignore()
      .returning('id');
    if (inserted.length === 0) return;
    // The request carries the key the mail flow sends by (api/subscriptions/notice-requests.ts): one message
    // per price change and reminder, however often this runs. Its data is what the templates read.
    const { reauthorizationUrl, ...rest } = notice.data;
    const data = Object.fromEntries(
      Object.entries({ ...rest, ...(reauthorizationUrl ? { payUrl: reauthorizationUrl } : {}) }).filter(
        (entry): entry is [string, string | number] =>
          typeof entry[1] === 'string' || typeof entry[1] === 'number',
      ),
    );
    await recordEvent(trx, 'subscription.notice_requested', notice.subscriptionId, {
      subscriptionId: notice.subscriptionId,
      noticeKey: noticeKey(notice.subscriptionId, notice.kind, notice.key),
      kind: notice.kind,
      data,
    });
  });
}

export interface NoticeRow {
  id: string;
  subscription_id: string;
  kind: string;
  notice_key: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export const noticesOf = (db: Db, subscriptionId: string): Promise<NoticeRow[]> =>
  db('subscription_notice_requests').where({ subscription_id: subscriptionId }).orderBy('id');
