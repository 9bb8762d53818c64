import type { Config } from '../../platform/config';
import { DEFAULT_SUBSCRIPTION_TIMING, type SubscriptionTiming } from '../../contracts/subscriptions';

export interface SubscriptionSettings {
  taskQueue: string;
  timing: SubscriptionTiming;
  /** How long POST /v1/subscriptions waits for the gateway's links before answering without them. */
  linksWaitMs?: number;
}

export function subscriptionSettingsFrom(config: Config, taskQueue: string): SubscriptionSettings {
  return {
    taskQueue,
    timing: {
      ...DEFAULT_SUBSCRIPTION_TIMING,
      billingHourGmt7: config.SUBSCRIPTION_BILLING_HOUR,
      insufficientFundsRetryDelay: `${config.SUBSCRIPTION_RETRY_DELAY_HOURS} hours`,
    },
  };
}
