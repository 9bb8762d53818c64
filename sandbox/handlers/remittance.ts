import { MAX_EXCHANGE_AMOUNT } from '../../gateway';
import { CODE } from '../codes';
import { outcome, type HandlerOutcome, type HandlerTable } from '../handler';
import type { ForeignCurrency } from '../options';
import { payOut, transientFailure } from './payout';
import { receiverOf, scenarioOf } from './receivers';
import type { SandboxWorld } from '../world';

/** Document 3, remittance: exchange rate, buy (convert), check wallet, create order. */

type RateInfo = Readonly<Record<string, unknown>>;

export const remittanceHandlers: HandlerTable = {
  'remittance.exchangeRate': {
    handle(request, world) {
      const baseCurrency = (request.fields.baseCurrency ?? 'USD') as ForeignCurrency;
      return outcome(CODE.success, undefined, {
        rateInfo: { baseCurrency, exchangeCurrency: 'VND', rate: world.rates[baseCurrency] },
      });
    },
  },

  'remittance.buy': {
    createsOrder: true,
    handle(request, world) {
      const rateInfo = request.fields.rateInfo as RateInfo;
      const baseCurrency = rateInfo.baseCurrency as ForeignCurrency;
      const amount = Number(rateInfo.amount);
      const rate = world.rates[baseCurrency];
      if (rateInfo.rate !== undefined && rateInfo.rate !== rate)
        return outcome(
          CODE.badFormat,
          `rateInfo.rate ${String(rateInfo.rate)} is not the current ${baseCurrency} rate ${rate}; query exchange-rate again`,
        );
      const exchangeAmount = Math.round(amount * rate);
      if (exchangeAmount > MAX_EXCHANGE_AMOUNT)
        return outcome(CODE.amountOutOfRange, `exchangeAmount ${exchangeAmount} exceeds 12 digits`);
      const available = world.balances.get(baseCurrency);
      if (!world.balances.canDebit(baseCurrency, amount))
        return {
          ...outcome(
            CODE.merchantBalanceInsufficient,
            `Foreign-currency balance insufficient: ${available} ${baseCurrency} available, ${amount} needed`,
          ),
          untouched: { orderId: true },
        };
      world.balances.debit(baseCurrency, amount);
      world.balances.credit('VND', exchangeAmount);
      world.ledger.record({
        orderId: request.orderId,
        requestId: request.requestId,
        kind: 'buy',
        amount,
        currency: baseCurrency,
        outcome: 'succeeded',
        resultCode: CODE.success,
        exchangeAmount,
      });
      return outcome(CODE.success, undefined, {
        rateInfo: { baseCurrency, exchangeCurrency: 'VND', rate, amount, exchangeAmount },
      });
    },
  },

  'remittance.verify': {
    createsOrder: true,
    handle(request, world) {
      const receiver = receiverOf(request.fields, 'receiver');
      const scenario = scenarioOf(receiver, 'wallet');
      return (
        transientFailure(world, request, scenario, JSON.stringify(receiver)) ?? outcome(scenario.checkWallet)
      );
    },
  },

  'remittance.create': {
    createsOrder: true,
    handle(request, world) {
      const { requestType, amount, autoCapture } = request.fields;
      const channel = requestType === 'remitToBank' ? 'bank' : 'wallet';
      return payOut(world, {
        kind: 'remittance',
        source: 'remittance.create',
        notification: 'remittance.result',
        request,
        amount: Number(amount),
        scenario: scenarioOf(receiverOf(request.fields, 'receiver'), channel),
        awaitCapture: autoCapture === false,
      });
    },
  },
};

/**
 * The spec shows no query for a remittance or a single disbursement; payrun polls a late result with
 * api/query (`payment.query`) and the order's orderId (gateway/README.md, assumptions 3 and 21). The
 * answer for such an order: resultCode = the order's current code (0, 7000 while pending or awaiting
 * capture, or the failure code), with amount and transId. Undefined for any other orderId.
 */
export function remittanceQueryAnswer(world: SandboxWorld, orderId: string): HandlerOutcome | undefined {
  const order = world.state.remittances.get(orderId) ?? world.state.disbursements.get(orderId);
  if (!order) return undefined;
  return outcome(order.resultCode, undefined, {
    amount: order.amount,
    ...(order.transId === undefined ? {} : { transId: order.transId }),
  });
}

/**
 * Wraps a handler table so `payment.query` answers for remittance and disbursement orders and leaves every other
 * orderId to the table's own `payment.query` (documents 1–2), or to "not simulated yet".
 */
export function withRemittanceQuery(table: HandlerTable): HandlerTable {
  const inner = table['payment.query'];
  return {
    ...table,
    'payment.query': {
      ...inner,
      handle(request, world) {
        const answer = remittanceQueryAnswer(world, request.orderId);
        if (answer) return answer;
        if (inner) return inner.handle(request, world);
        return outcome(CODE.invalidOrder, `orderId ${request.orderId} not found`);
      },
    },
  };
}
