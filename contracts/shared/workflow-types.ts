/**
 * Every workflow a client starts, by the name the worker registers it under, with its signature. The
 * API starts workflows through `startWorkflow` (api/workflow-starts.ts), so a misspelt name or
 * wrong arguments fail to compile; test/unit/workflow-definitions.test.ts checks that workflows/index.ts
 * registers each name with this signature.
 */
import type { BindingInput, BindingResult, SavedMethodDeletionInput } from '../saved-methods/bindings';
import type { DisbursementInput, DisbursementResult } from '../payouts/disbursements';
import type { DisbursementDeskInput } from '../payouts/disbursement-desk';
import type { PaymentInput, PaymentResult } from '../payments/payments';
import type { PaymentDeskInput } from '../payments/payment-desk';
import type { PayoutBatchInput, PayoutBatchResult, PayoutRunInput, RunStatus } from '../payouts/runs';
import type { RefundInput, RefundOutcome } from '../payments/refunds';
import type { BaseCurrency, RemittanceInput, RemittanceStatus } from '../remittances/remittances';
import type { SubscriptionInput, SubscriptionView } from '../subscriptions/subscriptions';
import type { NoticeOutcome, NoticeRequest } from '../subscriptions/notices';
import type { PlanPriceChangeInput, PlanPriceChangeProgress } from '../subscriptions/price-changes';
import type { BillingRunInput, BillingRunSummary } from '../subscriptions/billing-runs';
import type { SubscriptionDeskInput } from '../subscriptions/subscription-desk';
import type { TerminalSettlementInput, TerminalSettlementResult } from '../payments/terminal-settlements';
import type { SavedMethodPaymentInput, SavedMethodPaymentSnapshot } from '../saved-methods/payments';
import type { WebhookEndpointInput, WebhookResendInput } from '../events/webhooks';
import type { HoldReleaseInput } from '../holds/holds';
import type { PayeeCheckInput, WalletCheckOutcome } from '../payees/payees';
import type { BalanceWatchInput } from '../payouts/balance-watch';
import type { RecurringOccurrenceInput, RecurringOccurrenceResult } from '../payouts/recurring';

export interface StartableWorkflows {
  payoutRun: (input: PayoutRunInput) => Promise<RunStatus>;
  payoutBatch: (input: PayoutBatchInput) => Promise<PayoutBatchResult>;
  disbursement: (input: DisbursementInput) => Promise<DisbursementResult>;
  disbursementDesk: (input: DisbursementDeskInput) => Promise<never>;
  remittance: (input: RemittanceInput) => Promise<RemittanceStatus>;
  remittanceQuote: (input: { baseCurrency: BaseCurrency }) => Promise<{ rate: number }>;
  payment: (input: PaymentInput) => Promise<PaymentResult>;
  paymentDesk: (input: PaymentDeskInput) => Promise<never>;
  refund: (input: RefundInput) => Promise<RefundOutcome>;
  terminalSettlement: (input: TerminalSettlementInput) => Promise<TerminalSettlementResult>;
  subscription: (input: SubscriptionInput) => Promise<SubscriptionView>;
  subscriptionDesk: (input: SubscriptionDeskInput) => Promise<never>;
  subscriptionNotice: (input: NoticeRequest) => Promise<NoticeOutcome>;
  planPriceChange: (input: PlanPriceChangeInput) => Promise<PlanPriceChangeProgress>;
  billingRun: (input: BillingRunInput) => Promise<BillingRunSummary>;
  savedMethodBinding: (input: BindingInput) => Promise<BindingResult>;
  savedMethodDeletion: (
    input: SavedMethodDeletionInput,
  ) => Promise<{ status: 'deleted'; resultCode: number; message: string }>;
  savedMethodPayment: (input: SavedMethodPaymentInput) => Promise<SavedMethodPaymentSnapshot>;
  webhookEndpoint: (input: WebhookEndpointInput) => Promise<'deleted' | 'disabled'>;
  webhookResend: (input: WebhookResendInput) => Promise<'delivered' | 'skipped'>;
  holdRelease: (input: HoldReleaseInput) => Promise<{ signalled: number }>;
  payeeCheck: (input: PayeeCheckInput) => Promise<WalletCheckOutcome>;
  balanceWatch: (input: BalanceWatchInput) => Promise<void>;
  merchantBalance: (input: Record<string, never>) => Promise<{ balance: number; asOf: string }>;
  recurringPayoutOccurrence: (input: RecurringOccurrenceInput) => Promise<RecurringOccurrenceResult>;
}

export type StartableWorkflowName = keyof StartableWorkflows;
