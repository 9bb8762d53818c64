import { z } from 'zod';
import type { OperationName } from '../gateway';
import { faultRulesSchema, type FaultRule } from './faults';
import { simulatedOperations } from './handlers';
import type { IpnLogEntry } from './ipn';
import type { LedgerEntry } from './ledger';
import { CURRENCIES, isCurrency, type Currency, type SandboxTiming } from './options';
import { scenarioTable } from './scenarios';
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
  clearFaults(): void;
  /** Active rules; `times` shows what is left. */
  faults(): FaultRule[];
  setBalance(currency: Currency, amount: number): void;
  balance(currency: Currency): number;
  balances(): Record<Currency, number>;
  /** Settles every pending transaction now, per its scenario; returns how many settled. */
  settlePending(): { settled: number };
  /** Completes a two-step remittance (autoCapture false) now; false when none is waiting. */
  captureRemittance(orderId: string): boolean;
  ipnLog(): IpnLogEntry[];
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
  pending: string[];
}

export function createAdmin(getWorld: () => SandboxWorld, reset: () => void): SandboxAdmin {
  return {
    ledger: () => getWorld().ledger.entries(),
    setFaults(rules) {
      faultRulesSchema.parse(rules);
      getWorld().faults.set(rules);
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
    reset,
    info() {
      const world = getWorld();
      return {
        partnerCode: world.config.merchant.partnerCode,
        timing: world.config.timing,
        ...simulatedOperations(),
        scenarios: scenarioTable(),
        pending: world.pending.keys(),
      };
    },
  };
}

export interface AdminHttpAnswer {
  status: number;
  body: unknown;
}

const balanceBody = z.strictObject({ amount: z.number().min(0) });

/** Routes of the HTTP admin API; `path` is relative to `/__sandbox`. */
export function handleAdminRequest(
  admin: SandboxAdmin,
  method: string,
  path: string,
  body: unknown,
): AdminHttpAnswer {
  const ok = (value: unknown): AdminHttpAnswer => ({ status: 200, body: value });
  const route = `${method} ${path.replace(/\/+$/, '') || '/'}`;
  const balanceMatch = /^\/balances\/([A-Za-z]{3})$/.exec(path);
  const captureMatch = /^\/remittances\/([^/]+)\/capture$/.exec(path);
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
      case 'POST /faults':
        admin.setFaults(faultRulesSchema.parse(body) as FaultRule | FaultRule[]);
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
    const message = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
    return { status: 400, body: { error: message } };
  }
}
