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
  markTerminalSettled,
  recordRefundAnswer,
  requirePayment,
  requireRefund,
  updatePayment,
  type PaymentRow,
  type RefundItem,
} from '../../db/payments/payments';
import {
  canMovePayment,
  isFinalPaymentCode,
  noticeOf,
  type ConfirmAction,
  type ConfirmOutcome,
  type PaymentNotice,
  type PaymentStatus,
  type RefundOutcome,
  type TerminalSettlementResult,
} from '../../contracts/payments';
import { requestIdFor } from '../../contracts/shared';
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

export function createPaymentActivities(deps: PaymentActivityDependencies) {
  const { db, gateway } = deps;
  /** Writes the payment's record forward only (its transition table). */
  const recordPayment = (paymentId: string, patch: Parameters<typeof updatePayment>[2]) =>
    updatePayment(db, paymentId, patch, canMovePayment);
  /** Final answers and our own invalid requests come back as values; transport trouble is retried. */
  const ask = <Op extends OperationName>(operation: Op, fields: RequestFields<Op>, options?: AskOptions) =>
    askGateway(gateway, operation, fields, { ...options, invalidRequestIsAnswer: true });

  /**
   * api/refund/query. Only evidence decides (gateway/evidence.ts): an answer that names this refund with
   * its amount and transaction. A refused query (99, 13, 20, 42 …) or one payrun's client rejects is
   * "not known yet": recorded as nothing, so the amount stays reserved and no second refund can be made.
   */
  async function queryRefund({ refundId }: { refundId: string }): Promise<RefundOutcome> {
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
    const items = refundItemsFrom(
      refund.items,
      body.items as Array<Record<string, unknown>> | undefined,
      'id',
    );
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

  /**
   * api/query about the payment. Only evidence decides (gateway/evidence.ts): `known: false` when the
   * answer proves nothing (a refused query, another order under this orderId, an answer payrun's client
   * rejects), so the workflow keeps waiting instead of recording a refusal as the payment's result.
   */
  async function queryPayment({
    paymentId,
  }: {
    paymentId: string;
  }): Promise<PaymentNotice & { known?: false }> {
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
      return {
        resultCode: evidence.resultCode ?? -1,
        message: evidence.reason,
        source: 'query',
        known: false,
      };
    return noticeOf(body, 'query');
  }

  return {
    /** api/create (or api/pos) with requestId and orderId derived from the payment: a retry re-sends the same order. */
    async createPayment(input: {
      paymentId: string;
      paymentCode?: string;
    }): Promise<{ status: PaymentStatus; notice?: PaymentNotice }> {
      const row = await requirePayment(db, input.paymentId);
      const answer =
        row.request_type === 'pos'
          ? await ask('payment.pos', {
              orderId: row.order_id,
              requestId: requestIdFor(row.order_id, 'c'),
              amount: Number(row.amount),
              paymentCode: input.paymentCode ?? '',
              orderInfo: row.order_info,
              extraData: row.extra_data,
              ipnUrl: deps.paymentIpnUrl,
              autoCapture: row.auto_capture,
              ...row.request_details,
              ...(row.store_id ? { storeId: row.store_id } : {}),
            })
          : await ask(
              `payment.${row.request_type}` as 'payment.captureWallet',
              createFields(row, deps) as Parameters<GatewayClient['call']>[1],
            );
      if (!answer.accepted) {
        const notice: PaymentNotice = {
          resultCode: answer.resultCode,
          message: answer.message,
          source: 'create',
        };
        return { status: 'failed', notice };
      }
      const { resultCode, action } = answer;
      const body = answer.body;
      // Already submitted (40: this attempt's first answer was lost; 41): what the query proves decides (the
      // customer may have paid already); otherwise the order waits, its links lost with the first answer.
      if (isAlreadySubmitted(answer.outcome)) {
        const asked = await queryPayment({ paymentId: input.paymentId });
        if (asked.known !== false && isFinalPaymentCode(asked.resultCode))
          return { status: 'pending', notice: asked };
      }
      if (row.request_type === 'pos' && answer.outcome === 'succeeded') {
        return { status: 'succeeded', notice: noticeOf(body, 'create') };
      }
      const status: PaymentStatus = action === 'redirect-customer' ? 'awaiting_customer' : 'pending';
      const message = isAlreadySubmitted(answer.outcome) ? LINKS_LOST : answer.message;
      await recordPayment(input.paymentId, {
        status,
        result_code: resultCode,
        result_message: message,
        pay_url: text(body.payUrl) ?? null,
        deeplink: text(body.deeplink) ?? null,
        qr_code_url: text(body.qrCodeUrl) ?? null,
        deeplink_mini_app: text(body.deeplinkMiniApp) ?? null,
        short_link: text(body.shortLink) ?? null,
        ...(text(body.transId) ? { trans_id: text(body.transId) } : {}),
      });
      return { status };
    },

    queryPayment,

    async recordPaymentStatus(input: {
      paymentId: string;
      status: PaymentStatus;
      resultCode?: number;
      message?: string;
    }) {
      await recordPayment(input.paymentId, {
        status: input.status,
        ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
        ...(input.message !== undefined ? { result_message: input.message } : {}),
      });
    },

    /**
     * Capture or cancel an authorization (the gateway's confirm). Each decision has its own requestId, the
     * same on every retry of it. 41 ("already confirmed", gateway/README assumption 5) is resolved by
     * api/query, where 0 means captured. 40 (this decision's answer was lost) is resolved by api/query only
     * where the query can tell: 1017 cancelled, 1018 lapsed; a 0 does not tell a capture from an
     * authorization still held, so the outcome is unknown and the payment stays authorized for an operator.
     */
    async confirmPayment(input: {
      paymentId: string;
      action: ConfirmAction;
      reason: 'operator' | 'hold-over';
      /** Which decision this is (a decision after an unknown outcome needs a requestId of its own). */
      seq?: number;
    }): Promise<ConfirmOutcome> {
      const row = await requirePayment(db, input.paymentId);
      const base = input.reason === 'hold-over' ? 'holdover' : input.action;
      const step = input.seq && input.seq > 1 ? `${base}${input.seq}` : base;
      const answer = await ask('payment.confirm', {
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
      const asked = await ask('payment.query', {
        orderId: row.order_id,
        requestId: lookupId(row.order_id),
        lang: 'en',
      });
      const named = asked.body.orderId === row.order_id;
      const code = asked.resultCode;
      const queried = outcomeOf(code);
      if (answer.outcome === 'duplicate_order' && named && queried === 'succeeded')
        return { outcome: 'captured', resultCode: code, message: asked.message };
      if (named && (queried === 'authorization_cancelled' || queried === 'authorization_expired'))
        return { outcome: confirmOutcomeOf(code, undefined), resultCode: code, message: asked.message };
      return {
        outcome: 'unknown',
        resultCode: code,
        message:
          `The ${input.action}'s answer was lost and api/query (${code}) cannot tell what it did; the payment ` +
          'stays authorized. Decide again: a second capture of a captured payment is refused with 41.',
      };
    },

    async recordConfirmation(input: {
      paymentId: string;
      status: PaymentStatus;
      action: 'capture' | 'cancel' | 'expire';
      by: string;
      resultCode: number;
      message: string;
    }) {
      await recordPayment(input.paymentId, {
        status: input.status,
        confirm_action: input.action,
        confirmed_by: input.by,
        confirm_result_code: input.resultCode,
        confirm_message: input.message,
        confirmed_at: new Date(),
        ...(input.status !== 'authorized_not_captured' ? { completed_at: new Date() } : {}),
      });
    },

    async recordPaymentResult(input: {
      paymentId: string;
      status: PaymentStatus;
      notice: PaymentNotice;
      /** Authorizations: until when the gateway holds the money (epoch ms). */
      holdExpiresAt?: number;
    }) {
      const { notice } = input;
      await recordPayment(input.paymentId, {
        status: input.status,
        ...(input.holdExpiresAt !== undefined ? { hold_expires_at: new Date(input.holdExpiresAt) } : {}),
        result_code: notice.resultCode,
        result_message: notice.message,
        ...(notice.transId !== undefined ? { trans_id: notice.transId } : {}),
        ...(notice.payType !== undefined ? { pay_type: notice.payType } : {}),
        ...(notice.paymentOption !== undefined ? { payment_option: notice.paymentOption } : {}),
        ...(notice.promotions !== undefined ? { promotions: notice.promotions } : {}),
        ...(notice.cardPaymentInfo !== undefined ? { card_payment_info: notice.cardPaymentInfo } : {}),
        completed_at: new Date(),
      });
    },

    /** api/refund for a reserved refund; the payment's method decides the limits the client checks. */
    async createRefund({ refundId }: { refundId: string }): Promise<RefundOutcome> {
      const refund = await requireRefund(db, refundId);
      const payment = await requirePayment(db, refund.payment_id);
      const transId = Number(payment.trans_id);
      const answer = await ask(
        'refund.create',
        {
          orderId: refund.order_id,
          requestId: `${refund.order_id}-c`,
          amount: Number(refund.amount),
          transId,
          description: refund.description,
          lang: 'en',
          ...(refund.items.length
            ? {
                transGroup: refund.items.map((item) => ({
                  itemId: item.itemId,
                  amount: item.amount,
                  transId,
                })),
              }
            : {}),
        },
        { context: { refundOf: payment.pay_type === 'domestic' ? 'domestic-card' : 'other' } },
      );
      if (!answer.accepted) {
        const failedItems = refund.items.map((item) => ({ ...item, status: 'failed' as const }));
        await recordRefundAnswer(db, refundId, {
          status: 'failed',
          resultCode: answer.resultCode,
          message: answer.message,
          items: failedItems,
        });
        return { status: 'failed', resultCode: answer.resultCode, message: answer.message };
      }
      const { resultCode, message, action } = answer;
      // 40/41: already submitted (a retry after a lost answer): the query tells what happened.
      if (action === 'resolve-by-query') return queryRefund({ refundId });
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
    },

    queryRefund,

    async markRefundNeedsAttention({ refundId }: { refundId: string }) {
      await db('refunds')
        .where({ refund_id: refundId })
        .whereIn('status', ['created', 'pending'])
        .update({ status: 'needs_attention', updated_at: db.fn.now() });
    },

    /** card/settle; on success payrun closes the terminal's card payments for API refunds. */
    async settleTerminal({ settlementId }: { settlementId: string }): Promise<TerminalSettlementResult> {
      const row = await db('terminal_settlements').where({ settlement_id: settlementId }).first();
      if (!row) throw new Error(`Settlement ${settlementId} has no record`);
      // A settlement moves no money and may be repeated: every attempt has a requestId of its own, so a
      // lost answer is simply asked again (the recorded request_id names the first).
      const answer = await ask('card.settle', {
        storeId: row.store_id,
        serialNumber: row.serial_number,
        requestId: requestIdFor(row.request_id, `a${randomBytes(4).toString('hex')}`),
      });
      const resultCode = answer.resultCode;
      const message = answer.message;
      const settled = outcomeOf(resultCode) === 'succeeded';
      const settledPayments = settled ? await markTerminalSettled(db, row.store_id, row.serial_number) : 0;
      const status = settled ? 'settled' : 'failed';
      await db('terminal_settlements').where({ settlement_id: settlementId }).update({
        status,
        result_code: resultCode,
        result_message: message,
        settled_payments: settledPayments,
        completed_at: db.fn.now(),
      });
      return { status, resultCode, message, settledPayments };
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
