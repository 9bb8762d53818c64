/**
 * The sandbox's admin API (`/__sandbox/…`) over HTTP, for scripts that drive a cluster: the customer's
 * side (approvals, OTP inbox), faults, and the ledger that shows what money moved.
 */
import type { LedgerEntry } from '../../sandbox/ledger';
import type { IpnLogEntry } from '../../sandbox/ipn';
import type { FaultRule, ListedFaultRule } from '../../sandbox/faults';
import type { OtpMessage } from '../../sandbox/otp';

export interface SandboxAdminClient {
  call<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
  ledger(): Promise<LedgerEntry[]>;
  ipnLog(): Promise<IpnLogEntry[]>;
  setAutoApprove(enabled: boolean): Promise<void>;
  setFaults(rules: FaultRule[]): Promise<ListedFaultRule[]>;
  faults(): Promise<ListedFaultRule[]>;
  clearFaults(): Promise<void>;
  otpInbox(partnerClientId?: string): Promise<OtpMessage[]>;
}

export function sandboxAdminClient(sandboxUrl: string): SandboxAdminClient {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${sandboxUrl}/__sandbox${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`sandbox ${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    call,
    ledger: () => call<LedgerEntry[]>('GET', '/ledger'),
    ipnLog: () => call<IpnLogEntry[]>('GET', '/ipn-log'),
    setAutoApprove: async (enabled) => void (await call('PUT', '/auto-approve', { enabled })),
    setFaults: (rules) => call<ListedFaultRule[]>('PUT', '/faults', rules),
    faults: () => call<ListedFaultRule[]>('GET', '/faults'),
    clearFaults: async () => void (await call('DELETE', '/faults')),
    otpInbox: (partnerClientId) =>
      call<OtpMessage[]>(
        'GET',
        `/otp-inbox${partnerClientId ? `?partnerClientId=${encodeURIComponent(partnerClientId)}` : ''}`,
      ),
  };
}
