import { CODE } from '../codes';
import { outcome, type HandlerTable } from '../handler';
import type { ForeignCurrency } from '../options';
import { payOut, transientFailure } from './payout';
import { receiverOf, scenarioOf } from './receivers';

/** Document 3, remittance: exchange rate, buy (convert), check wallet, create order. */

/** exchangeAmount "up to 12 digits". */
const MAX_EXCHANGE_AMOUNT = 999_999_999_999;

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
    handle(request, world) {
      const scenario = scenarioOf(receiverOf(request.fields, 'receiver'), 'wallet');
      return transientFailure(world, request, scenario) ?? outcome(scenario.checkWallet);
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
