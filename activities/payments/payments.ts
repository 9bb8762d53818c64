import { randomBytes } from 'node:crypto';
import {
  isAlreadySubmitted,
  isPending,
  orderStatusEvidence,
  outcomeOf,
  refundStatusEvidence,
  type Evidence,
  type GatewayClient,
  type OperationName,
  type RequestFields,
  type ResultOutcome,
} from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  markRefundNeedsAttention as markRefundRecordNeedsAttention,
  markTerminalSettled,
  recordRefundAnswer,
  recordTerminalSettlement,
  requirePayment,
  requireRefund,
  requireTerminalSettlement,
  updatePayment,
  paymentResultPatch,
  type PaymentRow,
  type RefundItem,
  type RefundRow,
} from '../../db/payments/payments';
import {
  canMovePayment,
  isFinalPaymentCode,
  noticeOf,
  type ConfirmAction,
  type ConfirmOutcome,
  type ConfirmPaymentInput,
  type PaymentActivities,
  type PaymentConfirmation,
  type PaymentNotice,
  type PaymentResultRecord,
  type PaymentStatus,
  type PaymentStatusChange,
  type QueriedPayment,
  type RefundOutcome,
  type TerminalSettlementInput,
  type TerminalSettlementResult,
} from '../../contracts/payments';
import { requestIdFor } from '../../gateway/ids';
import { bindActivities } from '../shared/bind';
import { stopIfHeld } from '../holds/holds';
import { requireApproved } from '../approvals/approvals';
import { askForEvidence, askGateway, lookupId, type AskOptions } from '../shared/gateway-calls';

export interface PaymentActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Where the gateway sends list-A payment IPNs (every type but payWithCC). */
  paymentIpnUrl: string;
  /** Where the gateway sends list-B payment IPNs (payWithCC). */
  cardPaymentIpnUrl: string;
  /** The customer's redirect lands here (GET, the notification parameters in the query). */
  paymentReturnUrl: string;
}

const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/** What a 40 or 41 to a create means for the record: the order may exist, its answer (and links) are lost. */
const LINKS_LOST =
  'The gateway had already read this order (40/41): the answer of the first attempt, with the payment link, ' +
  'was lost and cannot be read again. The notification or api/query tells whether the customer paid; if the ' +
  'customer has no link, create a new payment.';

function createFields(row: PaymentRow, urls: PaymentActivityDependencies) {
  const details = row.request_details;
  return {
    orderId: row.order_id,
    requestId: requestIdFor(row.order_id, 'c'),
    amount: Number(row.amount),
    orderInfo: row.order_info,
    extraData: row.extra_data,
    redirectUrl: urls.paymentReturnUrl,
    ipnUrl: row.request_type === 'payWithCC' ? urls.cardPaymentIpnUrl : urls.paymentIpnUrl,
    requestType: row.request_type,
    autoCapture: row.auto_capture,
    ...details,
    ...(row.store_id ? { storeId: row.store_id } : {}),
    ...(row.serial_number ? { serialNumber: row.serial_number } : {}),
    ...(row.instrument_type !== null ? { instrumentType: row.instrument_type } : {}),
  };
}

function refundItemsFrom(
  current: RefundItem[],
  answered: Array<Record<string, unknown>> | undefined,
  idKey: 'itemId' | 'id',
): RefundItem[] {
  if (!answered?.length) return current;
  return current.map((item) => {
    const found = answered.find((entry) => String(entry[idKey]) === item.itemId);
    if (!found) return item;
    const code = Number(found.resultCode);
    const refundTransId = text(found.refundTransId);
    return {
      ...item,
      resultCode: code,
      status: itemStatusOf(outcomeOf(code)),
      ...(found.message !== undefined || found.resultDescription !== undefined
        ? { message: String(found.message ?? found.resultDescription) }
        : {}),
      ...(refundTransId
        ? { refundTransId }
        : item.refundTransId
          ? { refundTransId: item.refundTransId }
          : {}),
    };
  });
}

/** What a confirm answer (or, after "already confirmed", the query) says happened to the authorization. */
const confirmOutcomeOf = (code: number, action: ConfirmAction | undefined): ConfirmOutcome['outcome'] => {
  const outcome = outcomeOf(code);
  if (outcome === 'succeeded' && action) return action === 'capture' ? 'captured' : 'cancelled';
  if (outcome === 'authorization_cancelled') return 'cancelled';
  if (outcome === 'authorization_expired') return 'expired';
  return 'refused';
};

const CONFIRM_DESCRIPTION: Readonly<Record<ConfirmAction | 'hold-over', string>> = {
  capture: 'Captured by the merchant',
  cancel: 'Cancelled by the merchant',
  'hold-over': 'Hold period over; released by the merchant',
};

const itemStatusOf = (outcome: ResultOutcome): RefundItem['status'] =>
  outcome === 'succeeded' ? 'succeeded' : isPending(outcome) ? 'pending' : 'failed';
/** A refund's status from evidence about it: undecided is pending, a decided failure failed. */
const refundStatusOf = (evidence: Exclude<Evidence, { state: 'unknown' }>): RefundOutcome['status'] =>
  evidence.state === 'undecided' ? 'pending' : itemStatusOf(evidence.outcome);

/** Writes the payment's record forward only (its transition table). */
const recordPayment = (db: Db, paymentId: string, patch: Parameters<typeof updatePayment>[2]) =>
  updatePayment(db, paymentId, patch, canMovePayment);

/** Final answers and our own invalid requests come back as values; transport trouble is retried. */
const ask = <Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
  options?: AskOptions,
) => askGateway(gateway, operation, fields, { ...options, invalidRequestIsAnswer: true });

// ---- payments

/** api/create (or api/pos) with requestId and orderId derived from the payment: a retry re-sends the same order. */
export async function createPayment(
  deps: PaymentActivityDependencies,
  input: { paymentId: string; paymentCode?: string },
  /** The record as its caller just read it (the payment desk's claim returns it); read here otherwise. */
  claimed?: PaymentRow,
): Promise<{ status: PaymentStatus; notice?: PaymentNotice }> {
  const row = claimed ?? (await requirePayment(deps.db, input.paymentId));
  const answer = await sendCreate(deps, row, input.paymentCode);
  if (!answer.accepted) {
    const notice: PaymentNotice = {
      resultCode: answer.resultCode,
      message: answer.message,
      source: 'create',
    };
    return { status: 'failed', notice };
  }
  // Already submitted (40: this attempt's first answer was lost; 41): what the query proves decides (the
  // customer may have paid already); otherwise the order waits, its links lost with the first answer.
  if (isAlreadySubmitted(answer.outcome)) {
    const asked = await queryPayment(deps, { paymentId: input.paymentId });
    if (asked.known !== false && isFinalPaymentCode(asked.resultCode))
      return { status: 'pending', notice: asked };
  }
  if (row.request_type === 'pos' && answer.outcome === 'succeeded') {
    return { status: 'succeeded', notice: noticeOf(answer.body, 'create') };
  }
  const status: PaymentStatus = answer.action === 'redirect-customer' ? 'awaiting_customer' : 'pending';
  await recordPayment(deps.db, input.paymentId, {
    status,
    result_code: answer.resultCode,
    result_message: isAlreadySubmitted(answer.outcome) ? LINKS_LOST : answer.message,
    ...linksOf(answer.body),
  });
  return { status };
}

/** api/pos for a scanned code, api/create for every other requestType. */
async function sendCreate(
  deps: PaymentActivityDependencies,
  row: PaymentRow,
  paymentCode: string | undefined,
) {
  if (row.request_type !== 'pos')
    return ask(
      deps.gateway,
      `payment.${row.request_type}` as 'payment.captureWallet',
      createFields(row, deps) as Parameters<GatewayClient['call']>[1],
    );
  return ask(deps.gateway, 'payment.pos', {
    orderId: row.order_id,
    requestId: requestIdFor(row.order_id, 'c'),
    amount: Number(row.amount),
    paymentCode: paymentCode ?? '',
    orderInfo: row.order_info,
    extraData: row.extra_data,
    ipnUrl: deps.paymentIpnUrl,
    autoCapture: row.auto_capture,
    ...row.request_details,
    ...(row.store_id ? { storeId: row.store_id } : {}),
  });
}

/** Where the customer pays: the links of a create's answer. */
const linksOf = (body: Record<string, unknown>) => ({
  pay_url: text(body.payUrl) ?? null,
  deeplink: text(body.deeplink) ?? null,
  qr_code_url: text(body.qrCodeUrl) ?? null,
  deeplink_mini_app: text(body.deeplinkMiniApp) ?? null,
  short_link: text(body.shortLink) ?? null,
  ...(text(body.transId) ? { trans_id: text(body.transId) } : {}),
});

/**
 * api/query about the payment. Only evidence decides (gateway/evidence.ts): `known: false` when the
 * answer proves nothing (a refused query, another order under this orderId, an answer payrun's client
 * rejects), so the workflow keeps waiting instead of recording a refusal as the payment's result.
 */
export async function queryPayment(
  { db, gateway }: PaymentActivityDependencies,
  { paymentId }: { paymentId: string },
): Promise<QueriedPayment> {
  const row = await requirePayment(db, paymentId);
  let body: Record<string, unknown> = {};
  const evidence = await askForEvidence(
    gateway,
    'payment.query',
    { orderId: row.order_id, requestId: lookupId(row.order_id), lang: 'en' },
    (answer) => {
      body = answer ?? {};
      return orderStatusEvidence(answer, {
        orderId: row.order_id,
        amount: Number(row.amount),
        kind: 'payment',
      });
    },
  );
  if (evidence.state === 'unknown')
    return { resultCode: evidence.resultCode ?? -1, message: evidence.reason, source: 'query', known: false };
  return noticeOf(body, 'query');
}

export async function recordPaymentStatus({ db }: PaymentActivityDependencies, input: PaymentStatusChange) {
  await recordPayment(db, input.paymentId, {
    status: input.status,
    ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
    ...(input.message !== undefined ? { result_message: input.message } : {}),
  });
}

export async function recordPaymentResult({ db }: PaymentActivityDependencies, input: PaymentResultRecord) {
  await recordPayment(db, input.paymentId, {
    ...paymentResultPatch(input.status, input.notice),
    ...(input.holdExpiresAt !== undefined ? { hold_expires_at: new Date(input.holdExpiresAt) } : {}),
  });
}

// ---- capture and cancel of an authorization

/**
 * Capture or cancel an authorization (the gateway's confirm). Each decision has its own requestId, the
 * same on every retry of it. 41 ("already confirmed", gateway/README assumption 5) is resolved by
 * api/query, where 0 means captured. 40 (this decision's answer was lost) is resolved by api/query only
 * where the query can tell: 1017 cancelled, 1018 lapsed; a 0 does not tell a capture from an
 * authorization still held, so the outcome is unknown and the payment stays authorized for an operator.
 */
export async function confirmPayment(
  { db, gateway }: PaymentActivityDependencies,
  input: ConfirmPaymentInput,
): Promise<ConfirmOutcome> {
  const row = await requirePayment(db, input.paymentId);
  const base = input.reason === 'hold-over' ? 'holdover' : input.action;
  const step = input.seq && input.seq > 1 ? `${base}${input.seq}` : base;
  const answer = await ask(gateway, 'payment.confirm', {
    orderId: row.order_id,
    requestId: requestIdFor(row.order_id, step),
    requestType: input.action,
    amount: Number(row.amount),
    description: CONFIRM_DESCRIPTION[input.reason === 'hold-over' ? 'hold-over' : input.action],
    lang: 'en',
  });
  if (!answer.accepted)
    return {
      outcome: confirmOutcomeOf(answer.resultCode, undefined),
      resultCode: answer.resultCode,
      message: answer.message,
    };
  const { resultCode, message, action } = answer;
  if (action !== 'resolve-by-query')
    return { outcome: confirmOutcomeOf(resultCode, input.action), resultCode, message };
  return confirmOutcomeByQuery(gateway, row, input.action, answer.outcome);
}

/** A confirm already read (40) or already confirmed (41): what api/query can tell of the authorization. */
async function confirmOutcomeByQuery(
  gateway: GatewayClient,
  row: PaymentRow,
  action: ConfirmAction,
  confirmed: ResultOutcome,
): Promise<ConfirmOutcome> {
  const asked = await ask(gateway, 'payment.query', {
    orderId: row.order_id,
    requestId: lookupId(row.order_id),
    lang: 'en',
  });
  const named = asked.body.orderId === row.order_id;
  const code = asked.resultCode;
  const queried = outcomeOf(code);
  if (confirmed === 'duplicate_order' && named && queried === 'succeeded')
    return { outcome: 'captured', resultCode: code, message: asked.message };
  if (named && (queried === 'authorization_cancelled' || queried === 'authorization_expired'))
    return { outcome: confirmOutcomeOf(code, undefined), resultCode: code, message: asked.message };
  return {
    outcome: 'unknown',
    resultCode: code,
    message:
      `The ${action}'s answer was lost and api/query (${code}) cannot tell what it did; the payment ` +
      'stays authorized. Decide again: a second capture of a captured payment is refused with 41.',
  };
}

export async function recordConfirmation({ db }: PaymentActivityDependencies, input: PaymentConfirmation) {
  await recordPayment(db, input.paymentId, {
    status: input.status,
    confirm_action: input.action,
    confirmed_by: input.by,
    confirm_result_code: input.resultCode,
    confirm_message: input.message,
    confirmed_at: new Date(),
    ...(input.status !== 'authorized_not_captured' ? { completed_at: new Date() } : {}),
  });
}

// ---- refunds

/** api/refund for a reserved refund; the payment's method decides the limits the client checks. */
export async function createRefund(
  deps: PaymentActivityDependencies,
  { refundId, releasedHold }: { refundId: string; releasedHold?: string },
): Promise<RefundOutcome> {
  const { db, gateway } = deps;
  await requireApproved(db, 'refund', refundId);
  const refund = await requireRefund(db, refundId);
  // A first attempt sends nothing while refunds are held; a retry may be a call already sent, and goes on.
  await stopIfHeld(db, 'refund', releasedHold, Number(refund.amount));
  const payment = await requirePayment(db, refund.payment_id);
  const answer = await sendRefund(gateway, refund, payment);
  if (!answer.accepted) return recordRefusedRefund(db, refund, answer);
  const { resultCode, message, action } = answer;
  // 40/41: already submitted (a retry after a lost answer): the query tells what happened.
  if (action === 'resolve-by-query') return queryRefund(deps, { refundId });
  const body = answer.body;
  const items = refundItemsFrom(
    refund.items,
    body.transGroup as Array<Record<string, unknown>> | undefined,
    'itemId',
  );
  // Accepted: 0 refunded, 7002 (or 7000) pending; anything undecided is asked about later.
  const status: RefundOutcome['status'] = answer.outcome === 'succeeded' ? 'succeeded' : 'pending';
  await recordRefundAnswer(db, refundId, {
    status,
    resultCode,
    message,
    items,
    ...(body.transId !== undefined && refund.items.length === 0 ? { transId: text(body.transId) } : {}),
  });
  return { status, resultCode, message };
}

/** api/refund of the whole refund, or of its items (transGroup) each against the payment's transaction. */
function sendRefund(gateway: GatewayClient, refund: RefundRow, payment: PaymentRow) {
  const transId = Number(payment.trans_id);
  return ask(
    gateway,
    'refund.create',
    {
      orderId: refund.order_id,
      requestId: `${refund.order_id}-c`,
      amount: Number(refund.amount),
      transId,
      description: refund.description,
      lang: 'en',
      ...(refund.items.length
        ? { transGroup: refund.items.map((item) => ({ itemId: item.itemId, amount: item.amount, transId })) }
        : {}),
    },
    { context: { refundOf: payment.pay_type === 'domestic' ? 'domestic-card' : 'other' } },
  );
}

/** A refused refund moved no money: it and every item failed, and db/ gives the amount back. */
async function recordRefusedRefund(
  db: Db,
  refund: RefundRow,
  answer: { resultCode: number; message: string },
): Promise<RefundOutcome> {
  await recordRefundAnswer(db, refund.refund_id, {
    status: 'failed',
    resultCode: answer.resultCode,
    message: answer.message,
    items: refund.items.map((item) => ({ ...item, status: 'failed' as const })),
  });
  return { status: 'failed', resultCode: answer.resultCode, message: answer.message };
}

/**
 * api/refund/query. Only evidence decides (gateway/evidence.ts): an answer that names this refund with
 * its amount and transaction. A refused query (99, 13, 20, 42 …) or one payrun's client rejects is
 * "not known yet": recorded as nothing, so the amount stays reserved and no second refund can be made.
 */
export async function queryRefund(
  { db, gateway }: PaymentActivityDependencies,
  { refundId }: { refundId: string },
): Promise<RefundOutcome> {
  const refund = await requireRefund(db, refundId);
  let body: Record<string, unknown> = {};
  const evidence = await askForEvidence(
    gateway,
    'refund.query',
    { orderId: refund.order_id, requestId: lookupId(refund.order_id), lang: 'en' },
    (answer) => {
      body = answer ?? {};
      return refundStatusEvidence(answer, { orderId: refund.order_id, amount: Number(refund.amount) });
    },
  );
  if (evidence.state === 'unknown')
    return { status: 'pending', resultCode: evidence.resultCode, message: evidence.reason };
  const { resultCode, message } = evidence;
  const status = refundStatusOf(evidence);
  const items = refundItemsFrom(refund.items, body.items as Array<Record<string, unknown>> | undefined, 'id');
  const trans = (body.refundTrans as Array<Record<string, unknown>> | undefined)?.find(
    (entry) => entry.orderId === refund.order_id,
  );
  await recordRefundAnswer(db, refundId, {
    status,
    resultCode,
    message,
    items,
    ...(text(trans?.transId) ? { transId: text(trans?.transId) } : {}),
  });
  return { status, resultCode, message };
}

export async function markRefundNeedsAttention(
  { db }: PaymentActivityDependencies,
  { refundId }: { refundId: string },
): Promise<void> {
  await markRefundRecordNeedsAttention(db, refundId);
}

export async function recordRefundNotApproved(
  { db }: PaymentActivityDependencies,
  { refundId, status }: { refundId: string; status: 'rejected' | 'expired' },
): Promise<void> {
  await recordRefundAnswer(db, refundId, {
    status,
    message: `The approval was ${status}; nothing was refunded.`,
  });
}

// ---- terminal settlement

/** card/settle; on success payrun closes the terminal's card payments for API refunds. */
export async function settleTerminal(
  { db, gateway }: PaymentActivityDependencies,
  { settlementId }: TerminalSettlementInput,
): Promise<TerminalSettlementResult> {
  const row = await requireTerminalSettlement(db, settlementId);
  // A settlement moves no money and may be repeated: every attempt has a requestId of its own, so a
  // lost answer is simply asked again (the recorded request_id names the first).
  const answer = await ask(gateway, 'card.settle', {
    storeId: row.store_id,
    serialNumber: row.serial_number,
    requestId: requestIdFor(row.request_id, `a${randomBytes(4).toString('hex')}`),
  });
  const { resultCode, message } = answer;
  const settled = outcomeOf(resultCode) === 'succeeded';
  const settledPayments = settled ? await markTerminalSettled(db, row.store_id, row.serial_number) : 0;
  const result: TerminalSettlementResult = {
    status: settled ? 'settled' : 'failed',
    resultCode,
    message,
    settledPayments,
  };
  await recordTerminalSettlement(db, settlementId, result);
  return result;
}

/** The worker's payment activities, bound to one set of dependencies under their own names. */
export const createPaymentActivities = (deps: PaymentActivityDependencies): PaymentActivities =>
  bindActivities(deps, {
    createPayment,
    queryPayment,
    recordPaymentStatus,
    confirmPayment,
    recordConfirmation,
    recordPaymentResult,
    createRefund,
    queryRefund,
    markRefundNeedsAttention,
    recordRefundNotApproved,
    settleTerminal,
  });
