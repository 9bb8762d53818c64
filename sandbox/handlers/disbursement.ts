import { currencyOfGroup } from '../balance-groups';
import { CODE } from '../codes';
import { outcome, type HandlerTable } from '../handler';
import { payOut, transientFailure } from './payout';
import { receiverOf, scenarioOf, type Receiver } from './receivers';
import type { SandboxWorld } from '../world';

/**
 * Whether a wallet check names the wallet's registered holder. Read hardest (gateway/README assumption 32):
 * the name must be the registered one exactly (ends trimmed); no case or accent is forgiven.
 */
function namesRegisteredHolder(world: SandboxWorld, receiver: Receiver): boolean {
  const registered = world.settings.walletHolders.get(String(receiver.walletId ?? ''));
  return registered === undefined || registered.trim() === String(receiver.walletName ?? '').trim();
}

/** Document 3, single disbursement: check wallet, balance, pay. */
export const disbursementHandlers: HandlerTable = {
  // A check and a balance read carry an orderId of their own: read hardest, the gateway keeps it as used
  // (gateway/README assumption 22), so each one needs a fresh orderId.
  'disbursement.verify': {
    createsOrder: true,
    handle(request, world) {
      const receiver = receiverOf(request.fields, 'disbursementMethod');
      const scenario = scenarioOf(receiver, 'wallet');
      return (
        transientFailure(world, request, scenario, JSON.stringify(receiver)) ??
        (scenario.checkWallet === CODE.success && !namesRegisteredHolder(world, receiver)
          ? outcome(CODE.receiverInfoInvalid)
          : outcome(scenario.checkWallet))
      );
    },
  },

  'disbursement.balance': {
    createsOrder: true,
    handle(request, world) {
      const { orderGroupId } = request.fields;
      const currency = currencyOfGroup(orderGroupId);
      if (!currency)
        return outcome(
          CODE.invalidOrderGroupId,
          `orderGroupId ${String(orderGroupId)} is not a balance group of this merchant`,
        );
      return outcome(CODE.success, undefined, { amount: world.balances.get(currency), currency });
    },
  },

  'disbursement.pay': {
    createsOrder: true,
    handle(request, world) {
      const { orderGroupId, requestType, amount } = request.fields;
      if (currencyOfGroup(orderGroupId) !== 'VND')
        return outcome(
          CODE.invalidOrderGroupId,
          `orderGroupId ${String(orderGroupId)} is not a VND balance group`,
        );
      const channel = requestType === 'disburseToBank' ? 'bank' : 'wallet';
      return payOut(world, {
        kind: 'disbursement',
        source: 'disbursement.pay',
        notification: 'disbursement.result',
        request,
        amount: Number(amount),
        scenario: scenarioOf(receiverOf(request.fields, 'disbursementMethod'), channel),
      });
    },
  },
};
