import { insertOwningOrderIds } from '../shared/gateway-order-ids';
import type { Db } from '../shared/knex';
import type {
  EventType,
  SavedMethodSnapshot,
  SavedMethodPaymentSnapshot,
} from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, type MayMove } from '../events/events';
import { isoOrNull } from '../shared/values';
import type {
  BindingStatus,
  SavedMethodKind,
  OtpAttempt,
  OtpAttemptKind,
  OtpAttemptOutcome,
  SavedMethodPaymentState,
} from '../../contracts/saved-methods';

export type SavedMethodStatus = 'active' | 'deleting' | 'deleted' | 'revoked';

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
  created_by: string;
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
  /** The payment's transition table (contracts/saved-methods/payments.ts): forward only. */
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

/** The customer removed the method in the app: it is never used again. A second unbind changes nothing. */
export async function revokeSavedMethod(db: Db, methodId: string): Promise<void> {
  await db.transaction(async (trx) => {
    const [revoked]: SavedMethodRow[] = await trx('saved_methods')
      .where({ method_id: methodId })
      .whereIn('status', ['active', 'deleting'])
      .update({ status: 'revoked', revoked_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*');
    if (revoked)
      await recordEvent(trx, 'saved_method.revoked', revoked.method_id, savedMethodSnapshot(revoked));
  });
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
