import { buildNotification, redirectQuery, type OperationName } from '../gateway';
import { CODE } from './codes';
import type { CustomerAnswer, CustomerStep } from './customer';
import { POOR_CUSTOMER_MARKER, userOf, type CustomerOutcome, type MoneyOutcome } from './customer-scenarios';
import type { GatewayRequest } from './handler';
import { defaultMessage } from './handler';
import type { Payment, PaymentMethod } from './state';
import type { SandboxWorld } from './world';

/**
 * The shared story of money coming in from a customer (documents 1 and 2): a payment record, its
 * outcome applied once (transId, ledger, funds), the signed IPN of the table's notification list and
 * the signed redirect. Pending outcomes report 7000/7002 first and the final result later.
 */

export interface NewPayment {
  notification?: Payment['notification'];
  method: PaymentMethod;
  payType: string;
  viaToken?: boolean;
  partnerClientId?: string;
  amount?: number;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const optional = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

export function newPayment(world: SandboxWorld, request: GatewayRequest, init: NewPayment): Payment {
  const { fields } = request;
  const now = world.now();
  const payment: Payment = {
    orderId: request.orderId,
    requestId: request.requestId,
    operation: request.operation,
    amount: init.amount ?? Number(fields.amount ?? 0),
    orderInfo: text(fields.orderInfo),
    extraData: text(fields.extraData),
    status: 'awaiting-customer',
    resultCode: CODE.processing,
    message: 'Waiting for the customer',
    payType: init.payType,
    method: init.method,
    viaToken: init.viaToken ?? false,
    promotionInfo: [],
    refunds: [],
    createdAt: now,
    lastUpdated: now,
    autoCapture: fields.autoCapture !== false,
  };
  if (init.notification) payment.notification = init.notification;
  const ipnUrl = optional(fields.ipnUrl);
  const redirectUrl = optional(fields.redirectUrl);
  const partnerClientId = init.partnerClientId ?? optional(fields.partnerClientId);
  const storeId = optional(fields.storeId);
  if (ipnUrl) payment.ipnUrl = ipnUrl;
  if (redirectUrl) payment.redirectUrl = redirectUrl;
  if (partnerClientId) payment.partnerClientId = partnerClientId;
  if (storeId) payment.storeId = storeId;
  world.state.payments.set(payment.orderId, payment);
  return payment;
}

/** The customer's funds, where a scenario or the admin limits them; undefined = plenty. */
export function customerFunds(world: SandboxWorld, partnerClientId: string | undefined): number | undefined {
  if (partnerClientId === undefined) return undefined;
  const { user } = userOf(partnerClientId);
  const set = world.state.customerFunds.get(user);
  if (set !== undefined) return set;
  return partnerClientId.toLowerCase().includes(POOR_CUSTOMER_MARKER) ? 0 : undefined;
}

/** Applies the scenario, with the customer's funds taking precedence (a short customer gets 1001). */
export function withFunds<T extends CustomerOutcome>(
  world: SandboxWorld,
  payment: Payment,
  scenario: T,
): T | Extract<MoneyOutcome, { kind: 'refuse' }> {
  const funds = customerFunds(world, payment.partnerClientId);
  if (funds !== undefined && payment.amount > funds) return { kind: 'refuse', code: CODE.insufficientFunds };
  return scenario;
}

export interface Resolution {
  resultCode: number;
  message: string;
  transId?: number;
  redirectUrl?: string;
}

/**
 * Moves a payment to the outcome (success, refusal, pending → success later), once. `source` scopes
 * IPN fault rules. Returns what the customer's browser would be sent to.
 */
export function resolvePayment(
  world: SandboxWorld,
  payment: Payment,
  outcome: MoneyOutcome,
  source: OperationName,
  message?: string,
): Resolution {
  payment.transId ??= world.nextTransId();
  world.state.paymentsByTransId.set(payment.transId, payment);
  if (outcome.kind === 'pending') {
    apply(world, payment, 'pending', outcome.code, message);
    world.pending.add(`payment:${payment.orderId}`, world.config.timing.pendingSettleMs, () => {
      apply(world, payment, 'succeeded', CODE.success);
      report(world, payment, source);
      return 1;
    });
  } else if (outcome.kind === 'refuse') apply(world, payment, 'failed', outcome.code, message);
  else apply(world, payment, 'succeeded', CODE.success, message);
  const redirectUrl = report(world, payment, source);
  return {
    resultCode: payment.resultCode,
    message: payment.message ?? defaultMessage(payment.resultCode),
    transId: payment.transId,
    ...(redirectUrl ? { redirectUrl } : {}),
  };
}

function apply(
  world: SandboxWorld,
  payment: Payment,
  status: 'succeeded' | 'failed' | 'pending',
  resultCode: number,
  message?: string,
): void {
  payment.status = status;
  payment.resultCode = resultCode;
  payment.message = message ?? defaultMessage(resultCode);
  payment.lastUpdated = world.now();
  if (status === 'succeeded') spendFunds(world, payment);
  // Bind-only and free-trial authorizations (amount 0) move no money.
  if (payment.amount === 0) return;
  // Without capture, a success only holds the money: the movement stays pending until confirm.
  const held = status === 'succeeded' && !payment.autoCapture;
  if (held)
    payment.hold = {
      status: 'held',
      expiresAt: world.now() + world.config.timing.authorizationHoldMs,
    };
  if (payment.ledgerEntry) {
    if (status !== 'pending' && !held) world.ledger.settle(payment.ledgerEntry, status, resultCode);
    return;
  }
  payment.ledgerEntry = world.ledger.record({
    orderId: payment.orderId,
    requestId: payment.requestId,
    kind: payment.operation === 'subscription.pay' ? 'subscription-charge' : 'payment',
    amount: payment.amount,
    currency: 'VND',
    outcome: held ? 'pending' : status,
    resultCode,
    ...(payment.transId === undefined ? {} : { transId: payment.transId }),
    method: payment.method,
  });
}

function spendFunds(world: SandboxWorld, payment: Payment): void {
  if (payment.partnerClientId === undefined) return;
  const { user } = userOf(payment.partnerClientId);
  const funds = world.state.customerFunds.get(user);
  if (funds !== undefined) world.state.customerFunds.set(user, funds - payment.amount);
}

/** The notification fields of a payment in its current state (IPN body and redirect parameters). */
export function notificationFields(world: SandboxWorld, payment: Payment): Record<string, unknown> {
  const listB = payment.notification === 'payment.resultB';
  return {
    partnerCode: world.config.merchant.partnerCode,
    orderId: payment.orderId,
    requestId: payment.requestId,
    amount: payment.amount,
    orderInfo: payment.orderInfo,
    transId: payment.transId,
    resultCode: payment.resultCode,
    message: payment.message ?? defaultMessage(payment.resultCode),
    payType: payment.payType,
    responseTime: world.now(),
    extraData: payment.extraData,
    userFee: 0,
    ...(listB
      ? {
          partnerClientId: payment.partnerClientId ?? '',
          callbackToken: payment.callbackToken ?? '',
          ...(payment.method === 'credit' || payment.method === 'domestic'
            ? { partnerUserId: `sbx-user-${payment.partnerClientId ?? ''}` }
            : {}),
        }
      : {}),
    ...(payment.storeId ? { storeId: payment.storeId } : {}),
    ...(payment.promotionInfo.length > 0 ? { promotionInfo: payment.promotionInfo } : {}),
    ...(payment.paymentOption ? { paymentOption: payment.paymentOption } : {}),
    ...(payment.cardPaymentInfo ? { cardPaymentInfo: payment.cardPaymentInfo } : {}),
  };
}

/** Sends the IPN (when the flow has one) and returns the signed redirect URL (when one was given). */
export function report(world: SandboxWorld, payment: Payment, source: OperationName): string | undefined {
  const kind = payment.notification;
  if (!kind) return undefined;
  const fields = notificationFields(world, payment);
  world.ipn.send({ kind, source, url: payment.ipnUrl, fields });
  return payment.redirectUrl && redirectTo(world, payment.redirectUrl, kind, fields);
}

export function redirectTo(
  world: SandboxWorld,
  redirectUrl: string,
  kind: 'payment.resultA' | 'payment.resultB',
  fields: Record<string, unknown>,
): string {
  const query = redirectQuery(buildNotification(kind, fields, world.config.keys));
  return `${redirectUrl}${redirectUrl.includes('?') ? '&' : '?'}${query}`;
}

/** A customer answer from a resolution, for the admin API and the hosted page. */
export function answerOf(orderId: string, step: CustomerStep, resolution: Resolution): CustomerAnswer {
  return { orderId, step, ...resolution };
}

/** The customer declined on the page or in the app: final 1006, reported like any outcome. */
export function declinePayment(world: SandboxWorld, payment: Payment, source: OperationName): Resolution {
  return resolvePayment(
    world,
    payment,
    { kind: 'refuse', code: CODE.customerDeclined },
    source,
    'Customer declined the payment',
  );
}

/** A link left unanswered past its validity: final 1005, no money moved. */
export function expirePayment(world: SandboxWorld, payment: Payment, source: OperationName): Resolution {
  payment.status = 'expired';
  payment.resultCode = CODE.linkExpired;
  payment.message = 'The link expired before the customer completed it';
  payment.lastUpdated = world.now();
  const redirectUrl = report(world, payment, source);
  return {
    resultCode: payment.resultCode,
    message: payment.message,
    ...(redirectUrl ? { redirectUrl } : {}),
  };
}
