import { CODE } from '../codes';
import { outcome, type HandlerTable } from '../handler';
import type { Payment } from '../state';
import type { SandboxWorld } from '../world';

/**
 * The gateway's confirm operation (not in the spec; see gateway/README.md): a payment created with
 * `autoCapture: false` is only authorized when the customer pays. The merchant then captures it
 * (the held amount, exactly) or cancels it, once, within the hold period; afterwards the
 * authorization lapses and the money is the customer's again. A decision is final: a second
 * confirm of a decided order answers 41 ("already confirmed"), which the merchant resolves by query.
 */

/** Lets a hold whose time is up lapse; read before any answer about the payment. */
export function expireHoldIfDue(world: SandboxWorld, payment: Payment): void {
  const hold = payment.hold;
  if (hold?.status !== 'held' || world.now() < hold.expiresAt) return;
  hold.status = 'expired';
  decide(
    world,
    payment,
    'failed',
    CODE.authorizationExpired,
    'The authorization hold expired; nothing was captured',
  );
}

function decide(
  world: SandboxWorld,
  payment: Payment,
  movement: 'succeeded' | 'failed',
  resultCode: number,
  message: string,
): void {
  payment.lastUpdated = world.now();
  if (movement === 'failed') {
    payment.status = 'failed';
    payment.resultCode = resultCode;
    payment.message = message;
  }
  if (payment.ledgerEntry) world.ledger.settle(payment.ledgerEntry, movement, resultCode);
}

const LAPSED: Readonly<Record<'cancelled' | 'expired', number>> = {
  cancelled: CODE.authorizationCancelled,
  expired: CODE.authorizationExpired,
};

export const confirmHandlers: HandlerTable = {
  'payment.confirm': {
    handle(request, world) {
      const { fields, orderId, requestId } = request;
      const payment = world.state.payments.get(orderId);
      if (!payment) return outcome(CODE.invalidOrder, `orderId ${orderId} not found`);
      expireHoldIfDue(world, payment);
      const hold = payment.hold;
      if (!hold)
        return outcome(
          CODE.invalidOrder,
          payment.autoCapture
            ? `orderId ${orderId} was captured automatically (autoCapture was not false); nothing to confirm`
            : `orderId ${orderId} is not authorized (yet); nothing to confirm`,
        );
      const action = fields.requestType as 'capture' | 'cancel';
      const answer = (code: number, message: string) =>
        outcome(code, message, { amount: payment.amount, transId: payment.transId, requestType: action });
      if (hold.status === 'cancelled' || hold.status === 'expired')
        return answer(LAPSED[hold.status], `The authorization of ${orderId} was ${hold.status}`);
      if (hold.status === 'captured')
        return answer(
          CODE.duplicateOrderId,
          `orderId ${orderId} was already captured (requestId ${hold.confirmRequestId ?? '?'})`,
        );
      if (action === 'capture' && fields.amount !== payment.amount)
        return answer(
          CODE.amountOutOfRange,
          `the capture amount must equal the authorized amount ${payment.amount} (got ${String(fields.amount)})`,
        );
      hold.confirmRequestId = requestId;
      if (action === 'capture') {
        hold.status = 'captured';
        decide(world, payment, 'succeeded', CODE.success, 'Captured');
        return answer(CODE.success, `Captured ${payment.amount} VND`);
      }
      hold.status = 'cancelled';
      decide(
        world,
        payment,
        'failed',
        CODE.authorizationCancelled,
        'The merchant cancelled the authorization',
      );
      return answer(CODE.success, 'Cancelled; the held amount went back to the customer');
    },
  },
};
