/**
 * Every capability's settings, built from the validated configuration in one place. `api/main.ts`,
 * `npm run dev`, the cluster, the bench harness and the tests all build the API from this, so a setting
 * in the README's table cannot be validated and then ignored by one of them.
 */
import { ConfigError, hoursAsDuration, type Config } from '../platform/config';
import type { ApprovalPolicy } from '../contracts/approvals';
import { CUSTOMER_KEY_SECRET_VARIABLE, customerKeyer, type CustomerKeyOf } from '../platform/customer-key';
import { requireDecisionKey } from '../platform/require-services';
import { decisionSigner, type SignDecision } from './http/decision-signer';
import { notificationSettingsFrom, type NotificationSettings } from './ipn/settings';
import { defaultPaymentSettings, type PaymentSettings } from './payments/payments';
import type { PayoutSettings } from './payouts/payout-runs';
import { payoutSettingsFrom } from './payouts/settings';
import { remittanceSettingsFrom, type RemittanceSettings } from './remittances/settings';
import { subscriptionSettingsFrom, type SubscriptionSettings } from './subscriptions/settings';
import { defaultSavedMethodSettings, type SavedMethodSettings } from './saved-methods/saved-methods';

/** All required: an API built without one capability's settings does not compile. */
export interface ApiSettings {
  /** `uploadConcurrency`: payout files parsed at once (one worker thread each); unset: PAYOUT_UPLOAD_CONCURRENCY's default. */
  payouts: PayoutSettings & { uploadLimit: string; uploadConcurrency?: number };
  remittance: RemittanceSettings;
  subscriptions: SubscriptionSettings;
  payments: PaymentSettings;
  savedMethods: SavedMethodSettings;
  /** What the PayrunCustomer search attribute holds for a partnerClientId (an HMAC, never the id). */
  customers: { keyOf: CustomerKeyOf };
  /** The gateway's notifications: the claim lease and the relay's pace. */
  notifications: NotificationSettings;
  /** Signs the decisions that move money (DECISION_SIGNING_KEY); workflows act on no other. */
  decisions: { sign: SignDecision };
  /** Who must approve outgoing money, and the daily caps (APPROVAL_POLICY). */
  approvals: { policy: ApprovalPolicy };
}

/** The customer key's secret is required: without it the API would have to put the id itself in visibility. */
export function customerSettingsFrom(config: Config): ApiSettings['customers'] {
  const secret = config.CUSTOMER_KEY_SECRET;
  if (!secret) {
    throw new ConfigError(
      `${CUSTOMER_KEY_SECRET_VARIABLE} is missing: set it to 32 or more random characters ` +
        `(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"); ` +
        'it keys the PayrunCustomer search attribute so that no partnerClientId reaches Temporal visibility.',
    );
  }
  return { keyOf: customerKeyer(secret) };
}

export function apiSettingsFrom(config: Config): ApiSettings {
  const payouts = payoutSettingsFrom(config);
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  return {
    payouts,
    remittance: remittanceSettingsFrom(config),
    subscriptions: subscriptionSettingsFrom(config, taskQueue),
    payments: {
      ...defaultPaymentSettings(taskQueue, hoursAsDuration(config.PAYMENT_RESULT_WAIT_HOURS)),
      ...(config.PAYMENT_ANSWER_BY_POLLING && { answerBy: 'polling' as const }),
      ...(config.STEPS_AS_QUEUED_ACTIVITIES && { queuedSteps: true }),
      // The design before it (the benchmark's comparisons) keeps a workflow for each payment.
      desk: config.PAYMENT_DESK && !config.PAYMENT_ANSWER_BY_POLLING && !config.STEPS_AS_QUEUED_ACTIVITIES,
    },
    savedMethods: defaultSavedMethodSettings(taskQueue, String(payouts.timing.gatewayAttemptTimeout)),
    customers: customerSettingsFrom(config),
    notifications: notificationSettingsFrom(config),
    decisions: { sign: decisionSigner(requireDecisionKey(config, 'API')) },
    approvals: { policy: config.APPROVAL_POLICY },
  };
}
