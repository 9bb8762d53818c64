import type { GatewayClient } from '../gateway';
import type { Db } from '../db/shared/knex';
import { ipnPaths, paymentReturnPath } from '../platform/ipn-paths';
import { createApprovalActivities } from './approvals/approvals';
import { createHoldActivities } from './holds/holds';
import { createPayeeActivities } from './payees/payees';
import { createBalanceWatchActivities } from './payouts/balance-watch';
import { createRecurringRunActivities } from './payouts/recurring-runs';
import { createDisbursementActivities } from './payouts/disbursements';
import { createDisbursementDeskActivities } from './payouts/disbursement-desk';
import { createPaymentDeskActivities } from './payments/payment-desk';
import { createPaymentActivities } from './payments/payments';
import { createPayoutActivities } from './payouts/batches';
import { createRemittanceActivities } from './remittances/remittances';
import { createDecisionActivities } from './shared/decision-proofs';
import { createStackCheckActivities } from './shared/stack-check';
import { createSubscriptionActivities, type SubscriptionSecrets } from './subscriptions/subscriptions';
import { createPriceChangeActivities } from './subscriptions/price-changes';
import { createPlanPriceChangeActivities } from './subscriptions/plan-price-changes';
import { createBillingRunActivities } from './subscriptions/billing-runs';
import { createSubscriptionDeskActivities } from './subscriptions/subscription-desk';
import { createActivationActivities } from './subscriptions/activation';
import { createSavedMethodActivities } from './saved-methods/saved-methods';
import { createWebhookActivities, type WebhookDeliverySettings } from './events/webhooks';
import type { NoticeChannel } from '../platform/notice-channel';
import type { ApprovalPolicy } from '../contracts/approvals';

export interface ActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Base URL the gateway uses to reach payrun's notification receivers (from configuration). */
  publicBaseUrl: string;
  /**
   * The merchant secret (aesTokens are AES-encrypted with it) and the payload codec keyring (tokens at
   * rest). Required: subscriptions and saved methods cannot work without them, so a worker built
   * without them must not compile.
   */
  merchantSecrets: SubscriptionSecrets;
  /**
   * Opens endpoints' signing secrets (the payload codec keyring) and says whether http to loopback is
   * allowed (development). Required: every worker delivers webhooks.
   */
  webhooks: WebhookDeliverySettings;
  /**
   * DECISION_SIGNING_KEY: a money decision reaches a workflow with the API's signature, checked with it.
   * Required: a worker that could not check would have to refuse every decision, or take any.
   */
  decisionKey: string;
  /**
   * APPROVAL_POLICY: a schedule's occurrence weighs its run against the daily caps of the policy in effect (an
   * approved version, else this); unset, the default policy. The API reads the same setting.
   */
  approvalPolicy?: ApprovalPolicy;
  /** PAYOUT_AUTO_RESUME_FUNDED: the balance watcher resumes runs waiting for funds it covers (default off). */
  autoResumeFunded?: boolean;
  /** BILLING_RUN_SIGNALS_SUCCESS (benchmark comparison only). */
  billingRunSignalsSuccess?: boolean;
  /** BILLING_RUN_PARALLEL_CHUNKS: the chunks each billing run charges side by side. */
  billingRunParallelChunks?: number;
  /** GATEWAY_RATE_LIMITS' `subscription.pay`: the billing run's chunks space their charges at it. */
  subscriptionPayPerSecond?: number;
  /** Notices to subscribers (SMTP_URL); absent, each notice is recorded failed (docs/when-paged.md). */
  notices?: NoticeChannel;
}

/** All activities, built from their dependencies so tests can hand in their own. */
export function createActivities(deps: ActivityDependencies) {
  const paymentDeps = {
    ...deps,
    paymentIpnUrl: `${deps.publicBaseUrl}${ipnPaths.payment}`,
    cardPaymentIpnUrl: `${deps.publicBaseUrl}${ipnPaths.paymentCard}`,
    paymentReturnUrl: `${deps.publicBaseUrl}${paymentReturnPath}`,
  };
  return {
    ...createStackCheckActivities(deps),
    ...createDecisionActivities(deps),
    ...createPayoutActivities({ ...deps, batchIpnUrl: `${deps.publicBaseUrl}${ipnPaths.batch}` }),
    ...createRemittanceActivities({
      ...deps,
      remittanceIpnUrl: `${deps.publicBaseUrl}${ipnPaths.remittance}`,
    }),
    ...createSubscriptionActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.merchantSecrets,
    }),
    ...createActivationActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.merchantSecrets,
    }),
    ...createSubscriptionDeskActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.merchantSecrets,
    }),
    ...createPriceChangeActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.merchantSecrets,
    }),
    ...createPlanPriceChangeActivities(deps),
    ...createBillingRunActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.merchantSecrets,
    }),
    ...createDisbursementActivities({
      ...deps,
      disbursementIpnUrl: `${deps.publicBaseUrl}${ipnPaths.disbursement}`,
    }),
    ...createDisbursementDeskActivities({
      ...deps,
      disbursementIpnUrl: `${deps.publicBaseUrl}${ipnPaths.disbursement}`,
      keyring: deps.merchantSecrets.keyring,
    }),
    ...createPaymentActivities(paymentDeps),
    ...createPaymentDeskActivities(paymentDeps),
    ...createSavedMethodActivities({
      ...deps,
      savedMethodIpnUrl: `${deps.publicBaseUrl}${ipnPaths.savedMethods}`,
      tokens: deps.merchantSecrets,
    }),
    ...createWebhookActivities(deps),
    ...createRecurringRunActivities(deps),
    ...createApprovalActivities(deps),
    ...createHoldActivities(deps),
    ...createPayeeActivities(deps),
    ...createBalanceWatchActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
