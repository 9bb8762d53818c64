import type { Config } from '../../platform/config';
import { DEFAULT_SUBSCRIPTION_TIMING, type SubscriptionTiming } from '../../contracts/subscriptions';

export interface SubscriptionSettings {
  taskQueue: string;
  timing: SubscriptionTiming;
  /** How long POST /v1/subscriptions waits for the gateway's links before answering without them. */
  linksWaitMs?: number;
  /** Benchmark comparison only (STEPS_AS_QUEUED_ACTIVITIES): SubscriptionInput.queuedSteps. */
  queuedSteps?: boolean;
  /**
   * SUBSCRIPTION_DESK: new subscriptions' authorization starts are made in chunks by one long-lived workflow, and
   * each subscription's workflow starts at its customer's answer (docs/subscriptions.md, "The subscription desk").
   */
  desk?: boolean;
}

export function subscriptionSettingsFrom(config: Config, taskQueue: string): SubscriptionSettings {
  return {
    taskQueue,
    timing: {
      ...DEFAULT_SUBSCRIPTION_TIMING,
      billingHourGmt7: config.SUBSCRIPTION_BILLING_HOUR,
      insufficientFundsRetryDelay: `${config.SUBSCRIPTION_RETRY_DELAY_HOURS} hours`,
      ...(byBillingRun(config) && {
        billingRunGrace: `${config.SUBSCRIPTION_RUN_GRACE_MINUTES} minutes`,
      }),
    },
    ...(config.STEPS_AS_QUEUED_ACTIVITIES && { queuedSteps: true }),
    // The design before it (the benchmark's comparisons) starts each subscription's workflow at its create.
    desk: config.SUBSCRIPTION_DESK && !config.STEPS_AS_QUEUED_ACTIVITIES,
  };
}

/**
 * The billing run charges from its chunk, outside the subscription.pay queue whose rate limit spreads a
 * billing day: with that limit set, each workflow keeps charging itself on that queue, spread as configured.
 */
const byBillingRun = (config: Config) =>
  config.SUBSCRIPTION_BILLING_PATH === 'run' && config.GATEWAY_RATE_LIMITS['subscription.pay'] === undefined;
