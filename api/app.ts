import express, { type Express } from 'express';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { auditRoutes } from './audit/routes';
import { authenticate, requireRoles } from './auth/authenticate';
import type { Role } from './auth/roles';
import { createCodecRouter } from './codec-router';
import { consoleRoutes, type ConsoleSettings } from './console/routes';
import type { Db } from '../db/shared/knex';
import type { Logger } from '../platform/logger';
import { CONFIG_DEFAULTS, ConfigError } from '../platform/config';
import { ApiError, errorHandler } from './http/errors';
import { observeRequests } from './http/observability';
import { securityHeaders } from './http/security-headers';
import { RateLimits, type RateLimitSettings } from './http/rate-limits';
import { buildOpenApiDocument, renderDocsPage } from './http/openapi';
import { mountRoutes, withFormerPaths, type AnyRoute } from './http/routes';
import { systemRoutes } from './routes/system';
import type { ApiSettings } from './settings';
import type { SigningKeys } from '../gateway';
import type { TrustedProxies } from '../platform/trusted-proxies';
import { ipnRoute } from './ipn/receiver';
import type { NotificationChannel } from './ipn/channel';
import { createNotificationRelay, type NotificationRelay } from './ipn/relay';
import { batchNotifications, disbursementNotifications } from './payouts/notifications';
import { payoutRunRoutes } from './payouts/routes';
import { payoutScheduleRoutes } from './payouts/schedule-routes';
import { remittanceNotifications } from './remittances/notifications';
import { remittanceRoutes } from './remittances/routes';
import { disbursementRoutes } from './payouts/disbursement-routes';
import { disbursementDesk, type DisbursementDesk } from './payouts/disbursement-desk';
import { approvalRoutes } from './approvals/routes';
import { holdRoutes } from './holds/routes';
import { reportRoutes } from './reports/routes';
import { payeeRoutes } from './payees/routes';
import { balanceThresholdRoutes } from './payouts/balance-routes';
import { approvalPolicyRoutes } from './approvals/policy-routes';
import { approvalPolicyReader } from './approvals/policy-reader';
import { subscriptionRoutes } from './subscriptions/routes';
import { planRoutes } from './subscriptions/plan-routes';
import { planOverviewRoutes } from './subscriptions/plan-overview-routes';
import { subscriptionNotifications } from './subscriptions/notifications';
import { dunningRoutes } from './subscriptions/dunning-routes';
import { devMailRoutes, type DevMailbox } from './subscriptions/dev-mail-routes';
import { createNoticeRequestRelay } from './subscriptions/notice-requests';
import { paymentRoutes } from './payments/routes';
import { paymentAnswersOf, paymentDesk } from './payments/payment-desk';
import { subscriptionAnswersOf, subscriptionDesk } from './subscriptions/subscription-desk';
import { cardPaymentNotifications, paymentNotifications } from './payments/notifications';
import { savedMethodRoutes } from './saved-methods/routes';
import { savedMethodNotifications, unbindNotifications } from './saved-methods/notifications';
import { customerRoutes } from './customers/routes';
import { eventRoutes } from './events/event-routes';
import { webhookRoutes } from './events/webhook-routes';
import type { WebhookSettings } from './events/webhook-settings';
import { authRoutes } from './identity/auth-routes';
import { codecGuard } from './identity/codec-guard';
import { payloadsFor } from './identity/payload-view';
import { peopleRoutes } from './identity/people-routes';
import type { ProviderClient } from './identity/provider-client';
import type { IdentitySettings } from './identity/settings';
import { keyOwnerSweep, sessionRecheck } from './identity/recheck';
import type { CodecKeyring } from '../platform/payload-codec';

export interface ApiDependencies extends ApiSettings {
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Limit of JSON request bodies. */
  jsonLimit?: string;
  /** The merchant's credentials: notifications are verified with them. */
  merchant: SigningKeys & { partnerCode: string };
  /**
   * The payload codec's keyring: seals what a record holds in a workflow input's stead (a desk payout's
   * receiver, DISBURSEMENT_DESK). Required when the desk is on; the API refuses to start without it.
   */
  keyring?: CodecKeyring;
  /** Serves /codec/decode for the Temporal UI and CLI (and refuses /codec/encode to everyone). */
  codec?: {
    codec: PayloadCodec;
    /** Origin(s) of the Temporal UI. */
    allowedOrigins: string[];
    /**
     * `npm run dev` only: the embedded UI cannot send a key, so it is given `/codec/<uiToken>` instead
     * (an unguessable path segment only the operator's UI knows). Unset: keys only.
     */
    uiToken?: string;
  };
  /** Per address, per key, auth-failure and notification limits (`rateLimitSettingsFrom(config)`); unset: no limits. */
  rateLimits?: RateLimitSettings;
  /** TRUSTED_PROXIES: the proxies whose X-Forwarded-For names the client; unset: the header is ignored. */
  trustedProxies?: TrustedProxies;
  /**
   * Webhook endpoints (task queue, delivery timing, the keyring sealing signing secrets, the URL policy);
   * without it the webhook-endpoint routes answer 503 webhooks_not_configured. The events API needs nothing.
   */
  webhooks?: WebhookSettings;
  /**
   * People sign in through this OpenID Connect provider (console sessions; the Temporal UI's access tokens
   * at the codec); unset: API keys only.
   */
  identity?: { settings: IdentitySettings; provider: ProviderClient; keyring: CodecKeyring };
  /** The finance console's links to workflows; without it the console shows none. */
  console?: ConsoleSettings;
  /** The dev mail catcher (npm run dev, npm run cluster): mounts GET /v1/dev/mail; absent, no such route. */
  devMailbox?: DevMailbox;
  /**
   * The clock of rules counted per day (OTP codes and SMS). Workflows record those attempts in workflow
   * time, so a deployment leaves it at the wall clock and a time-skipping test passes its own.
   */
  now?: () => number;
}

/**
 * Decoding for an API key shows a payload whole: a receiver's wallet and name, a customer's id, OTP codes,
 * callback tokens, with none of the masking the API applies per role (api/http/masking.ts). So a key decodes
 * only as an admin; any other key is refused 403. People (the Temporal UI's access token, a console session)
 * decode through api/identity/payload-view.ts, masked for their role.
 */
const CODEC_ROLES: readonly Role[] = [];

const API_VERSION = '0.1.0';

/**
 * Every channel of the gateway's notifications, in one list: a receiver is mounted for each, and the relay
 * finds the channel of a stored notification nobody signalled in it. A channel not listed here has no
 * receiver, so none can be forgotten by the relay.
 */
export const NOTIFICATION_CHANNELS: readonly NotificationChannel[] = [
  batchNotifications,
  disbursementNotifications,
  remittanceNotifications,
  subscriptionNotifications,
  paymentNotifications,
  cardPaymentNotifications,
  savedMethodNotifications,
  unbindNotifications,
];

/** Where the gateway posts notifications, former paths included: outside the per-address limit. */
const notificationPaths = (): string[] =>
  NOTIFICATION_CHANNELS.flatMap((channel) => [
    channel.path,
    ...(channel.formerPath ? [channel.formerPath] : []),
  ]);

/** The relay every API process runs beside its routes (`api/build.ts` starts it). */
export function notificationRelay(deps: ApiDependencies): NotificationRelay {
  const relay = createNotificationRelay({
    db: deps.db,
    temporal: deps.temporal,
    logger: deps.logger,
    channels: NOTIFICATION_CHANNELS,
    settings: deps.notifications,
  });
  // Notices other flows ask for ride on the same start and stop, at the same pace.
  const noticeRequests = createNoticeRequestRelay({
    db: deps.db,
    temporal: deps.temporal,
    logger: deps.logger,
    taskQueue: deps.subscriptions.taskQueue,
    intervalMs: deps.notifications.relayIntervalMs,
  });
  // Owners of API keys are confirmed at the provider on the same start and stop.
  const keyOwners = deps.identity && keyOwnerSweep({ db: deps.db, logger: deps.logger, ...deps.identity });
  return {
    sweep: relay.sweep,
    start: () => {
      relay.start();
      noticeRequests.start();
      keyOwners?.start();
    },
    stop: async () => {
      await Promise.all([relay.stop(), noticeRequests.stop(), keyOwners?.stop()]);
    },
  };
}

/**
 * What an API process listens for beside its requests, started when it listens and stopped when it closes,
 * whether or not it runs the relay: the payment desk's announcements of answered creates (PAYMENT_DESK).
 */
export function apiListeners(deps: ApiDependencies): { start(): void; stop(): Promise<void> } {
  const answers = [
    ...(deps.payments.desk ? [paymentAnswersOf(deps.db)] : []),
    ...(deps.subscriptions.desk ? [subscriptionAnswersOf(deps.db)] : []),
  ];
  return {
    start: () => answers.forEach((each) => each.start(deps.logger)),
    stop: async () => {
      await Promise.all(answers.map((each) => each.stop()));
    },
  };
}

/** Every route the API serves, in one list: mounting, OpenAPI and the access tests all read it. */
/** The disbursement desk when DISBURSEMENT_DESK is on (api/payouts/disbursement-desk.ts). */
function deskOf(deps: ApiDependencies): DisbursementDesk | undefined {
  const { disbursement, taskQueue, timing } = deps.payouts;
  if (!disbursement.desk) return undefined;
  if (!deps.keyring)
    throw new ConfigError(
      'DISBURSEMENT_DESK: the desk seals receivers with the payload codec keyring, which is not configured',
    );
  return disbursementDesk(
    deps.temporal,
    taskQueue,
    {
      gatewayAttemptTimeout: String(timing.gatewayAttemptTimeout),
      resultWait: disbursement.resultWait,
      ipnTimeout: disbursement.ipnTimeout,
    },
    deps.keyring,
  );
}

export function apiRoutes(deps: ApiDependencies, limits?: RateLimits): AnyRoute[] {
  const routes: AnyRoute[] = [];
  const docs = {
    openApi: () => buildOpenApiDocument(routes, API_VERSION),
    page: () => renderDocsPage(routes),
  };
  routes.push(...systemRoutes(deps, docs));
  // One reader per process: an approval in this process invalidates what every create path reads.
  const approvalPolicies = approvalPolicyReader({ db: deps.db, configured: deps.approvals.policy });
  routes.push(
    ...payoutRunRoutes(
      {
        db: deps.db,
        temporal: deps.temporal,
        settings: deps.payouts,
        signDecision: deps.decisions.sign,
        approvalPolicies,
      },
      {
        limit: deps.payouts.uploadLimit,
        concurrency: deps.payouts.uploadConcurrency ?? CONFIG_DEFAULTS.PAYOUT_UPLOAD_CONCURRENCY,
      },
    ),
  );
  routes.push(
    ...payoutScheduleRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings: deps.payouts,
      signDecision: deps.decisions.sign,
      approvalPolicies,
    }),
  );
  routes.push(
    ...disbursementRoutes({
      db: deps.db,
      temporal: deps.temporal,
      taskQueue: deps.payouts.taskQueue,
      gatewayAttemptTimeout: String(deps.payouts.timing.gatewayAttemptTimeout),
      ...deps.payouts.disbursement,
      desk: deskOf(deps),
      approvalPolicies,
    }),
  );
  routes.push(
    ...approvalRoutes({ db: deps.db, temporal: deps.temporal, signDecision: deps.decisions.sign }),
    ...approvalPolicyRoutes({ db: deps.db, configured: deps.approvals.policy, policies: approvalPolicies }),
  );
  routes.push(
    ...holdRoutes({
      db: deps.db,
      temporal: deps.temporal,
      taskQueue: deps.payouts.taskQueue,
      signDecision: deps.decisions.sign,
    }),
  );
  routes.push(...payeeRoutes({ db: deps.db, temporal: deps.temporal, taskQueue: deps.payouts.taskQueue }));
  routes.push(
    ...balanceThresholdRoutes({
      db: deps.db,
      temporal: deps.temporal,
      taskQueue: deps.payouts.taskQueue,
      intervalSeconds: deps.payouts.balanceWatchIntervalSeconds,
    }),
  );
  routes.push(
    ...remittanceRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings: deps.remittance,
      approvalPolicies,
    }),
  );
  const subscriptionDeps = {
    db: deps.db,
    temporal: deps.temporal,
    settings: deps.subscriptions,
    customerKeyOf: deps.customers.keyOf,
    ...(deps.subscriptions.desk && {
      desk: subscriptionDesk(
        deps.temporal,
        deps.db,
        deps.subscriptions.taskQueue,
        deps.subscriptions.timing.authorizationIpnWait,
      ),
    }),
  };
  routes.push(...subscriptionRoutes(subscriptionDeps));
  routes.push(...planRoutes({ ...subscriptionDeps, ...(deps.now && { now: deps.now }) }));
  routes.push(...planOverviewRoutes(subscriptionDeps));
  routes.push(...dunningRoutes(subscriptionDeps));
  if (deps.devMailbox) routes.push(...devMailRoutes(deps.devMailbox));
  routes.push(
    ...paymentRoutes(
      {
        db: deps.db,
        temporal: deps.temporal,
        settings: deps.payments,
        approvalPolicies,
        ...(deps.payments.desk && {
          desk: paymentDesk(deps.temporal, deps.db, deps.payments.taskQueue, deps.payments.payment),
        }),
      },
      deps.merchant,
    ),
  );
  routes.push(
    ...savedMethodRoutes({
      db: deps.db,
      temporal: deps.temporal,
      settings: deps.savedMethods,
      customerKeyOf: deps.customers.keyOf,
      now: deps.now ?? Date.now,
    }),
    ...customerRoutes({ temporal: deps.temporal, customerKeyOf: deps.customers.keyOf }),
  );
  routes.push(...NOTIFICATION_CHANNELS.map((channel) => ipnRoute(channel, { ...deps, limits })));
  routes.push(...eventRoutes(deps));
  routes.push(...webhookRoutes({ db: deps.db, temporal: deps.temporal, settings: deps.webhooks }));
  routes.push(...auditRoutes(deps.db));
  routes.push(...reportRoutes(deps.db));
  routes.push(...peopleRoutes({ db: deps.db, issuer: deps.identity?.settings.issuer }));
  routes.push(...consoleRoutes(deps.console, () => deps.temporal.options.namespace, deps.db));
  return withFormerPaths(routes);
}

export function createApp(deps: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(observeRequests(deps.logger));
  app.use(securityHeaders());
  // Unset: Express's default, the socket's address (X-Forwarded-For is ignored).
  if (deps.trustedProxies !== undefined) app.set('trust proxy', deps.trustedProxies);
  const limits = deps.rateLimits ? new RateLimits(deps.rateLimits) : undefined;
  if (limits) app.use(limits.perAddress(notificationPaths()));
  // A person removed at the provider is found out before their session is read, on this very request.
  if (deps.identity) app.use(sessionRecheck({ db: deps.db, logger: deps.logger, ...deps.identity }));
  if (deps.identity) app.use(authRoutes({ db: deps.db, logger: deps.logger, ...deps.identity }));
  if (deps.codec) {
    // Keys (machines) decode only as admins, whole; people (access token or session) see what their role may.
    const keyCheck = express.Router().use(requireRoles(deps.db, CODEC_ROLES, limits));
    const guard = codecGuard({
      db: deps.db,
      identity: deps.identity,
      keys: keyCheck,
      session: authenticate(deps.db, limits),
      limits,
    });
    app.use(
      createCodecRouter({
        codec: deps.codec.codec,
        allowedOrigin: deps.codec.allowedOrigins,
        authenticate: guard,
        secretPathToken: deps.codec.uiToken,
        view: payloadsFor,
      }),
    );
  }
  const router = express.Router();
  const routes = apiRoutes(deps, limits);
  const methodsAt = allowedMethods(routes);
  // OPTIONS answers the methods the path serves (Express would also list those of a parameter route that
  // merely matches the same text, e.g. GET /v1/payout-runs/:runId for /v1/payout-runs/dry-run).
  app.use((req, res, next) => {
    const allowed = methodsAt(req.path);
    if (!allowed.length) return next();
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allowed.join(', '));
      res.status(204).end();
      return;
    }
    // A path written out in full (`/v1/payout-runs/dry-run`) asked with another method is 405, before a
    // parameter route (GET /v1/payout-runs/:runId) takes it for an id.
    if (!allowed.includes(req.method) && methodsAt.literal(req.path)) {
      res.setHeader('Allow', allowed.join(', '));
      throw new ApiError(
        'method_not_allowed',
        `${req.method} is not served at ${req.path}; use ${allowed.join(' or ')} (see /docs).`,
      );
    }
    next();
  });
  mountRoutes(router, routes, { db: deps.db, jsonLimit: deps.jsonLimit ?? '100kb', limits });
  app.use(router);
  app.use((req, res) => {
    // A path payrun serves, asked with a method it does not: 405 with the methods it does (Allow).
    const allowed = methodsAt(req.path);
    if (allowed.length) {
      res.setHeader('Allow', allowed.join(', '));
      throw new ApiError(
        'method_not_allowed',
        `${req.method} is not served at ${req.path}; use ${allowed.join(' or ')} (see /docs).`,
      );
    }
    throw new ApiError('route_not_found', `No endpoint ${req.method} ${req.path}; see /docs.`);
  });
  app.use(errorHandler());
  return app;
}

/**
 * The methods each route path answers (HEAD with GET), as a lookup from a request path; a path written
 * out in full (`/v1/payout-runs/dry-run`) takes precedence over a parameter route matching the same text.
 */
function allowedMethods(routes: readonly AnyRoute[]): ((path: string) => string[]) & {
  literal(path: string): boolean;
} {
  const byPattern = new Map<string, { pattern: RegExp; literal: boolean; methods: Set<string> }>();
  for (const route of routes) {
    const source = `^${route.path
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`;
    const entry = byPattern.get(source) ?? {
      pattern: new RegExp(source),
      literal: !route.path.includes(':'),
      methods: new Set<string>(),
    };
    entry.methods.add(route.method.toUpperCase());
    if (route.method === 'get') entry.methods.add('HEAD');
    byPattern.set(source, entry);
  }
  const lookup = (path: string) => {
    const matching = [...byPattern.values()].filter(({ pattern }) => pattern.test(path));
    const literal = matching.filter((entry) => entry.literal);
    const found = new Set<string>();
    for (const { methods } of literal.length ? literal : matching)
      for (const method of methods) found.add(method);
    return [...found].sort();
  };
  return Object.assign(lookup, {
    literal: (path: string) =>
      [...byPattern.values()].some((entry) => entry.literal && entry.pattern.test(path)),
  });
}
