/** The gateway sandbox: a stateful simulator of the wallet gateway, built on gateway/'s operation table. */
export { startSandbox, type Sandbox } from './server';
export { generateSandboxKeyPair, loadOrCreateSandboxIdentity, type SandboxIdentity } from './identity';
export { NotWaitingError, type SandboxAdmin, type SandboxInfo } from './admin';
export type { ApprovalOptions, AwaitingSummary, CustomerAnswer, CustomerStep } from './customer';
export { amountScenarioTable, POOR_CUSTOMER_MARKER } from './customer-scenarios';
export type { RevokeResult } from './handlers/binding';
export { OTP_RULES, type OtpMessage } from './otp';
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
