/** Payments, refunds and terminal settlements: row types and the few queries that need care. */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { insertOwningOrderIds, reserveOrderIds } from '../shared/gateway-order-ids';
import type { EventType, PaymentSnapshot, RefundSnapshot } from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, updateWhileStatusIn, type MayMove } from '../events/events';
import { isoOrNull } from '../shared/values';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import {
  FINAL_REFUND_STATUSES,
  PAYMENT_STATUSES,
  type PaymentNotice,
  type PaymentRequestType,
  type PaymentStatus,
  type RefundItemStatus,
  type RefundStatus,
  type TerminalSettlementStatus,
} from '../../contracts/payments';

export interface PaymentRow {
  payment_id: string;
  order_id: string;
  workflow_id: string;
  request_type: PaymentRequestType;
  amount: string;
  status: PaymentStatus;
  auto_capture: boolean;
  order_info: string;
  extra_data: string;
  request_details: Record<string, unknown>;
  store_id: string | null;
  serial_number: string | null;
  instrument_type: string | null;
  pay_url: string | null;
  deeplink: string | null;
  qr_code_url: string | null;
  deeplink_mini_app: string | null;
  short_link: string | null;
  trans_id: string | null;
  pay_type: string | null;
  payment_option: string | null;
  promotions: unknown[] | null;
  card_payment_info: Record<string, unknown> | null;
  result_code: number | null;
  result_message: string | null;
  refunded_amount: string;
  refund_seq: number;
  settled_at: Date | null;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  hold_expires_at: Date | null;
  confirm_action: 'capture' | 'cancel' | 'expire' | null;
  confirmed_by: string | null;
  confirm_result_code: number | null;
  confirm_message: string | null;
  confirmed_at: Date | null;
  /** The payment desk that holds it (no workflow of its own yet; migration 0039), or null. */
  desk_id: string | null;
  /** The desk's chunk that made its create. */
  desk_chunk: string | null;
}

export interface RefundItem {
  itemId: string;
  amount: number;
  status: RefundItemStatus;
  resultCode?: number;
  message?: string;
  refundTransId?: string;
}

export interface RefundRow {
  refund_id: string;
  payment_id: string;
  seq: number;
  order_id: string;
  workflow_id: string;
  amount: string;
  description: string;
  status: RefundStatus;
  items: RefundItem[];
  result_code: number | null;
  result_message: string | null;
  trans_id: string | null;
  created_by_key: string;
  created_by: string;
  /** The create request (API key + Idempotency-Key) that reserved it, when it came with a key. */
  request_key: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const findPayment = (db: Db, paymentId: string): Promise<PaymentRow | undefined> =>
  db<PaymentRow>('payments').where({ payment_id: paymentId }).first();

export const findPaymentByOrderId = (db: Db, orderId: string): Promise<PaymentRow | undefined> =>
  db<PaymentRow>('payments').where({ order_id: orderId }).first();

export const findRefund = (db: Db, refundId: string): Promise<RefundRow | undefined> =>
  db<RefundRow>('refunds').where({ refund_id: refundId }).first();

/** A payment's refunds, in the order they were reserved. */
export const listRefundsOf = (db: Db, paymentId: string): Promise<RefundRow[]> =>
  db<RefundRow>('refunds').where({ payment_id: paymentId }).orderBy('seq');

/** One page of payments, optionally of one requestType. */
export async function listPayments(
  db: Db,
  filter: ListFilter & { requestType?: string },
): Promise<{ rows: PaymentRow[]; nextOffset: number | null }> {
  const query = db<PaymentRow>('payments');
  if (filter.requestType) query.where({ request_type: filter.requestType as PaymentRow['request_type'] });
  applyListFilter(query, filter, {
    created: 'created_at',
    status: 'status',
    ids: ['payment_id', 'order_id', 'trans_id'],
    tiebreak: 'payment_id',
  });
  return pageOf((await query) as PaymentRow[], filter);
}

/** Inserts the payment once, owning its gateway orderId; false when the payment id exists already. */
export const insertPayment = (
  db: Db,
  row: Pick<PaymentRow, 'payment_id' | 'order_id'> & Readonly<Record<string, unknown>>,
): Promise<boolean> =>
  insertOwningOrderIds(db, 'payments', 'payment_id', row, [
    { orderId: row.order_id, kind: 'payment', objectId: row.payment_id },
  ]);

export async function requirePayment(db: Db, paymentId: string): Promise<PaymentRow> {
  const row = await findPayment(db, paymentId);
  if (!row) throw new Error(`Payment ${paymentId} has no record`);
  return row;
}

export async function requireRefund(db: Db, refundId: string): Promise<RefundRow> {
  const row = await findRefund(db, refundId);
  if (!row) throw new Error(`Refund ${refundId} has no record`);
  return row;
}

const PAYMENT_EVENTS: Partial<Record<PaymentStatus, EventType & `payment.${string}`>> = {
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
};

export async function updatePayment(
  db: Db,
  paymentId: string,
  patch: Partial<Omit<PaymentRow, 'payment_id' | 'promotions'>> & { promotions?: unknown[] | null },
  /** The payment's transition table (contracts/payments/payments.ts): records move forward only. */
  mayMove: MayMove,
) {
  const { promotions, card_payment_info, ...rest } = patch;
  const columns = {
    ...rest,
    ...(promotions !== undefined ? { promotions: JSON.stringify(promotions) } : {}),
    ...(card_payment_info !== undefined ? { card_payment_info: JSON.stringify(card_payment_info) } : {}),
    updated_at: db.fn.now(),
  };
  const to = patch.status;
  if (to === undefined || !PAYMENT_EVENTS[to]) {
    // No event can follow this write: the forward-only rule is the UPDATE's own WHERE, so it is one
    // statement (a concurrent writer's move is waited for and then seen), not a locked read and a write.
    const movable = to === undefined ? undefined : PAYMENT_STATUSES.filter((from) => mayMove(from, to));
    await updateWhileStatusIn(db, 'payments', { payment_id: paymentId }, movable, columns);
    return;
  }
  await updateRecordingEvents<PaymentRow>(
    db,
    'payments',
    { payment_id: paymentId },
    columns,
    async (trx, before, after) => {
      const type = PAYMENT_EVENTS[after.status];
      if (type && before.status !== after.status)
        await recordEvent(trx, type, after.payment_id, paymentSnapshot(after));
    },
    { column: 'status', mayMove },
  );
}

/**
 * What a final result writes on the record, whoever heard it: the payment's workflow, the relay for a payment
 * the desk holds, or a notification after the workflow ended. Only the gateway's signed word is in `notice`.
 */
export const paymentResultPatch = (status: PaymentStatus, notice: PaymentNotice) => ({
  status,
  result_code: notice.resultCode,
  result_message: notice.message,
  ...(notice.transId !== undefined ? { trans_id: notice.transId } : {}),
  ...(notice.payType !== undefined ? { pay_type: notice.payType } : {}),
  ...(notice.paymentOption !== undefined ? { payment_option: notice.paymentOption } : {}),
  ...(notice.promotions !== undefined ? { promotions: notice.promotions } : {}),
  ...(notice.cardPaymentInfo !== undefined ? { card_payment_info: notice.cardPaymentInfo } : {}),
  completed_at: new Date(),
});

/** Why a refund cannot be reserved. */
export type RefundRefusal =
  | { reason: 'not_found' }
  | { reason: 'not_refundable'; status: PaymentStatus }
  | { reason: 'settled'; settledAt: Date }
  | { reason: 'exceeds_remaining'; remaining: number }
  | { reason: 'below_minimum'; minimum: number };

export interface RefundRequest {
  paymentId: string;
  amount: number;
  description: string;
  items: Array<{ itemId: string; amount: number }>;
  createdByKey: string;
  createdBy: string;
  /** The request's key: a retry of the same request finds the refund it reserved instead of a second one. */
  requestKey?: string;
  /** Smallest refund for this payment's method (document 1: 10 000 for a domestic card). */
  minimumFor(payment: PaymentRow): number;
  /** The refund workflow's id (contracts/payments/refunds.ts): db/ knows tables, not workflows. */
  workflowIdOf(refundId: string): string;
  /** `awaiting_approval` when the approval policy holds it for approvers; `created` otherwise. */
  status: 'created' | 'awaiting_approval';
  /** Runs in the reservation's transaction (the approval request); a throw undoes the reservation. */
  alongside?: (trx: Knex.Transaction, refund: RefundRow) => Promise<void>;
}

/**
 * Reserves a refund against its payment, atomically: the payment row is locked, the remaining
 * amount checked and the reservation written in one transaction, so two concurrent refunds can never
 * both pass. The refund orderId is the payment's orderId and the refund's sequence number.
 */
export async function reserveRefund(
  db: Db,
  request: RefundRequest,
): Promise<{ ok: true; refund: RefundRow } | ({ ok: false } & RefundRefusal)> {
  return db.transaction(async (trx) => {
    const payment = await trx<PaymentRow>('payments')
      .where({ payment_id: request.paymentId })
      .forUpdate()
      .first();
    if (!payment) return { ok: false as const, reason: 'not_found' as const };
    if (request.requestKey) {
      const reserved = await trx<RefundRow>('refunds').where({ request_key: request.requestKey }).first();
      if (reserved) return { ok: true as const, refund: reserved };
    }
    if (payment.status !== 'succeeded')
      return { ok: false as const, reason: 'not_refundable' as const, status: payment.status };
    if (payment.settled_at)
      return { ok: false as const, reason: 'settled' as const, settledAt: payment.settled_at };
    const minimum = request.minimumFor(payment);
    if (request.amount < minimum) return { ok: false as const, reason: 'below_minimum' as const, minimum };
    const remaining = Number(payment.amount) - Number(payment.refunded_amount);
    if (request.amount > remaining)
      return { ok: false as const, reason: 'exceeds_remaining' as const, remaining };
    const seq = payment.refund_seq + 1;
    const refundId = `${payment.payment_id}-r${seq}`;
    const orderId = `${payment.order_id}-r${seq}`;
    // One orderId namespace: the refund's (a refund shape, `-r<seq>`, no caller's id ends with) is its own.
    await reserveOrderIds(trx, [{ orderId, kind: 'refund', objectId: refundId }]);
    await trx('payments')
      .where({ payment_id: payment.payment_id })
      .update({
        refund_seq: seq,
        refunded_amount: trx.raw('refunded_amount + ?', [request.amount]),
        updated_at: trx.fn.now(),
      });
    const [refund] = await trx<RefundRow>('refunds')
      .insert({
        refund_id: refundId,
        payment_id: payment.payment_id,
        seq,
        order_id: orderId,
        workflow_id: request.workflowIdOf(refundId),
        amount: String(request.amount),
        description: request.description,
        status: request.status,
        items: JSON.stringify(
          request.items.map((item) => ({ ...item, status: 'pending' })),
        ) as unknown as RefundItem[],
        created_by_key: request.createdByKey,
        created_by: request.createdBy,
        request_key: request.requestKey ?? null,
      })
      .returning('*');
    await request.alongside?.(trx, refund!);
    return { ok: true as const, refund: refund! };
  });
}

/**
 * The refund's one transition: records what the gateway said about a refund (or that an operator was told).
 * A final refund stays final; the first time it becomes final, whatever did not
 * move money (a failed refund, or its failed items) is given back to the payment's refundable amount.
 */
export async function recordRefundAnswer(
  db: Db,
  refundId: string,
  answer: {
    status: RefundStatus;
    resultCode?: number;
    message?: string;
    transId?: string;
    items?: RefundItem[];
  },
): Promise<void> {
  await db.transaction(async (trx) => {
    const refund = await trx<RefundRow>('refunds').where({ refund_id: refundId }).forUpdate().first();
    if (!refund) throw new Error(`Refund ${refundId} has no record`);
    const wasFinal = FINAL_REFUND_STATUSES.includes(refund.status);
    const items = answer.items ?? refund.items;
    const isFinal = FINAL_REFUND_STATUSES.includes(answer.status);
    if (!wasFinal && isFinal) {
      // A refund refused, rejected or expired moved no money: all of it is refundable again.
      const released =
        answer.status !== 'succeeded'
          ? Number(refund.amount)
          : items.filter((item) => item.status === 'failed').reduce((sum, item) => sum + item.amount, 0);
      if (released > 0) {
        await trx('payments')
          .where({ payment_id: refund.payment_id })
          .update({ refunded_amount: trx.raw('refunded_amount - ?', [released]), updated_at: trx.fn.now() });
      }
    }
    const [updated]: RefundRow[] = await trx('refunds')
      .where({ refund_id: refundId })
      .update({
        status: wasFinal ? refund.status : answer.status,
        items: JSON.stringify(items),
        ...(answer.resultCode !== undefined ? { result_code: answer.resultCode } : {}),
        ...(answer.message !== undefined ? { result_message: answer.message } : {}),
        ...(answer.transId !== undefined ? { trans_id: answer.transId } : {}),
        ...(isFinal && !wasFinal ? { completed_at: trx.fn.now() } : {}),
        updated_at: trx.fn.now(),
      })
      .returning('*');
    // A rejected or expired refund is told by its approval's event.
    if (!wasFinal && (answer.status === 'succeeded' || answer.status === 'failed'))
      await recordEvent(
        trx,
        answer.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
        refundId,
        refundSnapshot(updated!),
      );
  });
}

/** An operator's marking of a refund payrun could not learn the outcome of (it keeps asking). */
export const markRefundNeedsAttention = (db: Db, refundId: string): Promise<void> =>
  recordRefundAnswer(db, refundId, { status: 'needs_attention' });

export interface TerminalSettlementRow {
  settlement_id: string;
  store_id: string;
  serial_number: string;
  request_id: string;
  status: 'created' | TerminalSettlementStatus;
  result_code: number | null;
  result_message: string | null;
  settled_payments: number;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
}

export async function insertTerminalSettlement(
  db: Db,
  row: Pick<
    TerminalSettlementRow,
    'settlement_id' | 'store_id' | 'serial_number' | 'request_id' | 'created_by_key' | 'created_by'
  >,
): Promise<void> {
  await db('terminal_settlements').insert({ ...row, status: 'created' });
}

export async function requireTerminalSettlement(
  db: Db,
  settlementId: string,
): Promise<TerminalSettlementRow> {
  const row = await db<TerminalSettlementRow>('terminal_settlements')
    .where({ settlement_id: settlementId })
    .first();
  if (!row) throw new Error(`Settlement ${settlementId} has no record`);
  return row;
}

/** The settlement's one answer: its status, the gateway's code and how many payments it closed. */
export async function recordTerminalSettlement(
  db: Db,
  settlementId: string,
  answer: { status: TerminalSettlementStatus; resultCode: number; message: string; settledPayments: number },
): Promise<void> {
  await db('terminal_settlements').where({ settlement_id: settlementId }).update({
    status: answer.status,
    result_code: answer.resultCode,
    result_message: answer.message,
    settled_payments: answer.settledPayments,
    completed_at: db.fn.now(),
  });
}

/**
 * After card/settle: the terminal's card payments (payType edcDevice) are settled. A payment created
 * without a serialNumber ran on the store's latest terminal, which payrun cannot know: it is marked
 * too, so payrun errs on refusing an API refund the gateway would refuse anyway.
 */
export async function markTerminalSettled(db: Db, storeId: string, serialNumber: string): Promise<number> {
  return db('payments')
    .where({ request_type: 'payWithEdc', store_id: storeId, pay_type: 'edcDevice', status: 'succeeded' })
    .whereNull('settled_at')
    .andWhere((query) => {
      void query.where({ serial_number: serialNumber }).orWhereNull('serial_number');
    })
    .update({ settled_at: db.fn.now(), updated_at: db.fn.now() });
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const paymentSnapshot = (row: PaymentRow): PaymentSnapshot => ({
  paymentId: row.payment_id,
  orderId: row.order_id,
  requestType: row.request_type,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.result_message,
  transId: row.trans_id,
  payType: row.pay_type,
  refundedAmount: Number(row.refunded_amount),
  completedAt: isoOrNull(row.completed_at),
});

export const refundSnapshot = (row: RefundRow): RefundSnapshot => ({
  refundId: row.refund_id,
  paymentId: row.payment_id,
  orderId: row.order_id,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.result_message,
  transId: row.trans_id,
  items: row.items.map((item) => ({ itemId: item.itemId, amount: item.amount, status: item.status })),
  completedAt: isoOrNull(row.completed_at),
});
