// Every workflow the worker registers. Workflow files import only @temporalio/workflow, types and pure code.
export { stackCheck } from './shared/stack-check';
export { payoutRun } from './payouts/payout-run';
export { payoutBatch } from './payouts/payout-batch';
export { remittance, remittanceQuote } from './remittances/remittance';
export { disbursement } from './payouts/disbursement';
export { disbursementDesk } from './payouts/disbursement-desk';
export { payment } from './payments/payment';
export { paymentDesk } from './payments/payment-desk';
export { subscriptionDesk } from './subscriptions/subscription-desk';
export { refund } from './payments/refund';
export { terminalSettlement } from './payments/terminal-settlement';
export { subscription } from './subscriptions/subscription';
export { subscriptionNotice } from './subscriptions/subscription-notice';
export { planPriceChange } from './subscriptions/plan-price-change';
export { billingRun } from './subscriptions/billing-run';
export { savedMethodBinding, savedMethodDeletion } from './saved-methods/saved-method-binding';
export { savedMethodPayment } from './saved-methods/saved-method-payment';
export { webhookEndpoint, webhookResend } from './events/webhook-endpoint';
export { holdRelease } from './holds/hold-release';
export { payeeCheck } from './payees/payee-check';
export { balanceWatch } from './payouts/balance-watch';
export { merchantBalance } from './payouts/merchant-balance';
export { recurringPayoutOccurrence } from './payouts/recurring-occurrence';

// The same workflows under their former type names, for runs started before the capability was named
// saved methods: a worker must find a run's type to resume it. Nothing starts them any more; remove them once
// no open run has these types (docs/workflow-versioning.md, "Renamed workflow types").
export {
  savedMethodBinding as binding,
  savedMethodDeletion as deleteSavedMethod,
} from './saved-methods/saved-method-binding';
export { savedMethodPayment as tokenPayment } from './saved-methods/saved-method-payment';
