/**
 * Every capability's settings, built from the validated configuration in one place. `api/main.ts`,
 * `npm run dev`, the cluster, the bench harness and the tests all build the API from this, so a setting
 * in the README's table cannot be validated and then ignored by one of them.
 */
import type { Config } from '../platform/config';
import { defaultPaymentSettings, type PaymentSettings } from './payments/payments';
import type { PayoutSettings } from './payouts/payout-runs';
import { payoutSettingsFrom } from './payouts/settings';
import { remittanceSettingsFrom, type RemittanceSettings } from './remittance/settings';
import { subscriptionSettingsFrom, type SubscriptionSettings } from './subscriptions/settings';
import { defaultTokenSettings, type TokenSettings } from './tokens/tokens';

/** All required: an API built without one capability's settings does not compile. */
export interface ApiSettings {
  /** `uploadConcurrency`: payout files parsed at once (one worker thread each); unset: 2. */
  payouts: PayoutSettings & { uploadLimit: string; uploadConcurrency?: number };
  remittance: RemittanceSettings;
  subscriptions: SubscriptionSettings;
  payments: PaymentSettings;
  tokens: TokenSettings;
}

export function apiSettingsFrom(config: Config): ApiSettings {
  const payouts = payoutSettingsFrom(config);
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  return {
    payouts,
    remittance: remittanceSettingsFrom(config),
    subscriptions: subscriptionSettingsFrom(config, taskQueue),
    payments: defaultPaymentSettings(taskQueue),
    tokens: defaultTokenSettings(taskQueue, String(payouts.timing.gatewayAttemptTimeout)),
  };
}
