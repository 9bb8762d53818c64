import type { ValidationContext } from '../../gateway';
import { addFrequency, dayOf, daysBetween } from '../calendar';
import { CODE } from '../codes';
import type { CustomerAnswer } from '../customer';
import { paymentScenario } from '../customer-scenarios';
import { outcome, type GatewayRequest, type HandlerOutcome, type HandlerTable } from '../handler';
import { customerLinks } from '../links';
import {
  answerOf,
  declinePayment,
  expirePayment,
  newPayment,
  redirectTo,
  resolvePayment,
  withFunds,
} from '../payment-flow';
import type { Subscription } from '../state';
import type { SandboxWorld } from '../world';
import { authorize, exchangeCallbackToken, newAuthorization, walletOf } from './binding';

/**
 * Document 2, subscriptions: the customer authorizes (first charge, or a free trial / later start
 * with amount 0) → list-B IPN with a callbackToken → subscription/create hands out the token → each
 * cycle subscription/pay (FIXED charges exactly recurringAmount, VARIABLE up to it; refused from
 * expiryDate on) → pause / cancel / reactivate by the states table. Two charges refused for
 * insufficient funds in a row pause the subscription until the customer reactivates it.
 */

/** The spec's tolerance between the sent and the calculated nextPaymentDate. */
const NEXT_DATE_TOLERANCE_DAYS = 2;
const INSUFFICIENT_FUNDS_PAUSE_AFTER = 2;

type SubscriptionInfo = {
  name?: string;
  type?: 'FIXED' | 'VARIABLE';
  recurringAmount: number;
  frequency: string;
  nextPaymentDate?: string;
  expiryDate?: string;
};

const untouched = (result: HandlerOutcome): HandlerOutcome => ({ ...result, untouched: { orderId: true } });
const today = (world: SandboxWorld) => dayOf(world.now());
const expired = (world: SandboxWorld, subscription: Subscription) =>
  subscription.expiryDate !== undefined && today(world) >= subscription.expiryDate;

function subscriptionOf(
  world: SandboxWorld,
  fields: Readonly<Record<string, unknown>>,
): Subscription | undefined {
  const token = (fields.token ?? {}) as { value?: unknown; initialOrderId?: unknown };
  const subscription = world.state.subscriptions.get(String(token.initialOrderId));
  if (!subscription || subscription.tokenValue === undefined || subscription.tokenValue !== token.value)
    return undefined;
  if (!world.state.tokens.has(subscription.tokenValue)) return undefined; // never exchanged by subscription/create
  return fields.partnerClientId === subscription.partnerClientId ? subscription : undefined;
}

/** Why a charge or a reactivation is refused in the subscription's current state, if it is. */
function stateRefusal(world: SandboxWorld, subscription: Subscription): HandlerOutcome | undefined {
  if (
    subscription.status === 'cancelled' ||
    (subscription.status !== 'active' && subscription.status !== 'paused')
  )
    return outcome(
      CODE.subscriptionNotActive,
      `subscription ${subscription.initialOrderId} is ${subscription.status}`,
    );
  if (expired(world, subscription))
    return outcome(
      CODE.subscriptionExpired,
      `subscription ${subscription.initialOrderId} expired on ${subscription.expiryDate}`,
    );
  if (subscription.status === 'paused')
    return outcome(
      CODE.subscriptionPaused,
      `subscription ${subscription.initialOrderId} is paused until the customer reactivates it`,
    );
  return undefined;
}

function start(request: GatewayRequest, world: SandboxWorld): HandlerOutcome {
  const info = request.fields.subscriptionInfo as SubscriptionInfo;
  const partnerClientId = String(request.fields.partnerClientId);
  const userInfo = (request.fields.userInfo ?? {}) as { phoneNumber?: string };
  const subscription: Subscription = {
    initialOrderId: request.orderId,
    partnerClientId,
    status: 'authorizing',
    type: info.type ?? 'FIXED',
    recurringAmount: info.recurringAmount,
    frequency: info.frequency,
    insufficientFundsFailures: 0,
    ...walletOf(partnerClientId, userInfo.phoneNumber),
    charges: [],
    ...(info.name === undefined ? {} : { name: info.name }),
    ...(info.expiryDate === undefined ? {} : { expiryDate: info.expiryDate }),
  };
  world.state.subscriptions.set(request.orderId, subscription);
  const payment = newPayment(world, request, {
    notification: 'payment.resultB',
    method: 'wallet',
    payType: 'webApp',
    partnerClientId,
  });
  const authorization = newAuthorization(world, request, 'subscription');
  const source = 'subscription.start';
  world.customer.wait({
    orderId: request.orderId,
    step: 'subscription',
    amount: payment.amount,
    description: info.name ?? payment.orderInfo,
    partnerClientId,
    createdAt: payment.createdAt,
    expiresAt: payment.createdAt + world.config.timing.linkValidityMs,
    approve() {
      const result =
        payment.amount > 0
          ? withFunds(world, payment, paymentScenario(payment.amount))
          : { kind: 'success' as const };
      if (result.kind === 'refuse') {
        subscription.status = 'not-authorized';
        authorization.status = 'failed';
      } else {
        const value = `sub${world.random.hex(32)}`;
        authorize(world, authorization, {
          value,
          flow: 'wallet',
          partnerClientId,
          initialOrderId: request.orderId,
          status: 'active',
          payload: {
            value,
            initialOrderId: request.orderId,
            userAlias: subscription.userAlias,
            profileId: subscription.profileId,
          },
          createdAt: world.now(),
        });
        payment.callbackToken = authorization.callbackToken!;
        subscription.status = 'active';
        subscription.tokenValue = value;
        if (payment.amount > 0) subscription.lastPaymentDate = today(world);
        subscription.nextPaymentDate = info.nextPaymentDate ?? addFrequency(today(world), info.frequency);
      }
      return answerOf(request.orderId, 'subscription', resolvePayment(world, payment, result, source));
    },
    decline() {
      subscription.status = 'not-authorized';
      authorization.status = 'declined';
      return answerOf(request.orderId, 'subscription', declinePayment(world, payment, source));
    },
    expire() {
      subscription.status = 'not-authorized';
      authorization.status = 'expired';
      return answerOf(request.orderId, 'subscription', expirePayment(world, payment, source));
    },
  });
  return outcome(CODE.success, undefined, {
    amount: payment.amount,
    partnerClientId,
    ...customerLinks(world, request.orderId, ['payUrl', 'deeplink', 'qrCodeUrl', 'deeplinkMiniApp']),
  });
}

function pay(request: GatewayRequest, world: SandboxWorld): HandlerOutcome {
  const subscription = subscriptionOf(world, request.fields);
  if (!subscription)
    return untouched(
      outcome(CODE.invalidToken, 'subscription token unknown or not for this partnerClientId'),
    );
  const refusal = stateRefusal(world, subscription);
  if (refusal) return untouched(refusal);
  const amount = Number(request.fields.amount);
  if (subscription.type === 'FIXED' && amount !== subscription.recurringAmount)
    return untouched(
      outcome(
        CODE.amountOutOfRange,
        `a FIXED subscription charges exactly its recurringAmount ${subscription.recurringAmount}`,
      ),
    );
  const payment = newPayment(world, request, {
    method: 'wallet',
    payType: 'webApp',
    viaToken: true,
    partnerClientId: subscription.partnerClientId,
  });
  payment.tokenValue = subscription.tokenValue!;
  subscription.charges.push(payment.orderId);
  const resolution = resolvePayment(
    world,
    payment,
    withFunds(world, payment, paymentScenario(amount)),
    'subscription.pay',
  );
  if (resolution.resultCode === CODE.insufficientFunds) {
    subscription.insufficientFundsFailures += 1;
    if (subscription.insufficientFundsFailures >= INSUFFICIENT_FUNDS_PAUSE_AFTER)
      subscription.status = 'paused';
  } else {
    subscription.insufficientFundsFailures = 0;
    scheduleNext(world, subscription, request.fields.nextPaymentDate as string | undefined);
  }
  return outcome(resolution.resultCode, resolution.message, {
    amount,
    transId: payment.transId,
    partnerClientId: subscription.partnerClientId,
  });
}

/** The sent date wins only within 2 days of the one calculated from the frequency. */
function scheduleNext(world: SandboxWorld, subscription: Subscription, sent: string | undefined): void {
  subscription.lastPaymentDate = today(world);
  const calculated = addFrequency(subscription.lastPaymentDate, subscription.frequency);
  subscription.calculatedNextPaymentDate = calculated;
  if (sent === undefined) delete subscription.requestedNextPaymentDate;
  else subscription.requestedNextPaymentDate = sent;
  subscription.nextPaymentDate =
    sent !== undefined && Math.abs(daysBetween(calculated, sent)) <= NEXT_DATE_TOLERANCE_DAYS
      ? sent
      : calculated;
}

function manage(request: GatewayRequest, world: SandboxWorld): HandlerOutcome {
  const subscription = subscriptionOf(world, request.fields);
  if (!subscription)
    return outcome(CODE.invalidToken, 'subscription token unknown or not for this partnerClientId');
  const answer = (message: string) =>
    outcome(CODE.success, message, { partnerClientId: subscription.partnerClientId });
  switch (request.fields.action) {
    case 'pause':
      if (subscription.status === 'paused')
        return outcome(CODE.subscriptionPaused, 'the subscription is already paused');
      if (subscription.status !== 'active') return stateRefusal(world, subscription)!;
      subscription.status = 'paused';
      return answer('Subscription paused');
    case 'cancel':
      if (subscription.status !== 'active' && subscription.status !== 'paused')
        return outcome(
          CODE.subscriptionNotActive,
          `subscription ${subscription.initialOrderId} is ${subscription.status}`,
        );
      subscription.status = 'cancelled';
      return answer('Subscription cancelled permanently');
    default:
      return reactivate(request, world, subscription);
  }
}

/** Only a paused, unexpired subscription, and only once the customer confirms (8000, then IPN). */
function reactivate(
  request: GatewayRequest,
  world: SandboxWorld,
  subscription: Subscription,
): HandlerOutcome {
  if (subscription.status === 'active' && !expired(world, subscription))
    return outcome(
      CODE.badFormat,
      `subscription ${subscription.initialOrderId} is active; only a paused one is reactivated`,
    );
  const refusal = stateRefusal(world, subscription);
  if (refusal && refusal.resultCode !== CODE.subscriptionPaused) return refusal;
  const { fields } = request;
  const notice = (resultCode: number, message: string): CustomerAnswer => {
    const body = {
      partnerCode: world.config.merchant.partnerCode,
      orderId: request.orderId,
      requestId: request.requestId,
      amount: 0,
      orderInfo: '',
      resultCode,
      message,
      payType: 'webApp',
      responseTime: world.now(),
      extraData: '',
      partnerClientId: subscription.partnerClientId,
      callbackToken: '',
    };
    const ipnUrl = typeof fields.ipnUrl === 'string' ? fields.ipnUrl : undefined;
    world.ipn.send({ kind: 'payment.resultB', source: 'subscription.manage', url: ipnUrl, fields: body });
    const redirectUrl =
      typeof fields.redirectUrl === 'string'
        ? redirectTo(world, fields.redirectUrl, 'payment.resultB', body)
        : undefined;
    return {
      orderId: request.orderId,
      step: 'reactivation',
      resultCode,
      message,
      ...(redirectUrl ? { redirectUrl } : {}),
    };
  };
  world.customer.wait({
    orderId: request.orderId,
    step: 'reactivation',
    amount: 0,
    description: `Reactivate ${subscription.name ?? subscription.initialOrderId}`,
    partnerClientId: subscription.partnerClientId,
    createdAt: world.now(),
    approve() {
      if (expired(world, subscription))
        return notice(CODE.subscriptionExpired, 'The subscription expired before the customer confirmed');
      if (subscription.status !== 'paused')
        return notice(CODE.subscriptionNotActive, `the subscription is ${subscription.status}`);
      subscription.status = 'active';
      subscription.insufficientFundsFailures = 0;
      return notice(CODE.success, 'Subscription reactivated');
    },
    decline: () => notice(CODE.customerDeclined, 'The customer did not confirm the reactivation'),
  });
  return outcome(
    CODE.redirectCustomer,
    'The customer must confirm the reactivation: redirect them to payUrl',
    {
      partnerClientId: subscription.partnerClientId,
      ...customerLinks(world, request.orderId, ['payUrl', 'deeplink']),
    },
  );
}

export const subscriptionHandlers: HandlerTable = {
  'subscription.start': { createsOrder: true, handle: start },
  'subscription.create': { handle: (request, world) => exchangeCallbackToken(world, request, true) },
  'subscription.pay': {
    createsOrder: true,
    validationContext(fields, world): ValidationContext {
      const subscription = subscriptionOf(world, fields);
      return subscription ? { recurringAmount: subscription.recurringAmount } : {};
    },
    handle: pay,
  },
  'subscription.manage': { handle: manage },
};

/** Admin view of a subscription (dates, state, failures). */
export function subscriptionSnapshot(world: SandboxWorld, initialOrderId: string) {
  const subscription = world.state.subscriptions.get(initialOrderId);
  if (!subscription) return undefined;
  const { tokenValue: _token, ...view } = subscription;
  return { ...view, expired: expired(world, subscription), charges: [...subscription.charges] };
}
