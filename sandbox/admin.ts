import { z } from 'zod';
import type { OperationName } from '../gateway';
import type { ApprovalOptions, AwaitingSummary, CustomerAnswer } from './customer';
import { amountScenarioTable } from './customer-scenarios';
import { faultRulesSchema, type FaultRule, type ListedFaultRule } from './faults';
import { simulatedOperations } from './handlers';
import { revokeTokens, type RevokeResult } from './handlers/binding';
import { subscriptionSnapshot } from './handlers/subscriptions';
import type { IpnLogEntry } from './ipn';
import type { LedgerEntry } from './ledger';
import type { OtpMessage } from './otp';
import { requestsReceived, type ReceivedRequest } from './request-log';
import { CURRENCIES, isCurrency, type Currency, type SandboxTiming } from './options';
import { scenarioTable } from './scenarios';
import { userOf } from './customer-scenarios';
import type { SandboxWorld } from './world';

/**
 * Control of the running sandbox: the same operations in-process (typed) and over HTTP under
 * `/__sandbox/` (JSON, no authentication: the sandbox binds to loopback).
 */
export interface SandboxAdmin {
  /** Every money movement, one entry per order or batch item (pending ones are updated when they settle). */
  ledger(): LedgerEntry[];
  /** Replaces the fault rules. */
  setFaults(rules: FaultRule | readonly FaultRule[]): void;
  /** Adds rules beside the ones in force (tests that fault several objects at once, by orderIdPrefix). */
  addFaults(rules: FaultRule | readonly FaultRule[]): void;
  clearFaults(): void;
  /** Active rules; `times` shows what is left, `applied` how many events each one changed. */
  faults(): ListedFaultRule[];
  setBalance(currency: Currency, amount: number): void;
  balance(currency: Currency): number;
  balances(): Record<Currency, number>;
  /** Settles every pending transaction now, per its scenario; returns how many settled. */
  settlePending(): { settled: number };
  /** Completes a two-step remittance (autoCapture false) now; false when none is waiting. */
  captureRemittance(orderId: string): boolean;
  ipnLog(): IpnLogEntry[];
  /** Every request received (operation, orderId, requestId), oldest first: sandbox/request-log.ts. */
  requests(): ReceivedRequest[];
  /**
   * The simulated customer approves an order waiting for them (hosted payment, terminal, binding or
   * subscription link, token payment 8000, subscription reactivation). The answer carries the result
   * and the signed redirect URL. Throws when nothing waits under `orderId`.
   */
  approvePayment(orderId: string, options?: ApprovalOptions): CustomerAnswer;
  declinePayment(orderId: string): CustomerAnswer;
  /** Orders waiting for the customer now (expired links are dropped). */
  awaitingCustomer(): AwaitingSummary[];
  /** Turns the simulated customer's automatic approval on or off (until reset()). */
  setAutoApprove(enabled: boolean): void;
  /** Two-factor codes "sent by SMS", oldest first, optionally for one partnerClientId. */
  otpInbox(partnerClientId?: string): OtpMessage[];
  /**
   * The customer removes saved cards (or wallet links) in the app: their tokens are revoked and each
   * card token sends the signed unbind call to the unbind URL (its HTTP status shows in ipnLog()).
   */
  revokeToken(partnerClientId: string, options?: { token?: string }): RevokeResult;
  /** Where unbind calls go (until reset()); undefined = nowhere (logged `skipped`). */
  setUnbindUrl(url: string | undefined): void;
  /** Saved tokens (value, flow, owner, status). */
  tokens(
    partnerClientId?: string,
  ): { value: string; flow: string; partnerClientId: string; initialOrderId: string; status: string }[];
  /** A subscription's state, dates (calculated and sent nextPaymentDate) and failure count. */
  subscription(initialOrderId: string): ReturnType<typeof subscriptionSnapshot>;
  /** Limits a customer's funds (VND; null = plenty again); charges above it answer 1001. */
  setCustomerFunds(partnerClientId: string, amount: number | null): void;
  /** The name a wallet is registered under; a wallet check with another name answers 4003. */
  registerWalletHolder(walletId: string, name: string): void;
  /** State, faults, balances, ledger, IPN log and seeded randomness back to their initial values. */
  reset(): void;
  info(): SandboxInfo;
}

export interface SandboxInfo {
  partnerCode: string;
  timing: SandboxTiming;
  simulated: OperationName[];
  notSimulated: OperationName[];
  scenarios: ReturnType<typeof scenarioTable>;
  /** Documents 1 and 2: what the last four digits of an amount do. */
  amountScenarios: ReturnType<typeof amountScenarioTable>;
  pending: string[];
  awaitingCustomer: string[];
}

export function createAdmin(getWorld: () => SandboxWorld, reset: () => void): SandboxAdmin {
  return {
    ledger: () => getWorld().ledger.entries(),
    setFaults(rules) {
      faultRulesSchema.parse(rules);
      getWorld().faults.set(rules);
    },
    addFaults(rules) {
      faultRulesSchema.parse(rules);
      getWorld().faults.add(rules);
    },
    clearFaults: () => getWorld().faults.clear(),
    faults: () => getWorld().faults.list(),
    setBalance(currency, amount) {
      if (!isCurrency(currency)) throw new TypeError(`unknown currency ${String(currency)}`);
      if (!Number.isFinite(amount) || amount < 0) throw new TypeError('a balance is a number ≥ 0');
      getWorld().balances.set(currency, amount);
    },
    balance: (currency) => getWorld().balances.get(currency),
    balances: () => getWorld().balances.all(),
    settlePending: () => ({ settled: getWorld().pending.settleAll() }),
    captureRemittance: (orderId) => getWorld().pending.settleNow(`remittance:${orderId}`),
    ipnLog: () => getWorld().ipn.log(),
    requests: () => requestsReceived(getWorld()),
    approvePayment(orderId, options) {
      const answer = getWorld().customer.approve(orderId, options);
      if (!answer) throw new NotWaitingError(orderId);
      return answer;
    },
    declinePayment(orderId) {
      const answer = getWorld().customer.decline(orderId);
      if (!answer) throw new NotWaitingError(orderId);
      return answer;
    },
    awaitingCustomer: () => getWorld().customer.list(),
    setAutoApprove: (enabled) => void (getWorld().settings.autoApprove = enabled),
    otpInbox: (partnerClientId) => getWorld().otp.inbox(partnerClientId),
    revokeToken: (partnerClientId, options = {}) => revokeTokens(getWorld(), partnerClientId, options.token),
    setUnbindUrl: (url) => void (getWorld().settings.unbindUrl = url),
    tokens: (partnerClientId) =>
      [...getWorld().state.tokens.values()]
        .filter((token) => partnerClientId === undefined || token.partnerClientId === partnerClientId)
        .map(({ value, flow, partnerClientId: owner, initialOrderId, status }) => ({
          value,
          flow,
          partnerClientId: owner,
          initialOrderId,
          status,
        })),
    subscription: (initialOrderId) => subscriptionSnapshot(getWorld(), initialOrderId),
    registerWalletHolder: (walletId, name) => void getWorld().settings.walletHolders.set(walletId, name),
    setCustomerFunds(partnerClientId, amount) {
      if (amount !== null && (!Number.isFinite(amount) || amount < 0))
        throw new TypeError('funds are a number ≥ 0');
      const { customerFunds } = getWorld().state;
      const user = userOf(partnerClientId).user;
      if (amount === null) customerFunds.delete(user);
      else customerFunds.set(user, amount);
    },
    reset,
    info() {
      const world = getWorld();
      return {
        partnerCode: world.config.merchant.partnerCode,
        timing: world.config.timing,
        ...simulatedOperations(),
        scenarios: scenarioTable(),
        amountScenarios: amountScenarioTable(),
        pending: world.pending.keys(),
        awaitingCustomer: world.customer.list().map((order) => order.orderId),
      };
    },
  };
}

export interface AdminHttpAnswer {
  status: number;
  body: unknown;
}

/** approvePayment / declinePayment for an orderId nothing waits under (HTTP 404). */
export class NotWaitingError extends Error {
  constructor(orderId: string) {
    super(`no order ${orderId} is waiting for the customer (unknown, already answered or expired)`);
    this.name = 'NotWaitingError';
  }
}

const balanceBody = z.strictObject({ amount: z.number().min(0) });
const approvalBody = z
  .strictObject({
    method: z.enum(['wallet', 'credit', 'domestic']).optional(),
    payType: z.string().optional(),
    voucher: z.strictObject({ amount: z.number().int().min(0), name: z.string().optional() }).optional(),
  })
  .optional();
const revokeBody = z.strictObject({ partnerClientId: z.string().min(1), token: z.string().optional() });
const urlBody = z.strictObject({ url: z.string().url().nullable() });
const fundsBody = z.strictObject({ amount: z.number().min(0).nullable() });
const autoApproveBody = z.strictObject({ enabled: z.boolean() });

/** Routes of the HTTP admin API; `path` is relative to `/__sandbox`. */
export function handleAdminRequest(
  admin: SandboxAdmin,
  method: string,
  path: string,
  body: unknown,
  query: URLSearchParams = new URLSearchParams(),
): AdminHttpAnswer {
  const ok = (value: unknown): AdminHttpAnswer => ({ status: 200, body: value });
  const route = `${method} ${path.replace(/\/+$/, '') || '/'}`;
  const balanceMatch = /^\/balances\/([A-Za-z]{3})$/.exec(path);
  const captureMatch = /^\/remittances\/([^/]+)\/capture$/.exec(path);
  const customerMatch = /^\/payments\/([^/]+)\/(approve|decline)$/.exec(path);
  const subscriptionMatch = /^\/subscriptions\/([^/]+)$/.exec(path);
  const fundsMatch = /^\/customers\/([^/]+)\/funds$/.exec(path);
  const partnerClientId = query.get('partnerClientId') ?? undefined;
  try {
    switch (route) {
      case 'GET /':
        return ok(admin.info());
      case 'GET /ledger':
        return ok(admin.ledger());
      case 'GET /ipn-log':
        return ok(admin.ipnLog());
      case 'GET /faults':
        return ok(admin.faults());
      case 'PUT /faults':
        admin.setFaults(faultRulesSchema.parse(body) as FaultRule | FaultRule[]);
        return ok(admin.faults());
      case 'POST /faults':
        admin.addFaults(faultRulesSchema.parse(body) as FaultRule | FaultRule[]);
        return ok(admin.faults());
      case 'DELETE /faults':
        admin.clearFaults();
        return ok([]);
      case 'GET /balances':
        return ok(admin.balances());
      case 'POST /settle-pending':
        return ok(admin.settlePending());
      case 'POST /reset':
        admin.reset();
        return ok({ reset: true });
      case 'GET /customer':
        return ok(admin.awaitingCustomer());
      case 'GET /otp-inbox':
        return ok(admin.otpInbox(partnerClientId));
      case 'GET /tokens':
        return ok(admin.tokens(partnerClientId));
      case 'POST /tokens/revoke': {
        const { partnerClientId: owner, token } = revokeBody.parse(body);
        return ok(admin.revokeToken(owner, token === undefined ? {} : { token }));
      }
      case 'PUT /unbind-url': {
        const { url } = urlBody.parse(body);
        admin.setUnbindUrl(url ?? undefined);
        return ok({ url });
      }
      case 'PUT /auto-approve': {
        const { enabled } = autoApproveBody.parse(body);
        admin.setAutoApprove(enabled);
        return ok({ enabled });
      }
    }
    if (customerMatch && method === 'POST') {
      const orderId = decodeURIComponent(customerMatch[1]!);
      return ok(
        customerMatch[2] === 'approve'
          ? admin.approvePayment(orderId, approvalBody.parse(body) ?? {})
          : admin.declinePayment(orderId),
      );
    }
    if (subscriptionMatch && method === 'GET') {
      const found = admin.subscription(decodeURIComponent(subscriptionMatch[1]!));
      return found ? ok(found) : { status: 404, body: { error: 'no such subscription' } };
    }
    if (fundsMatch && (method === 'PUT' || method === 'POST')) {
      const owner = decodeURIComponent(fundsMatch[1]!);
      const { amount } = fundsBody.parse(body);
      admin.setCustomerFunds(owner, amount);
      return ok({ partnerClientId: owner, amount });
    }
    if (balanceMatch) {
      const currency = balanceMatch[1]!.toUpperCase();
      if (!isCurrency(currency))
        return { status: 404, body: { error: `unknown currency; one of ${CURRENCIES.join(', ')}` } };
      if (method === 'GET') return ok({ currency, amount: admin.balance(currency) });
      if (method === 'PUT' || method === 'POST') {
        admin.setBalance(currency, balanceBody.parse(body).amount);
        return ok({ currency, amount: admin.balance(currency) });
      }
    }
    if (captureMatch && method === 'POST') {
      const orderId = decodeURIComponent(captureMatch[1]!);
      return admin.captureRemittance(orderId)
        ? ok({ captured: orderId })
        : { status: 404, body: { error: `no remittance ${orderId} is waiting for capture` } };
    }
    return { status: 404, body: { error: `no admin route ${route}; see sandbox/README.md` } };
  } catch (error) {
    if (error instanceof NotWaitingError) return { status: 404, body: { error: error.message } };
    const message = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
    return { status: 400, body: { error: message } };
  }
}
