import type { Knex } from 'knex';
import * as stackChecks from './20261122_0001_stack_checks';
import * as apiKeys from './20261122_0002_api_keys_and_idempotency';
import * as payouts from './20261122_0003_payouts';
import * as remittances from './20261122_0004_remittances';
import * as subscriptions from './20261122_0005_subscriptions';
import * as tokens from './20261122_0007_tokens';
import * as payments from './20261122_0006_payments';
import * as paymentConfirmations from './20261122_0008_payment_confirmations';
import * as eventsAndWebhooks from './20261123_0009_events_and_webhooks';
import * as ipnSignalClaims from './20261123_0010_ipn_signal_claims';
import * as auditLog from './20261123_0011_audit_log';
import * as ipnSignedFields from './20261123_0012_ipn_signed_fields';
import * as resumableCreates from './20261124_0013_resumable_creates';
import * as reportedAmounts from './20261124_0014_subscription_reported_amounts';
import * as savedMethodNames from './20261124_0015_saved_method_names';
import * as gatewayOrderIds from './20261125_0016_gateway_order_ids';
import * as ipnRelay from './20261125_0017_ipn_relay';
import * as auditEntriesCompleted from './20261126_0018_audit_entries_completed';
import * as approvals from './20261126_0019_approvals';
import * as approvalPolicyVersions from './20261126_0020_approval_policy_versions';
import * as holds from './20261126_0021_holds';
import * as scheduledRuns from './20261127_0022_scheduled_runs';
import * as runRetriesAndItemEvents from './20261127_0023_run_retries_and_item_events';
import * as payeesAndBalanceWatch from './20261127_0024_payees_and_balance_watch';
import * as plansAndPriceChanges from './20261127_0026_plans_and_price_changes';
import * as dunningAndNotices from './20261127_0027_dunning_and_notices';
import * as identity from './20261127_0028_identity';
import * as payoutSchedules from './20261127_0029_payout_schedules';
import * as planDunning from './20261127_0030_plan_dunning';
import * as identityRecheck from './20261127_0031_identity_recheck';
import * as notificationInbox from './20261127_0032_notification_inbox';
import * as planPriceChangeRuns from './20261127_0034_plan_price_change_runs';
import * as billingRuns from './20261127_0035_billing_runs';
import * as billingRunScope from './20261127_0036_billing_run_scope';
import * as approvalDayTotals from './20261130_0037_approval_day_totals';
import * as disbursementDesk from './20261130_0038_disbursement_desk';
import * as paymentDesk from './20261130_0039_payment_desk';
import * as subscriptionDesk from './20261130_0040_subscription_desk';
import * as billingRunDays from './20261130_0041_billing_run_days';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** In order of application; append, never reorder or edit an applied migration. */
export const migrations: Migration[] = [
  { name: '20261122_0001_stack_checks', ...stackChecks },
  { name: '20261122_0002_api_keys_and_idempotency', ...apiKeys },
  { name: '20261122_0003_payouts', ...payouts },
  { name: '20261122_0004_remittances', ...remittances },
  { name: '20261122_0005_subscriptions', ...subscriptions },
  { name: '20261122_0006_payments', ...payments },
  { name: '20261122_0007_tokens', ...tokens },
  { name: '20261122_0008_payment_confirmations', ...paymentConfirmations },
  { name: '20261123_0009_events_and_webhooks', ...eventsAndWebhooks },
  { name: '20261123_0010_ipn_signal_claims', ...ipnSignalClaims },
  { name: '20261123_0011_audit_log', ...auditLog },
  { name: '20261123_0012_ipn_signed_fields', ...ipnSignedFields },
  { name: '20261124_0013_resumable_creates', ...resumableCreates },
  { name: '20261124_0014_subscription_reported_amounts', ...reportedAmounts },
  { name: '20261124_0015_saved_method_names', ...savedMethodNames },
  { name: '20261125_0016_gateway_order_ids', ...gatewayOrderIds },
  { name: '20261125_0017_ipn_relay', ...ipnRelay },
  { name: '20261126_0018_audit_entries_completed', ...auditEntriesCompleted },
  { name: '20261126_0019_approvals', ...approvals },
  { name: '20261126_0020_approval_policy_versions', ...approvalPolicyVersions },
  { name: '20261126_0021_holds', ...holds },
  { name: '20261127_0022_scheduled_runs', ...scheduledRuns },
  { name: '20261127_0023_run_retries_and_item_events', ...runRetriesAndItemEvents },
  { name: '20261127_0024_payees_and_balance_watch', ...payeesAndBalanceWatch },
  { name: '20261127_0026_plans_and_price_changes', ...plansAndPriceChanges },
  { name: '20261127_0027_dunning_and_notices', ...dunningAndNotices },
  { name: '20261127_0028_identity', ...identity },
  { name: '20261127_0029_payout_schedules', ...payoutSchedules },
  { name: '20261127_0030_plan_dunning', ...planDunning },
  { name: '20261127_0031_identity_recheck', ...identityRecheck },
  { name: '20261127_0032_notification_inbox', ...notificationInbox },
  { name: '20261127_0034_plan_price_change_runs', ...planPriceChangeRuns },
  { name: '20261127_0035_billing_runs', ...billingRuns },
  { name: '20261127_0036_billing_run_scope', ...billingRunScope },
  { name: '20261130_0037_approval_day_totals', ...approvalDayTotals },
  { name: '20261130_0038_disbursement_desk', ...disbursementDesk },
  { name: '20261130_0039_payment_desk', ...paymentDesk },
  { name: '20261130_0040_subscription_desk', ...subscriptionDesk },
  { name: '20261130_0041_billing_run_days', ...billingRunDays },
];
