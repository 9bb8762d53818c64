// Every workflow the worker registers. Workflow files import only @temporalio/workflow, types and pure code.
export { stackCheck } from './stack-check';
export { payoutRun } from './payout-run';
export { payoutBatch } from './payout-batch';
export { remittance, remittanceQuote } from './remittance';
export { disbursement } from './disbursement';
