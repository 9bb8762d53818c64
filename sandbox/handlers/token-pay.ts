import { CODE } from '../codes';
import { paymentScenario, tokenPaymentScenario, userOf } from '../customer-scenarios';
import { outcome, type HandlerOutcome, type HandlerTable } from '../handler';
import { customerLinks } from '../links';
import {
  answerOf,
  declinePayment,
  newPayment,
  resolvePayment,
  withFunds,
  type Resolution,
} from '../payment-flow';
import type { Payment } from '../state';
import type { SandboxWorld } from '../world';
import { activeToken } from './binding';

/**
 * Document 2, paying with a saved token: 0 at once, 7000/7002 then the IPN, 1001 when the customer's
 * funds are short, 8000 (the customer confirms at the provider: payUrl → approval → IPN) or 8200 (a
 * two-factor code goes to the OTP inbox; tokenization/verify confirms it under the securityCode rules).
 */

const METHOD_OF_FLOW = { card: 'credit', domestic: 'domestic', wallet: 'wallet' } as const;
const PAY_TYPE_OF_FLOW = { card: 'credit', domestic: 'domestic', wallet: 'webApp' } as const;

function answer(
  payment: Payment,
  resolution: Pick<Resolution, 'resultCode' | 'message'>,
  extra = {},
): HandlerOutcome {
  return outcome(resolution.resultCode, resolution.message, {
    amount: payment.amount,
    transId: payment.transId,
    partnerClientId: payment.partnerClientId,
    ...extra,
  });
}

/** After the customer or the code confirmed: the customer's funds and the amount scenario decide. */
function charge(
  world: SandboxWorld,
  payment: Payment,
  source: 'tokenization.pay' | 'tokenization.verify',
): Resolution {
  return resolvePayment(world, payment, withFunds(world, payment, paymentScenario(payment.amount)), source);
}

export const tokenPayHandlers: HandlerTable = {
  'tokenization.pay': {
    createsOrder: true,
    validationContext(fields, world) {
      const token = activeToken(world, fields);
      return token ? { tokenKind: token.flow } : {};
    },
    handle(request, world) {
      const { fields } = request;
      const token = activeToken(world, fields);
      if (!token)
        return {
          ...outcome(
            CODE.invalidToken,
            'token does not exist, was deleted, or belongs to another partnerClientId',
          ),
          untouched: { orderId: true },
        };
      const amount = Number(fields.amount);
      const wantsCode =
        (fields.token as { requireSecurityCode?: boolean }).requireSecurityCode === true &&
        token.flow === 'wallet';
      const scenario = wantsCode ? { kind: 'two-factor' as const } : tokenPaymentScenario(amount);

      if (scenario.kind === 'two-factor') {
        const code = String(world.random.int(0, 999_999)).padStart(6, '0');
        const sent = world.otp.send(
          userOf(token.partnerClientId).user,
          token.partnerClientId,
          request.orderId,
          code,
        );
        if (!sent.ok)
          return {
            ...outcome(sent.resultCode, sent.message),
            // Too frequent: the same request may come again after 3 s.
            untouched: { orderId: true, requestId: sent.resultCode === CODE.securityCodeTooFrequent },
          };
      }
      const payment = newPayment(world, request, {
        notification: 'payment.resultB',
        method: METHOD_OF_FLOW[token.flow],
        payType: PAY_TYPE_OF_FLOW[token.flow],
        viaToken: true,
        partnerClientId: token.partnerClientId,
      });
      payment.tokenValue = token.value;

      if (scenario.kind === 'two-factor') {
        payment.resultCode = CODE.twoFactorRequired;
        payment.message = 'Waiting for two-factor confirmation (code sent to the OTP inbox)';
        return answer(payment, { resultCode: payment.resultCode, message: payment.message });
      }
      if (scenario.kind === 'redirect') {
        payment.resultCode = CODE.redirectCustomer;
        payment.message = 'The provider needs the customer: redirect them to payUrl';
        world.customer.wait({
          orderId: payment.orderId,
          step: 'token-redirect',
          amount,
          description: payment.orderInfo,
          partnerClientId: token.partnerClientId,
          createdAt: payment.createdAt,
          approve: () =>
            answerOf(payment.orderId, 'token-redirect', charge(world, payment, 'tokenization.pay')),
          decline: () =>
            answerOf(payment.orderId, 'token-redirect', declinePayment(world, payment, 'tokenization.pay')),
        });
        return answer(
          payment,
          { resultCode: payment.resultCode, message: payment.message },
          customerLinks(world, payment.orderId, ['payUrl', 'deeplink']),
        );
      }
      const resolution =
        scenario.kind === 'success'
          ? charge(world, payment, 'tokenization.pay')
          : resolvePayment(world, payment, withFunds(world, payment, scenario), 'tokenization.pay');
      return answer(payment, resolution);
    },
  },

  'tokenization.verify': {
    handle(request, world) {
      const payment = world.state.payments.get(request.orderId);
      if (!payment || !world.otp.hasChallenge(request.orderId))
        return outcome(CODE.invalidOrder, `orderId ${request.orderId} is not waiting for a security code`);
      const value = (request.fields.token as { value?: unknown }).value;
      if (value !== payment.tokenValue)
        return outcome(CODE.invalidToken, 'token is not the one of the payment');
      const check = world.otp.verify(request.orderId, String(request.fields.securityCode));
      if (check.resultCode === CODE.securityCodeTooFrequent)
        return { ...answer(payment, check), untouched: { requestId: true } };
      if (check.resultCode === CODE.securityCodeExpired || check.resultCode === CODE.securityCodeLocked) {
        if (payment.status === 'awaiting-customer')
          resolvePayment(
            world,
            payment,
            { kind: 'refuse', code: check.resultCode },
            'tokenization.verify',
            check.message,
          );
        return answer(payment, check);
      }
      if (check.resultCode !== CODE.success) return answer(payment, check);
      return answer(payment, charge(world, payment, 'tokenization.verify'));
    },
  },
};
