// Every workflow the worker registers. Workflow files import only @temporalio/workflow, types and pure code.
export { stackCheck } from './stack-check';
export { payoutRun } from './payout-run';
export { payoutBatch } from './payout-batch';
export { remittance, remittanceQuote } from './remittance';
export { disbursement } from './disbursement';
export { payment } from './payment';
export { refund } from './refund';
export { terminalSettlement } from './payment-terminal-settlement';
export { subscription } from './subscription';
export { binding, deleteSavedMethod } from './binding';
export { tokenPayment } from './token-payment';
export { webhookEndpoint, webhookResend } from './webhook-endpoint';
