import { insertOwningOrderIds, reserveOrderIds } from '../shared/gateway-order-ids';
import type { Db } from '../shared/knex';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import type {
  EventType,
  SavedMethodSnapshot,
  SavedMethodPaymentSnapshot,
} from '../../platform/event-catalogue';
import { moveRecordingEvents, recordEvent, updateRecordingEvents, type MayMove } from '../events/events';
import { isoOrNull } from '../shared/values';
import {
  canMoveSavedMethod,
  type BindingLinks,
  type BindingStatus,
  type SavedMethodKind,
  type SavedMethodStatus,
  type OtpAttempt,
  type OtpAttemptKind,
  type OtpAttemptOutcome,
  type SavedMethodPaymentState,
} from '../../contracts/saved-methods';

export interface BindingRow {
  binding_id: string;
  order_id: string;
  workflow_id: string;
  kind: SavedMethodKind;
  request_type: string;
  partner_client_id: string;
  gateway_client_id: string;
  amount: string;
  order_info: string;
  user_info: Record<string, string>;
  redirect_url: string | null;
  status: BindingStatus;
  result_code: number | null;
  message: string | null;
  pay_url: string | null;
  deeplink: string | null;
  qr_code_url: string | null;
  method_id: string | null;
  created_by_key: string;
  created_by: string;
  /** The create request that made it (a resumed request finds it by this key). */
  request_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SavedMethodRow {
  method_id: string;
  binding_id: string;
  initial_order_id: string;
  partner_client_id: string;
  gateway_client_id: string;
  kind: SavedMethodKind;
  card_last4: string | null;
  card_type: string | null;
  bank_code: string | null;
  wallet_alias: string | null;
  /** AES-256-GCM sealed token value; never returned, never logged. */
  token_ciphertext: string;
  status: SavedMethodStatus;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  revoked_at: Date | null;
}

export interface SavedMethodPaymentRow {
  payment_id: string;
  order_id: string;
  workflow_id: string;
  method_id: string;
  partner_client_id: string;
  gateway_client_id: string;
  kind: SavedMethodKind;
  amount: string;
  description: string;
  state: SavedMethodPaymentState;
  result_code: number | null;
  message: string | null;
  trans_id: string | null;
  pay_url: string | null;
  deeplink: string | null;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export const getBinding = (db: Db, bindingId: string) =>
  db<BindingRow>('saved_method_bindings').where({ binding_id: bindingId }).first();
export const getSavedMethod = (db: Db, methodId: string) =>
  db<SavedMethodRow>('saved_methods').where({ method_id: methodId }).first();
export const getSavedMethodPayment = (db: Db, paymentId: string) =>
  db<SavedMethodPaymentRow>('saved_method_payments').where({ payment_id: paymentId }).first();

export const findBindingByRequestKey = (db: Db, requestKey: string): Promise<BindingRow | undefined> =>
  db<BindingRow>('saved_method_bindings').where({ request_key: requestKey }).first();

/** How many wallet links a user has asked for, whatever became of them (each gets the next n<NNN>_ prefix). */
export async function countWalletBindings(db: Db, partnerClientId: string): Promise<number> {
  const counted = await db('saved_method_bindings')
    .where({ partner_client_id: partnerClientId, kind: 'wallet' })
    .count<{ count: string }[]>({ count: '*' });
  return Number(counted[0]?.count ?? 0);
}

export type NewBinding = Pick<
  BindingRow,
  | 'binding_id'
  | 'order_id'
  | 'workflow_id'
  | 'kind'
  | 'request_type'
  | 'partner_client_id'
  | 'gateway_client_id'
  | 'order_info'
  | 'user_info'
  | 'redirect_url'
  | 'created_by_key'
  | 'created_by'
  | 'request_key'
> & { amount: number };

/**
 * A new binding, with the gateway orderIds it will send (its id, and `-del` when its method is deleted), in
 * one transaction: OrderIdTaken when another object holds one of them, and nothing is written.
 */
export async function insertBinding(db: Db, row: NewBinding): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('saved_method_bindings').insert({
      ...row,
      user_info: JSON.stringify(row.user_info),
      status: 'creating',
    });
    const owner = { kind: 'saved_method_binding', objectId: row.binding_id } as const;
    await reserveOrderIds(trx, [
      { orderId: row.order_id, ...owner },
      { orderId: `${row.order_id}-del`, ...owner },
    ]);
  });
}

/**
 * A binding's one transition: its status, forward only (`mayMove`, the binding's transition table), with
 * the gateway's words and, once the link exists, the links the API hands over. Bindings emit no events.
 */
export async function recordBindingStatus(
  db: Db,
  input: {
    bindingId: string;
    status: BindingStatus;
    resultCode?: number;
    message?: string;
    links?: BindingLinks;
  },
  mayMove: MayMove,
): Promise<void> {
  const { links } = input;
  await updateRecordingEvents<BindingRow>(
    db,
    'saved_method_bindings',
    { binding_id: input.bindingId },
    {
      status: input.status,
      ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(links
        ? {
            pay_url: links.payUrl ?? null,
            deeplink: links.deeplink ?? null,
            qr_code_url: links.qrCodeUrl ?? null,
          }
        : {}),
      updated_at: db.fn.now(),
    },
    async () => undefined,
    { column: 'status', mayMove },
  );
}

/**
 * The fields of the gateway's approval of a binding (its list-B notification with result 0), when one was
 * stored: the callbackToken is among them. Rows stored before migration 0011 have only their raw body.
 */
export async function findBindingApproval(
  db: Db,
  orderId: string,
): Promise<Record<string, unknown> | undefined> {
  const stored = await db('ipn_notifications')
    .where({ order_id: orderId, kind: 'payment.resultB', result_code: 0 })
    .orderBy('id', 'desc')
    .first('signed_fields', 'raw_body');
  if (!stored) return undefined;
  return (stored.signed_fields ?? (stored.raw_body ? JSON.parse(stored.raw_body) : {})) as Record<
    string,
    unknown
  >;
}

export async function findSavedMethodIdOfBinding(db: Db, bindingId: string): Promise<string | undefined> {
  const row = await db('saved_methods').where({ binding_id: bindingId }).first('method_id');
  return row?.method_id;
}

export type NewSavedMethod = Pick<
  SavedMethodRow,
  | 'method_id'
  | 'binding_id'
  | 'initial_order_id'
  | 'partner_client_id'
  | 'gateway_client_id'
  | 'kind'
  | 'card_last4'
  | 'card_type'
  | 'bank_code'
  | 'wallet_alias'
  | 'token_ciphertext'
>;

/**
 * Stores the method a binding produced, active, and links the binding to it. Once per binding: a repeated
 * exchange keeps the method stored first. Answers the stored method's id.
 */
export async function insertSavedMethod(db: Db, row: NewSavedMethod): Promise<string> {
  await db.transaction(async (trx) => {
    await trx('saved_methods')
      .insert({ ...row, status: 'active' })
      .onConflict('binding_id')
      .ignore();
    await trx('saved_method_bindings')
      .where({ binding_id: row.binding_id })
      .update({
        method_id: trx('saved_methods').where({ binding_id: row.binding_id }).select('method_id'),
        updated_at: trx.fn.now(),
      });
  });
  return (await findSavedMethodIdOfBinding(db, row.binding_id)) as string;
}

/** A customer's saved methods, oldest first; the deleted and revoked ones only when asked for. */
export async function listSavedMethodsOf(
  db: Db,
  partnerClientId: string,
  options: { includeInactive: boolean },
): Promise<SavedMethodRow[]> {
  const query = db<SavedMethodRow>('saved_methods')
    .where({ partner_client_id: partnerClientId })
    .orderBy('created_at');
  if (!options.includeInactive) query.where({ status: 'active' });
  return (await query) as SavedMethodRow[];
}

const SAVED_METHOD_EVENTS: Partial<Record<SavedMethodStatus, EventType & `saved_method.${string}`>> = {
  revoked: 'saved_method.revoked',
};
/** When a method reached its final status: the view shows it. */
const SAVED_METHOD_STAMPS: Partial<Record<SavedMethodStatus, 'deleted_at' | 'revoked_at'>> = {
  deleted: 'deleted_at',
  revoked: 'revoked_at',
};

/**
 * A saved method's one transition, with its event: made only when the contracts' table lets the method
 * move from the status it has into `to` (canMoveSavedMethod), so a repeated delete or unbind changes
 * nothing and emits nothing. True when it moved.
 */
export async function recordSavedMethodStatus(
  db: Db,
  methodId: string,
  to: SavedMethodStatus,
): Promise<boolean> {
  const stamp = SAVED_METHOD_STAMPS[to];
  return moveRecordingEvents<SavedMethodRow>(
    db,
    'saved_methods',
    { method_id: methodId },
    to,
    { ...(stamp ? { [stamp]: db.fn.now() } : {}), updated_at: db.fn.now() },
    async (trx, _before, after) => {
      const type = SAVED_METHOD_EVENTS[to];
      if (type) await recordEvent(trx, type, after.method_id, savedMethodSnapshot(after));
    },
    canMoveSavedMethod,
  );
}

/** The customer removed the method in the app: it is never used again. A second unbind changes nothing. */
export async function revokeSavedMethod(db: Db, methodId: string): Promise<void> {
  await recordSavedMethodStatus(db, methodId, 'revoked');
}

/** What anyone may see of a saved method: display fields only, never the token. */
export function savedMethodView(row: SavedMethodRow) {
  return {
    methodId: row.method_id,
    partnerClientId: row.partner_client_id,
    kind: row.kind,
    status: row.status,
    last4: row.card_last4,
    cardType: row.card_type,
    bankCode: row.bank_code,
    walletAlias: row.wallet_alias,
    initialOrderId: row.initial_order_id,
    createdAt: row.created_at,
    deletedAt: row.deleted_at,
    revokedAt: row.revoked_at,
  };
}

export function bindingView(row: BindingRow) {
  return {
    bindingId: row.binding_id,
    orderId: row.order_id,
    kind: row.kind,
    partnerClientId: row.partner_client_id,
    amount: Number(row.amount),
    status: row.status,
    resultCode: row.result_code,
    message: row.message,
    payUrl: row.pay_url,
    deeplink: row.deeplink,
    qrCodeUrl: row.qr_code_url,
    methodId: row.method_id,
    createdAt: row.created_at,
    workflowId: row.workflow_id,
  };
}

export function savedMethodPaymentView(row: SavedMethodPaymentRow) {
  return {
    paymentId: row.payment_id,
    orderId: row.order_id,
    methodId: row.method_id,
    partnerClientId: row.partner_client_id,
    kind: row.kind,
    amount: Number(row.amount),
    description: row.description,
    state: row.state,
    resultCode: row.result_code,
    message: row.message,
    transId: row.trans_id,
    payUrl: row.pay_url,
    deeplink: row.deeplink,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    workflowId: row.workflow_id,
  };
}

const TOKEN_PAYMENT_EVENTS: Partial<Record<SavedMethodPaymentState, EventType & `token_payment.${string}`>> =
  {
    awaiting_otp: 'token_payment.otp_required',
    succeeded: 'token_payment.succeeded',
    failed: 'token_payment.failed',
  };

export async function updateSavedMethodPayment(
  db: Db,
  input: {
    paymentId: string;
    state: SavedMethodPaymentState;
    resultCode?: number;
    message?: string;
    transId?: string;
  },
  /** The payment's transition table (canMoveSavedMethodPayment): forward only. */
  mayMove: MayMove,
): Promise<void> {
  await updateRecordingEvents<SavedMethodPaymentRow>(
    db,
    'saved_method_payments',
    { payment_id: input.paymentId },
    {
      state: input.state,
      ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(input.transId !== undefined ? { trans_id: input.transId } : {}),
      updated_at: db.fn.now(),
    },
    async (trx, before, after) => {
      const type = TOKEN_PAYMENT_EVENTS[after.state];
      if (type && before.state !== after.state)
        await recordEvent(trx, type, after.payment_id, savedMethodPaymentSnapshot(after));
    },
    { column: 'state', mayMove },
  );
}

/** Where the customer confirms a payment the gateway sent to its page (8000). */
export async function recordSavedMethodPaymentLinks(
  db: Db,
  paymentId: string,
  links: { payUrl?: string; deeplink?: string },
): Promise<void> {
  await db('saved_method_payments')
    .where({ payment_id: paymentId })
    .update({ pay_url: links.payUrl ?? null, deeplink: links.deeplink ?? null });
}

/** A page of saved-method payments, newest first, with the filters every list shares. */
export async function listSavedMethodPaymentsPage(db: Db, filter: ListFilter) {
  const query = applyListFilter(db<SavedMethodPaymentRow>('saved_method_payments'), filter, {
    created: 'created_at',
    status: 'state',
    ids: ['payment_id', 'order_id', 'method_id', 'partner_client_id'],
    tiebreak: 'payment_id',
  });
  return pageOf((await query) as SavedMethodPaymentRow[], filter);
}

/** Inserts the payment once, owning its gateway orderId; false when the payment id exists already. */
export const insertSavedMethodPayment = (
  db: Db,
  row: Pick<SavedMethodPaymentRow, 'payment_id' | 'order_id'> & Readonly<Record<string, unknown>>,
): Promise<boolean> =>
  insertOwningOrderIds(db, 'saved_method_payments', 'payment_id', row, [
    { orderId: row.order_id, kind: 'saved_method_payment', objectId: row.payment_id },
  ]);

export async function findBindingByOrderId(db: Db, orderId: string): Promise<BindingRow | undefined> {
  return db('saved_method_bindings').where({ order_id: orderId }).first();
}

export async function findSavedMethodPaymentByOrderId(
  db: Db,
  orderId: string,
): Promise<SavedMethodPaymentRow | undefined> {
  return db('saved_method_payments').where({ order_id: orderId }).first();
}

/** A saved method by the orderId of the binding that created it (what the gateway's unbind call names). */
export async function findSavedMethodByInitialOrderId(
  db: Db,
  orderId: string,
): Promise<SavedMethodRow | undefined> {
  return db('saved_methods').where({ initial_order_id: orderId }).first();
}

export async function recordOtpAttempt(
  db: Db,
  input: {
    paymentId: string;
    partnerClientId: string;
    kind: OtpAttemptKind;
    outcome: OtpAttemptOutcome;
    resultCode?: number;
    at: number;
  },
): Promise<void> {
  await db('saved_method_otp_attempts').insert({
    payment_id: input.paymentId,
    partner_client_id: input.partnerClientId,
    kind: input.kind,
    outcome: input.outcome,
    result_code: input.resultCode ?? null,
    at: new Date(input.at),
  });
}

/** A user's attempts of the last two days (enough for any "today" in any time zone). */
export async function recentOtpAttempts(db: Db, partnerClientId: string, now: number): Promise<OtpAttempt[]> {
  const rows: Array<{ at: Date; kind: OtpAttemptKind; outcome: OtpAttemptOutcome }> = await db(
    'saved_method_otp_attempts',
  )
    .where({ partner_client_id: partnerClientId })
    .andWhere('at', '>=', new Date(now - 2 * 86_400_000))
    .orderBy('id')
    .select('at', 'kind', 'outcome');
  return rows.map((row) => ({ at: row.at.getTime(), kind: row.kind, outcome: row.outcome }));
}

export async function otpAttemptsOf(db: Db, paymentId: string) {
  const rows = await db('saved_method_otp_attempts').where({ payment_id: paymentId }).orderBy('id');
  return rows.map((row) => ({
    at: row.at,
    kind: row.kind,
    outcome: row.outcome,
    resultCode: row.result_code,
  }));
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const savedMethodSnapshot = (row: SavedMethodRow): SavedMethodSnapshot => ({
  methodId: row.method_id,
  kind: row.kind,
  status: row.status,
  last4: row.card_last4,
  cardType: row.card_type,
  bankCode: row.bank_code,
  revokedAt: isoOrNull(row.revoked_at),
});

export const savedMethodPaymentSnapshot = (row: SavedMethodPaymentRow): SavedMethodPaymentSnapshot => ({
  paymentId: row.payment_id,
  methodId: row.method_id,
  kind: row.kind,
  amount: Number(row.amount),
  state: row.state,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});
