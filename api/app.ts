import express, { type Express } from 'express';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { auditRoutes } from './audit/routes';
import { requireRoles } from './auth/authenticate';
import { createCodecRouter, devCodecAuthenticate } from './codec-router';
import { consoleRoutes, type ConsoleSettings } from './console/routes';
import type { Db } from '../db/knex';
import type { Logger } from '../platform/logger';
import { ApiError, errorHandler } from './http/errors';
import { observeRequests } from './http/observability';
import { buildOpenApiDocument, renderDocsPage } from './http/openapi';
import { mountRoutes, type AnyRoute } from './http/routes';
import { systemRoutes } from './routes/system';
import type { SigningKeys } from '../gateway';
import { ipnRoute } from './ipn/receiver';
import { batchNotifications } from './payouts/batch-notifications';
import type { PayoutSettings } from './payouts/payout-runs';
import { payoutRunRoutes } from './payouts/routes';
import { remittanceNotifications } from './remittance/notifications';
import { remittanceRoutes } from './remittance/routes';
import { defaultRemittanceSettings, type RemittanceSettings } from './remittance/settings';
import { disbursementNotifications, disbursementRoutes } from './disbursements/routes';
import { subscriptionNotifications, subscriptionRoutes } from './subscriptions/routes';
import { defaultSubscriptionSettings, type SubscriptionSettings } from './subscriptions/settings';
import { defaultPaymentSettings, type PaymentSettings } from './payments/payments';
import { cardPaymentNotifications, paymentNotifications, paymentRoutes } from './payments/routes';
import { tokenNotifications, tokenRoutes, unbindNotifications } from './tokens/routes';
import { defaultTokenSettings, type TokenSettings } from './tokens/tokens';

export interface ApiDependencies {
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Limit of JSON request bodies. */
  jsonLimit?: string;
  /** The merchant's credentials: notifications are verified with them. */
  merchant: SigningKeys & { partnerCode: string };
  payouts: PayoutSettings & { uploadLimit: string };
  /** Remittance settings (quote lifetime, waits); unset: the defaults on the payouts task queue. */
  remittance?: RemittanceSettings;
  /** Subscription billing (timing, task queue); unset: the defaults on the payouts task queue. */
  subscriptions?: SubscriptionSettings;
  /** One-time payments and refunds (waits); unset: the defaults on the payouts task queue. */
  payments?: PaymentSettings;
  /** Saved methods and token payments (waits); unset: the defaults on the payouts task queue. */
  tokens?: TokenSettings;
  /** Serves /codec/encode and /codec/decode for the Temporal UI and CLI. */
  codec?: {
    codec: PayloadCodec;
    /** Origin(s) of the Temporal UI. */
    allowedOrigins: string[];
    /** `npm run dev` only: the embedded UI cannot send a key, so its origin on loopback is let through. */
    trustLocalUi?: boolean;
  };
  /** The finance console's links to workflows; without it the console shows none. */
  console?: ConsoleSettings;
}

/** Decoding reveals personal data: operators (viewer) and admins only. */
const CODEC_ROLES = ['viewer'] as const;

const API_VERSION = '0.1.0';

/** Every route the API serves, in one list: mounting, OpenAPI and the access tests all read it. */
export function apiRoutes(deps: ApiDependencies): AnyRoute[] {
  const routes: AnyRoute[] = [];
  const docs = {
    openApi: () => buildOpenApiDocument(routes, API_VERSION),
    page: () => renderDocsPage(routes),
  };
  routes.push(...systemRoutes(deps, docs));
  routes.push(
    ...payoutRunRoutes(
      { db: deps.db, temporal: deps.temporal, settings: deps.payouts },
      deps.payouts.uploadLimit,
    ),
  );
  routes.push(ipnRoute(batchNotifications, deps));
  routes.push(
    ...disbursementRoutes({
      db: deps.db,
      temporal: deps.temporal,
      taskQueue: deps.payouts.taskQueue,
      gatewayAttemptTimeout: String(deps.payouts.timing.gatewayAttemptTimeout),
      resultWait: '1 day',
    }),
    ipnRoute(disbursementNotifications, deps),
  );
  routes.push(
    ...remittanceRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings: deps.remittance ?? defaultRemittanceSettings(deps.payouts.taskQueue),
    }),
    ipnRoute(remittanceNotifications, deps),
  );
  routes.push(
    ...subscriptionRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings: deps.subscriptions ?? defaultSubscriptionSettings(deps.payouts.taskQueue),
    }),
    ipnRoute(subscriptionNotifications, deps),
  );
  routes.push(
    ...paymentRoutes(
      {
        db: deps.db,
        temporal: deps.temporal,
        settings: deps.payments ?? defaultPaymentSettings(deps.payouts.taskQueue),
      },
      deps.merchant,
    ),
    ipnRoute(paymentNotifications, deps),
    ipnRoute(cardPaymentNotifications, deps),
  );
  routes.push(
    ...tokenRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings:
        deps.tokens ??
        defaultTokenSettings(deps.payouts.taskQueue, String(deps.payouts.timing.gatewayAttemptTimeout)),
    }),
    ipnRoute(tokenNotifications, deps),
    ipnRoute(unbindNotifications, deps),
  );
  routes.push(...auditRoutes(deps.db));
  routes.push(...consoleRoutes(deps.console, () => deps.temporal.options.namespace, deps.db));
  return routes;
}

export function createApp(deps: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(observeRequests(deps.logger));
  if (deps.codec) {
    const keyCheck = requireRoles(deps.db, CODEC_ROLES);
    const guard = express.Router().use(keyCheck);
    app.use(
      createCodecRouter({
        codec: deps.codec.codec,
        allowedOrigin: deps.codec.allowedOrigins,
        authenticate: deps.codec.trustLocalUi
          ? devCodecAuthenticate({ allowedOrigin: deps.codec.allowedOrigins, fallback: guard })
          : guard,
      }),
    );
  }
  const router = express.Router();
  mountRoutes(router, apiRoutes(deps), { db: deps.db, jsonLimit: deps.jsonLimit ?? '100kb' });
  app.use(router);
  app.use((req) => {
    throw new ApiError(404, 'route_not_found', `No endpoint ${req.method} ${req.path}; see /docs.`);
  });
  app.use(errorHandler());
  return app;
}
