import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { insertOwningOrderIds, reserveOrderIds } from '../shared/gateway-order-ids';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import type {
  EventType,
  SubscriptionChargeSnapshot,
  SubscriptionSnapshot,
} from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, updateWhileStatusIn, type MayMove } from '../events/events';
import {
  chargeMayMove,
  type ChargeStatus,
  type Frequency,
  type SubscriptionDeskStart,
  type SubscriptionStatus,
  type SubscriptionType,
} from '../../contracts/subscriptions';

export type { ChargeStatus };

export interface SubscriptionRow {
  subscription_id: string;
  workflow_id: string;
  partner_client_id: string;
  name: string;
  partner_subs_id: string | null;
  subs_owner: string | null;
  type: SubscriptionType;
  recurring_amount: string;
  frequency: Frequency;
  initial_amount: string;
  order_info: string;
  requested_next_payment_date: string | null;
  expiry_date: string | null;
  anchor_date: string | null;
  anchor_cycle: number | null;
  next_cycle: number | null;
  next_payment_date: string | null;
  status: SubscriptionStatus;
  status_reason: string | null;
  failures: number;
  pay_url: string | null;
  deeplink: string | null;
  qr_code_url: string | null;
  start_result_code: number | null;
  start_message: string | null;
  token_ciphertext: string | null;
  user_alias: string | null;
  reactivation_order_id: string | null;
  reactivation_pay_url: string | null;
  /** VARIABLE: the amounts reported per cycle (cycle number → VND), as the workflow accepted them. */
  reported_amounts: Record<string, number>;
  /** The plan it was created from (null: a subscription set by hand). */
  plan_id: string | null;
  /** `price_change_unauthorized` while a flagged price rise keeps it from being charged. */
  price_flag: string | null;
  /** The cycle handed over to the billing run, its amount and date (null: the workflow charges itself). */
  run_cycle: number | null;
  run_amount: string | null;
  run_due_date: string | null;
  /** The subscription desk that made its start (migration 0040); null once a hand-over started its workflow. */
  desk_id: string | null;
  desk_chunk: string | null;
  desk_start: SubscriptionDeskStart | null;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionChargeRow {
  order_id: string;
  subscription_id: string;
  cycle: number;
  attempt: number;
  due_date: string;
  amount: string;
  status: ChargeStatus;
  result_code: number | null;
  message: string | null;
  trans_id: string | null;
  request_id: string | null;
  next_payment_date_sent: string | null;
  gateway_next_payment_date: string | null;
  /** The billing run (its workflow id) and chunk that charged it; null when its workflow charged it. */
  billing_run_id: string | null;
  billing_chunk: number | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscription = Pick<
  SubscriptionRow,
  | 'subscription_id'
  | 'workflow_id'
  | 'partner_client_id'
  | 'name'
  | 'partner_subs_id'
  | 'subs_owner'
  | 'type'
  | 'frequency'
  | 'order_info'
  | 'requested_next_payment_date'
  | 'expiry_date'
  | 'status'
  | 'created_by_key'
  | 'created_by'
> & {
  recurring_amount: number;
  initial_amount: number;
  plan_id?: string | null;
  /** Written with the record, so the schedule a plan gives is never lost to a crash after the insert. */
  dunning_schedule_id?: string | null;
  /** Queued for the subscription desk, with how its workflow is started later. */
  desk_id?: string;
  desk_start?: string;
};

/**
 * Inserts once; false when the id exists already. The subscription's orderId (its id) is reserved in the
 * same transaction: OrderIdTaken when another object's orderId is that id, and nothing is written.
 */
export async function insertSubscription(db: Db, row: NewSubscription): Promise<boolean> {
  return insertOwningOrderIds(db, 'subscriptions', 'subscription_id', row, [
    { orderId: row.subscription_id, kind: 'subscription', objectId: row.subscription_id },
  ]);
}

export async function getSubscription(db: Db, subscriptionId: string): Promise<SubscriptionRow | undefined> {
  return db('subscriptions').where({ subscription_id: subscriptionId }).first();
}

export async function requireSubscription(db: Db, subscriptionId: string): Promise<SubscriptionRow> {
  const row = await getSubscription(db, subscriptionId);
  if (!row) throw new Error(`Subscription ${subscriptionId} has no record`);
  return row;
}

export type SubscriptionUpdate = Partial<
  Pick<
    SubscriptionRow,
    | 'anchor_date'
    | 'anchor_cycle'
    | 'next_cycle'
    | 'next_payment_date'
    | 'status'
    | 'status_reason'
    | 'failures'
    | 'pay_url'
    | 'deeplink'
    | 'qr_code_url'
    | 'start_result_code'
    | 'start_message'
    | 'token_ciphertext'
    | 'user_alias'
    | 'reactivation_order_id'
    | 'reactivation_pay_url'
    | 'reported_amounts'
    | 'price_flag'
    | 'run_cycle'
    | 'run_due_date'
  >
> & { recurring_amount?: number; run_amount?: number | null };

/** The event a status change causes: the customer's authorization (or reactivation), a pause, a cancellation. */
function subscriptionEventOf(
  before: SubscriptionStatus,
  after: SubscriptionStatus,
): (EventType & `subscription.${string}`) | undefined {
  if (before === after) return undefined;
  if (after === 'active' && (before === 'authorizing' || before === 'reactivating'))
    return 'subscription.authorized';
  if (after === 'paused') return 'subscription.paused';
  if (after === 'cancelled') return 'subscription.cancelled';
  return undefined;
}

export async function updateSubscription(
  db: Db,
  subscriptionId: string,
  update: SubscriptionUpdate,
  /** The subscription's transition table (contracts/subscriptions/subscriptions.ts): forward only. */
  mayMove: MayMove,
): Promise<void> {
  const { reported_amounts, ...columns } = update;
  const patch = {
    ...columns,
    // jsonb written as JSON text, as the other jsonb columns are.
    ...(reported_amounts !== undefined ? { reported_amounts: JSON.stringify(reported_amounts) } : {}),
    updated_at: db.fn.now(),
  };
  // No status in the write: no move to check and no event to record, so one UPDATE (which takes the row's
  // lock itself) does what the read-then-write transaction did, in one round trip instead of four.
  if (update.status === undefined) {
    await updateWhileStatusIn(db, 'subscriptions', { subscription_id: subscriptionId }, undefined, patch);
    return;
  }
  await updateRecordingEvents<SubscriptionRow>(
    db,
    'subscriptions',
    { subscription_id: subscriptionId },
    patch,
    async (trx, before, after) => {
      const type = subscriptionEventOf(before.status, after.status);
      if (type) await recordEvent(trx, type, after.subscription_id, subscriptionSnapshot(after));
    },
    { column: 'status', mayMove },
  );
}

export async function listSubscriptions(
  db: Db,
  filter: ListFilter,
): Promise<{ rows: SubscriptionRow[]; nextOffset: number | null }> {
  const query = applyListFilter(db('subscriptions'), filter, {
    created: 'created_at',
    status: 'status',
    ids: ['subscription_id', 'partner_client_id', 'name'],
    tiebreak: 'subscription_id',
  });
  return pageOf((await query) as SubscriptionRow[], filter);
}

/** The subscription an IPN's orderId names: its initial orderId or a reactivation's. */
export async function findSubscriptionByOrderId(
  db: Db,
  orderId: string,
): Promise<
  | {
      row: SubscriptionRow;
      via: 'authorization' | 'reactivation' | 'reauthorization' | 'charge';
      charge?: SubscriptionChargeRow;
    }
  | undefined
> {
  const direct = await getSubscription(db, orderId);
  if (direct) return { row: direct, via: 'authorization' };
  const reactivation = await db('subscriptions').where({ reactivation_order_id: orderId }).first();
  if (reactivation) return { row: reactivation, via: 'reactivation' };
  // A price rise's new authorization (`-p<n>`).
  const reauthorization: { subscription_id: string } | undefined = await db('subscription_price_changes')
    .where({ reauthorization_order_id: orderId })
    .first('subscription_id');
  if (reauthorization)
    return { row: await requireSubscription(db, reauthorization.subscription_id), via: 'reauthorization' };
  const charge: SubscriptionChargeRow | undefined = await db('subscription_charges')
    .where({ order_id: orderId })
    .first();
  if (!charge) return undefined;
  return { row: await requireSubscription(db, charge.subscription_id), via: 'charge', charge };
}

export type ChargeRecord = Pick<
  SubscriptionChargeRow,
  'order_id' | 'subscription_id' | 'cycle' | 'attempt' | 'due_date' | 'status'
> &
  Partial<
    Pick<
      SubscriptionChargeRow,
      | 'result_code'
      | 'message'
      | 'trans_id'
      | 'request_id'
      | 'next_payment_date_sent'
      | 'gateway_next_payment_date'
      | 'billing_run_id'
      | 'billing_chunk'
    >
  > & { amount: number };

const CHARGE_EVENTS: Partial<Record<ChargeStatus, EventType & `subscription.${string}`>> = {
  succeeded: 'subscription.charged',
  failed: 'subscription.charge_failed',
};

/**
 * Upsert by orderId, forward only (CHARGE_MOVES): a retried activity rewrites the same row, never an earlier
 * status over a later one. A charge reaching succeeded or failed records its event once (about the
 * subscription, so a subscription's events stay in one ordered stream).
 * With `nextCycle`, also moves an active subscription's next cycle in the same transaction (a successful
 * charge's follow-up write): true when it did, false when the subscription was not active, so that
 * whoever asked writes it as before.
 */
export async function upsertCharge(
  db: Db,
  charge: ChargeRecord,
  nextCycle?: { next_cycle: number; next_payment_date: string },
): Promise<boolean> {
  return (await recordCharge(db, charge, nextCycle)).billed;
}

/** upsertCharge's write, saying also whether a success handed the next cycle over to the billing run. */
export async function recordCharge(
  db: Db,
  charge: ChargeRecord,
  nextCycle?: { next_cycle: number; next_payment_date: string },
): Promise<{ billed: boolean; handedNext: boolean }> {
  return db.transaction(async (trx) =>
    writeCharge(trx, await lockSubscription(trx, charge.subscription_id), charge, nextCycle),
  );
}

/** What a billing run's claim found under the subscription row's lock. */
export type HandedClaim =
  /** Recorded `submitted` now, for this run: the row as it was locked, to be charged from. */
  | { claimed: true; subscription: SubscriptionRow; charge: ChargeRecord }
  /** Not claimed, nothing written: the order has a record already (`recorded`), or the row no longer hands it over. */
  | { claimed: false; subscription?: SubscriptionRow; recorded?: SubscriptionChargeRow };

/**
 * A billing run's claim of a handed-over cycle: its charge recorded `submitted` only while the row is
 * active and still hands over this cycle, under the row's lock, so a workflow's take-back (or a pause,
 * a cancel) and the claim never both win. `chargeOf` builds the record from the locked row. An order
 * recorded already (this run's claim before a retry, another day's run, the workflow) is returned as it
 * is: one sender per order.
 */
export async function claimHandedCycle(
  db: Db,
  handed: { subscriptionId: string; cycle: number; orderId: string },
  chargeOf: (subscription: SubscriptionRow) => ChargeRecord,
): Promise<HandedClaim> {
  return db.transaction(async (trx) => {
    const subscription = await lockSubscription(trx, handed.subscriptionId);
    const recorded: SubscriptionChargeRow | undefined = await trx('subscription_charges')
      .where({ order_id: handed.orderId })
      .forUpdate()
      .first();
    if (recorded) return { claimed: false, ...(subscription && { subscription }), recorded };
    if (
      subscription?.status !== 'active' ||
      subscription.run_cycle !== handed.cycle ||
      // A hand-over left from before a pause is not the cycle the workflow bills next: never charged.
      subscription.next_cycle !== handed.cycle
    )
      return { claimed: false };
    const charge = chargeOf(subscription);
    await writeCharge(trx, subscription, charge, undefined, { before: undefined });
    return { claimed: true, subscription, charge };
  });
}

/** The subscription row is the lock: every change to one subscription's billing passes through it. */
const lockSubscription = async (trx: Knex.Transaction, subscriptionId: string) =>
  (await trx('subscriptions').where({ subscription_id: subscriptionId }).forUpdate().first()) as
    SubscriptionRow | undefined;

async function writeCharge(
  trx: Knex.Transaction,
  subscription: SubscriptionRow | undefined,
  charge: ChargeRecord,
  nextCycle?: { next_cycle: number; next_payment_date: string },
  /** The charge's record as the caller read it under the lock already: not read again. */
  known?: { before: Pick<SubscriptionChargeRow, 'status'> | undefined },
): Promise<{ billed: boolean; handedNext: boolean }> {
  const refused = { billed: false, handedNext: false };
  const before: Pick<SubscriptionChargeRow, 'status'> | undefined = known
    ? known.before
    : await trx('subscription_charges').where({ order_id: charge.order_id }).forUpdate().first('status');
  if (!chargeMayMove(before?.status, charge.status)) return refused;
  // A charge's orderId is the subscription's before the gateway hears of it (OrderIdTaken: another's).
  if (!before)
    await reserveOrderIds(trx, [
      { orderId: charge.order_id, kind: 'subscription', objectId: charge.subscription_id },
    ]);
  const [after] = (await trx('subscription_charges')
    .insert(charge)
    .onConflict('order_id')
    .merge({ ...charge, updated_at: trx.fn.now() })
    .returning('*')) as SubscriptionChargeRow[];
  const type = CHARGE_EVENTS[after!.status];
  if (subscription && type && before?.status !== after!.status) {
    await recordEvent(trx, type, subscription.subscription_id, {
      ...subscriptionSnapshot(subscription),
      charge: subscriptionChargeSnapshot(after!),
    });
  }
  if (!nextCycle || subscription?.status !== 'active') return refused;
  // A cycle the run charged hands the next one over in the same write (same amount), unless the next
  // date is on or after the expiry: the workflow ends the subscription there, nothing is charged.
  const handedNext =
    subscription.run_cycle === charge.cycle &&
    (subscription.expiry_date === null || nextCycle.next_payment_date < subscription.expiry_date);
  // The status stays active: no event.
  await trx('subscriptions')
    .where({ subscription_id: charge.subscription_id })
    .update({
      ...nextCycle,
      failures: 0,
      ...(handedNext
        ? { run_cycle: nextCycle.next_cycle, run_due_date: nextCycle.next_payment_date }
        : { run_cycle: null, run_due_date: null, run_amount: null }),
      updated_at: trx.fn.now(),
    });
  return { billed: true, handedNext };
}

export async function getCharge(db: Db, orderId: string): Promise<SubscriptionChargeRow | undefined> {
  return db('subscription_charges').where({ order_id: orderId }).first();
}

export async function chargesOf(db: Db, subscriptionId: string): Promise<SubscriptionChargeRow[]> {
  return db('subscription_charges')
    .where({ subscription_id: subscriptionId })
    .orderBy([
      { column: 'cycle', order: 'asc' },
      { column: 'attempt', order: 'asc' },
    ]);
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const subscriptionChargeSnapshot = (row: SubscriptionChargeRow): SubscriptionChargeSnapshot => ({
  orderId: row.order_id,
  cycle: Number(row.cycle),
  attempt: Number(row.attempt),
  dueDate: row.due_date,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});

export const subscriptionSnapshot = (row: SubscriptionRow): SubscriptionSnapshot => ({
  subscriptionId: row.subscription_id,
  status: row.status,
  statusReason: row.status_reason,
  type: row.type,
  frequency: row.frequency,
  recurringAmount: Number(row.recurring_amount),
  nextPaymentDate: row.next_payment_date,
  expiryDate: row.expiry_date,
  failures: Number(row.failures),
});
