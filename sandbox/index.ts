/** The gateway sandbox: a stateful simulator of the wallet gateway, built on gateway/'s operation table. */
export { startSandbox, type Sandbox } from './server';
export { generateSandboxKeyPair, loadOrCreateSandboxIdentity, type SandboxIdentity } from './identity';
export type { SandboxAdmin, SandboxInfo } from './admin';
export type { FaultRule, IpnFaultEffects } from './faults';
export type { IpnLogEntry, IpnOutcome } from './ipn';
export type { LedgerEntry, LedgerKind, LedgerOutcome } from './ledger';
export {
  CURRENCIES,
  DEFAULT_BALANCES,
  DEFAULT_TIMING,
  type Currency,
  type MerchantCredentials,
  type RsaKeyPair,
  type SandboxLogger,
  type SandboxOptions,
  type SandboxTiming,
} from './options';
export { ORDER_GROUPS } from './balance-groups';
export { scenarioTable, PENDING_FAILURE_CODE } from './scenarios';
