// Every workflow the worker registers. Workflow files import only @temporalio/workflow, types and pure code.
export { stackCheck } from './stack-check';
export { payoutRun } from './payout-run';
export { payoutBatch } from './payout-batch';
export { remittance, remittanceQuote } from './remittance';
export { disbursement } from './disbursement';
export { payment } from './payment';
export { refund } from './refund';
export { terminalSettlement } from './terminal-settlement';
export { subscription } from './subscription';
export { savedMethodBinding, savedMethodDeletion } from './saved-method-binding';
export { savedMethodPayment } from './saved-method-payment';
export { webhookEndpoint, webhookResend } from './webhook-endpoint';

// The same workflows under their former type names, for runs started before the capability was named
// saved methods: a worker must find a run's type to resume it. Nothing starts them any more; remove them once
// no open run has these types (docs/workflow-versioning.md, "Renamed workflow types").
export {
  savedMethodBinding as binding,
  savedMethodDeletion as deleteSavedMethod,
} from './saved-method-binding';
export { savedMethodPayment as tokenPayment } from './saved-method-payment';
