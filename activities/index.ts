import type { GatewayClient } from '../gateway';
import type { Db } from '../db/knex';
import { ipnPaths, paymentReturnPath } from '../platform/ipn-paths';
import { createDisbursementActivities } from './disbursement';
import { createPaymentActivities } from './payments';
import { createPayoutActivities } from './payouts';
import { createRemittanceActivities } from './remittance';
import { createStackCheckActivities } from './stack-check';
import { createSubscriptionActivities, type SubscriptionSecrets } from './subscriptions';
import { createTokenActivities, type TokenSettings } from './tokens';
import { createWebhookActivities, type WebhookDeliverySettings } from './webhooks';

export interface ActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Base URL the gateway uses to reach payrun's notification receivers (from configuration). */
  publicBaseUrl: string;
  /** Merchant secret (aesToken) and the payload codec keyring (tokens at rest); without them subscriptions cannot bill. */
  subscriptionSecrets?: SubscriptionSecrets;
  /** Merchant secret (aesToken) and the payload codec keyring (tokens at rest); without them saved methods fail clearly. */
  savedMethodSecrets?: TokenSettings;
  /**
   * Opens endpoints' signing secrets (the payload codec keyring) and says whether http to loopback is
   * allowed (development). Without it, deliveries are retried with WebhooksNotConfigured until it is set.
   */
  webhooks?: WebhookDeliverySettings;
}

/** All activities, built from their dependencies so tests can hand in their own. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createStackCheckActivities(deps),
    ...createPayoutActivities({ ...deps, batchIpnUrl: `${deps.publicBaseUrl}${ipnPaths.batch}` }),
    ...createRemittanceActivities({
      ...deps,
      remittanceIpnUrl: `${deps.publicBaseUrl}${ipnPaths.remittance}`,
    }),
    ...createSubscriptionActivities({
      ...deps,
      subscriptionIpnUrl: `${deps.publicBaseUrl}${ipnPaths.subscription}`,
      secrets: deps.subscriptionSecrets,
    }),
    ...createDisbursementActivities({
      ...deps,
      disbursementIpnUrl: `${deps.publicBaseUrl}${ipnPaths.disbursement}`,
    }),
    ...createPaymentActivities({
      ...deps,
      paymentIpnUrl: `${deps.publicBaseUrl}${ipnPaths.payment}`,
      cardPaymentIpnUrl: `${deps.publicBaseUrl}${ipnPaths.paymentCard}`,
      paymentReturnUrl: `${deps.publicBaseUrl}${paymentReturnPath}`,
    }),
    ...createTokenActivities({
      ...deps,
      tokenIpnUrl: `${deps.publicBaseUrl}${ipnPaths.tokens}`,
      tokens: deps.savedMethodSecrets,
    }),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
