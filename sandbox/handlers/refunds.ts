import type { ValidationContext } from '../../gateway';
import { CODE } from '../codes';
import { endsWith, REFUND_ITEM_PENDING_SUFFIX, REFUND_REFUSED_SUFFIX } from '../customer-scenarios';
import { defaultMessage, outcome, type HandlerOutcome, type HandlerTable } from '../handler';
import type { Payment, Refund, RefundItem } from '../state';
import type { SandboxWorld } from '../world';
import { isMappedPair } from './terminals';

/**
 * Document 1: refunds (full, partial, per item), the refund query and card-terminal settlement. The
 * sandbox knows how each purchase was paid, so the refund limits of the method apply (domestic card
 * minimum 10 000, tokenization maximum 30 000 000), the refunds of one purchase never exceed what was
 * paid, and a terminal card payment is refundable only until its terminal settles.
 */

const untouched = (result: HandlerOutcome): HandlerOutcome => ({ ...result, untouched: { orderId: true } });

function refundOf(payment: Payment | undefined): ValidationContext['refundOf'] {
  if (!payment) return undefined;
  if (payment.viaToken) return 'tokenization';
  return payment.method === 'domestic' ? 'domestic-card' : 'other';
}

/** What is still refundable: pending refunds count, refused ones do not. */
function refundable(payment: Payment): number {
  return payment.refunds
    .filter((refund) => refund.status !== 'failed')
    .reduce((left, refund) => left - refund.amount, payment.amount);
}

type TransGroupEntry = { itemId?: string; amount?: number; transId?: number };

export const refundHandlers: HandlerTable = {
  'refund.create': {
    createsOrder: true,
    validationContext(fields, world) {
      const payment = world.state.paymentsByTransId.get(Number(fields.transId));
      const context = refundOf(payment);
      return context ? { refundOf: context } : {};
    },
    handle(request, world) {
      const { fields } = request;
      const amount = Number(fields.amount);
      const payment = world.state.paymentsByTransId.get(Number(fields.transId));
      // An authorization that was not captured moved nothing that could be refunded (cancel it instead).
      const uncaptured = payment?.hold !== undefined && payment.hold.status !== 'captured';
      if (!payment || payment.status !== 'succeeded' || uncaptured)
        return untouched(
          outcome(
            CODE.invalidOrder,
            `transId ${String(fields.transId)} is not a successful payment of this merchant`,
          ),
        );
      if (payment.viaToken && payment.method === 'domestic' && amount < 10_000)
        return untouched(
          outcome(CODE.amountOutOfRange, 'refunds of domestic card payments are at least 10000 VND'),
        );
      if (payment.method === 'terminal-card' && payment.settled)
        return untouched(
          outcome(
            CODE.refundFailed,
            'The terminal card transaction is settled; settled card transactions are refunded outside the API',
          ),
        );
      const left = refundable(payment);
      if (amount > left)
        return untouched(
          outcome(
            CODE.amountOutOfRange,
            `Refund of ${amount} VND exceeds the refundable amount ${left} VND of transId ${payment.transId}`,
          ),
        );
      const group = (fields.transGroup as TransGroupEntry[] | undefined) ?? [];
      const groupSum = group.reduce((sum, item) => sum + Number(item.amount ?? 0), 0);
      if (group.length > 0 && groupSum !== amount)
        return untouched(
          outcome(CODE.badFormat, `transGroup amounts add up to ${groupSum}, the refund amount is ${amount}`),
        );
      return refund(world, request.orderId, request.requestId, payment, amount, group, fields.description);
    },
  },

  'refund.query': {
    handle(request, world) {
      const found = world.state.refunds.get(request.orderId);
      if (!found) return outcome(CODE.invalidOrder, `no refund with orderId ${request.orderId}`);
      return outcome(found.resultCode, undefined, {
        refundTrans: [
          {
            orderId: found.orderId,
            amount: found.amount,
            resultCode: found.resultCode,
            transId: found.transId,
            createdTime: found.createdAt,
          },
        ],
        items: found.items.map((item) => ({
          id: item.itemId,
          resultCode: item.resultCode,
          resultDescription: defaultMessage(item.resultCode),
          refundCount: item.status === 'succeeded' ? '1' : '0',
          refundAmount: String(item.status === 'succeeded' ? item.amount : 0),
        })),
      });
    },
  },

  'card.settle': {
    handle(request, world) {
      const storeId = String(request.fields.storeId);
      const serialNumber = String(request.fields.serialNumber);
      if (!isMappedPair(world, storeId, serialNumber))
        return outcome(CODE.badFormat, `serialNumber ${serialNumber} is not a terminal of store ${storeId}`);
      const settled = [...world.state.payments.values()].filter(
        (payment) =>
          payment.method === 'terminal-card' &&
          payment.status === 'succeeded' &&
          !payment.settled &&
          payment.storeId === storeId &&
          payment.serialNumber === serialNumber,
      );
      for (const payment of settled) payment.settled = true;
      const total = settled.reduce((sum, payment) => sum + payment.amount, 0);
      world.ledger.record({
        orderId: `settle-${request.requestId}`,
        requestId: request.requestId,
        kind: 'settlement',
        amount: total,
        currency: 'VND',
        outcome: 'succeeded',
        resultCode: CODE.success,
        method: `${storeId}/${serialNumber}`,
      });
      return outcome(CODE.success, `Settled ${settled.length} card transaction(s), ${total} VND`);
    },
  },
};

function refund(
  world: SandboxWorld,
  orderId: string,
  requestId: string,
  payment: Payment,
  amount: number,
  group: readonly TransGroupEntry[],
  description: unknown,
): HandlerOutcome {
  const record: Refund = {
    orderId,
    requestId,
    payment,
    amount,
    resultCode: CODE.success,
    status: 'succeeded',
    items: [],
    createdAt: world.now(),
    ...(typeof description === 'string' ? { description } : {}),
  };
  world.state.refunds.set(orderId, record);
  payment.refunds.push(record);
  payment.lastUpdated = world.now();
  const entry = (
    itemId: string | undefined,
    itemAmount: number,
    outcomeOf: 'succeeded' | 'failed' | 'pending',
    code: number,
    transId?: number,
  ) =>
    world.ledger.record({
      orderId,
      ...(itemId === undefined ? {} : { itemId }),
      requestId,
      kind: 'refund',
      amount: itemAmount,
      currency: 'VND',
      outcome: outcomeOf,
      resultCode: code,
      ...(transId === undefined ? {} : { transId }),
      refundOf: payment.orderId,
    });

  if (endsWith(amount, REFUND_REFUSED_SUFFIX)) {
    record.status = 'failed';
    record.resultCode = CODE.refundFailed;
    record.ledgerEntry = entry(undefined, amount, 'failed', CODE.refundFailed);
    return outcome(
      CODE.refundFailed,
      'Refund refused by the payment instrument issuer (sandbox scenario 1002)',
      {
        amount,
        transId: payment.transId,
      },
    );
  }
  record.transId = world.nextTransId();
  if (group.length === 0) {
    record.ledgerEntry = entry(undefined, amount, 'succeeded', CODE.success, record.transId);
    return outcome(CODE.success, undefined, { amount, transId: record.transId });
  }

  record.items = group.map((given, index): RefundItem => {
    const itemId = given.itemId ?? String(index + 1);
    const itemAmount = Number(given.amount ?? 0);
    if (endsWith(itemAmount, REFUND_ITEM_PENDING_SUFFIX)) {
      const item: RefundItem = {
        itemId,
        amount: itemAmount,
        resultCode: CODE.processingAtProvider,
        status: 'pending',
      };
      item.ledgerEntry = entry(itemId, itemAmount, 'pending', item.resultCode);
      world.pending.add(`refund:${orderId}:${itemId}`, world.config.timing.pendingSettleMs, () => {
        item.status = 'succeeded';
        item.resultCode = CODE.success;
        item.refundTransId = world.nextTransId();
        if (item.ledgerEntry) world.ledger.settle(item.ledgerEntry, 'succeeded', CODE.success);
        if (record.items.every((other) => other.status === 'succeeded')) {
          record.status = 'succeeded';
          record.resultCode = CODE.success;
        }
        return 1;
      });
      return item;
    }
    const item: RefundItem = {
      itemId,
      amount: itemAmount,
      refundTransId: world.nextTransId(),
      resultCode: CODE.success,
      status: 'succeeded',
    };
    item.ledgerEntry = entry(itemId, itemAmount, 'succeeded', CODE.success, item.refundTransId);
    return item;
  });
  if (record.items.some((item) => item.status === 'pending')) {
    record.status = 'pending';
    record.resultCode = CODE.processingAtProvider;
  }
  return outcome(
    record.resultCode,
    record.status === 'pending'
      ? 'Some items are being refunded by the provider; query the refund for the result'
      : undefined,
    {
      amount,
      transId: record.transId,
      transGroup: record.items.map((item) => ({
        itemId: item.itemId,
        amount: item.amount,
        ...(item.refundTransId === undefined ? {} : { refundTransId: item.refundTransId }),
        resultCode: item.resultCode,
        message: defaultMessage(item.resultCode),
      })),
    },
  );
}
