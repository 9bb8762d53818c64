import type { NotificationKind, OperationName } from '../../gateway';
import { CODE } from '../codes';
import { outcome, type GatewayRequest, type HandlerOutcome } from '../handler';
import type { LedgerEntry } from '../ledger';
import { singlePaymentOutcome, type Scenario } from '../scenarios';
import type { MoneyOutOrder } from '../state';
import type { SandboxWorld } from '../world';

/**
 * A single VND payout (disbursement/pay, remittance/create): the shared story of checking the
 * balance, applying the receiver's scenario, moving the money once, and reporting the final result
 * by IPN. Pending payouts reserve their amount; a failed final result gives it back.
 */
export interface Payout {
  kind: 'disbursement' | 'remittance';
  source: OperationName;
  notification: NotificationKind;
  request: GatewayRequest;
  amount: number;
  scenario: Scenario;
  /** Two-step remittance (autoCapture false): authorized now, captured later. */
  awaitCapture?: boolean;
}

/**
 * Scenario "0010": the first attempt meets a server connection error. For a payout (pay, create) that is
 * the first attempt of each requestId, which the merchant re-sends unchanged; for a check (verify), which
 * a merchant sends with fresh ids each time, the first check of each receiver.
 */
export function transientFailure(
  world: SandboxWorld,
  request: GatewayRequest,
  scenario: Scenario,
  checkOf?: string,
): HandlerOutcome | undefined {
  const key = checkOf === undefined ? request.requestId : `${request.operation}:${checkOf}`;
  if (!scenario.transientFirstAttempt || world.state.transientFailuresSent.has(key)) return undefined;
  world.state.transientFailuresSent.add(key);
  return {
    ...outcome(
      CODE.serverConnectionError,
      'Server connection error (sandbox scenario 0010): retry with the same requestId',
    ),
    untouched: { requestId: true, orderId: true },
  };
}

export function payOut(world: SandboxWorld, payout: Payout): HandlerOutcome {
  const { request, amount, kind } = payout;
  const transient = transientFailure(world, request, payout.scenario);
  if (transient) return transient;

  const available = world.balances.get('VND');
  if (!world.balances.canDebit('VND', amount))
    return {
      ...outcome(
        CODE.merchantBalanceInsufficient,
        `Merchant balance insufficient: ${available} VND available, ${amount} VND needed`,
        { amount, balance: available },
      ),
      untouched: { orderId: true },
    };

  const orders = kind === 'disbursement' ? world.state.disbursements : world.state.remittances;
  const base = {
    orderId: request.orderId,
    requestId: request.requestId,
    kind,
    amount,
    currency: 'VND' as const,
  };
  const result = singlePaymentOutcome(payout.scenario);

  if (result.kind === 'reject') {
    const ledgerEntry = world.ledger.record({ ...base, outcome: 'failed', resultCode: result.code });
    orders.set(request.orderId, { ...base, resultCode: result.code, status: 'failed', ledgerEntry });
    return outcome(result.code, undefined, { amount, balance: available });
  }

  world.balances.debit('VND', amount);
  const transId = world.nextTransId();
  const balance = world.balances.get('VND');
  const pendingCode =
    result.kind === 'pending' ? result.code : payout.awaitCapture ? CODE.processing : undefined;

  if (pendingCode === undefined) {
    const ledgerEntry = world.ledger.record({
      ...base,
      transId,
      outcome: 'succeeded',
      resultCode: CODE.success,
    });
    const order: MoneyOutOrder = {
      ...base,
      transId,
      resultCode: CODE.success,
      status: 'succeeded',
      ledgerEntry,
    };
    orders.set(request.orderId, order);
    notify(world, payout, order);
    return outcome(CODE.success, undefined, { amount, transId, balance });
  }

  const ledgerEntry = world.ledger.record({ ...base, transId, outcome: 'pending', resultCode: pendingCode });
  const order: MoneyOutOrder = { ...base, transId, resultCode: pendingCode, status: 'pending', ledgerEntry };
  orders.set(request.orderId, order);
  const finalCode = result.kind === 'pending' ? result.finalCode : CODE.success;
  world.pending.add(`${kind}:${request.orderId}`, world.config.timing.pendingSettleMs, () => {
    settle(world, payout, order, ledgerEntry, finalCode);
    return 1;
  });
  const message = payout.awaitCapture
    ? 'Authorized (two-step remittance); the sandbox captures it after pendingSettleMs or on admin capture'
    : undefined;
  return outcome(pendingCode, message, { amount, transId, balance });
}

function settle(
  world: SandboxWorld,
  payout: Payout,
  order: MoneyOutOrder,
  entry: LedgerEntry,
  finalCode: number,
): void {
  const succeeded = finalCode === CODE.success;
  if (!succeeded) world.balances.credit('VND', order.amount);
  world.ledger.settle(entry, succeeded ? 'succeeded' : 'failed', finalCode);
  order.status = succeeded ? 'succeeded' : 'failed';
  order.resultCode = finalCode;
  notify(world, payout, order);
}

function notify(world: SandboxWorld, payout: Payout, order: MoneyOutOrder): void {
  const fields = payout.request.fields;
  world.ipn.send({
    kind: payout.notification,
    source: payout.source,
    url: typeof fields.ipnUrl === 'string' ? fields.ipnUrl : undefined,
    fields: {
      partnerCode: world.config.merchant.partnerCode,
      orderId: order.orderId,
      requestId: order.requestId,
      amount: order.amount,
      orderInfo: typeof fields.orderInfo === 'string' ? fields.orderInfo : '',
      transId: order.transId,
      resultCode: order.resultCode,
      message: outcome(order.resultCode).message,
      responseTime: world.now(),
      extraData: typeof fields.extraData === 'string' ? fields.extraData : '',
    },
  });
}
