/**
 * The environment each part of the production shape gets: the same variables docker-compose.yml passes
 * to the same service (a test holds the two together), so `npm run cluster` rehearses the deployed
 * configuration. payrun's processes read nothing else.
 */
import { CONFIG_DEFAULTS } from '../../platform/config';
import { TEMPORAL_UI_CLIENT_ID } from '../../platform/identity/launch';
import type { GatewaySettings } from '../../platform/require-services';

export interface ApiTunables {
  SUBSCRIPTION_BILLING_HOUR: number;
  SUBSCRIPTION_RETRY_DELAY_HOURS: number;
  PAYOUT_IPN_TIMEOUT_SECONDS: number;
  DISBURSEMENT_IPN_TIMEOUT_SECONDS: number;
  DISBURSEMENT_RESULT_WAIT_HOURS: number;
  REMITTANCE_IPN_TIMEOUT_SECONDS: number;
  PAYMENT_RESULT_WAIT_HOURS: number;
  PAYOUT_GATEWAY_ATTEMPT_SECONDS: number;
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: number;
  RATE_LIMIT_PER_KEY_PER_MINUTE: number;
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: number;
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: number;
  RATE_LIMIT_FORGERIES_PER_MINUTE: number;
}

/** The production defaults, read from platform/config.ts (docker-compose.yml passes an unset variable as empty). */
export const DEFAULT_API_TUNABLES: ApiTunables = {
  SUBSCRIPTION_BILLING_HOUR: CONFIG_DEFAULTS.SUBSCRIPTION_BILLING_HOUR,
  SUBSCRIPTION_RETRY_DELAY_HOURS: CONFIG_DEFAULTS.SUBSCRIPTION_RETRY_DELAY_HOURS,
  PAYOUT_IPN_TIMEOUT_SECONDS: CONFIG_DEFAULTS.PAYOUT_IPN_TIMEOUT_SECONDS,
  DISBURSEMENT_IPN_TIMEOUT_SECONDS: CONFIG_DEFAULTS.DISBURSEMENT_IPN_TIMEOUT_SECONDS,
  DISBURSEMENT_RESULT_WAIT_HOURS: CONFIG_DEFAULTS.DISBURSEMENT_RESULT_WAIT_HOURS,
  REMITTANCE_IPN_TIMEOUT_SECONDS: CONFIG_DEFAULTS.REMITTANCE_IPN_TIMEOUT_SECONDS,
  PAYMENT_RESULT_WAIT_HOURS: CONFIG_DEFAULTS.PAYMENT_RESULT_WAIT_HOURS,
  PAYOUT_GATEWAY_ATTEMPT_SECONDS: CONFIG_DEFAULTS.PAYOUT_GATEWAY_ATTEMPT_SECONDS,
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: CONFIG_DEFAULTS.RATE_LIMIT_PER_ADDRESS_PER_MINUTE,
  RATE_LIMIT_PER_KEY_PER_MINUTE: CONFIG_DEFAULTS.RATE_LIMIT_PER_KEY_PER_MINUTE,
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: CONFIG_DEFAULTS.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: CONFIG_DEFAULTS.RATE_LIMIT_NOTIFICATIONS_PER_MINUTE,
  RATE_LIMIT_FORGERIES_PER_MINUTE: CONFIG_DEFAULTS.RATE_LIMIT_FORGERIES_PER_MINUTE,
};

/** What sizes a worker (docs/capacity.md). */
export const WORKER_SETTINGS = [
  'WORKER_CACHED_WORKFLOWS',
  'WORKER_WORKFLOW_TASK_SLOTS',
  'WORKER_ACTIVITY_TASK_SLOTS',
  'WORKER_WORKFLOW_TASK_POLLERS',
  'WORKER_NON_STICKY_POLL_SHARE',
  'BILLING_RUN_PARALLEL_CHUNKS',
] as const;
export type WorkerSetting = (typeof WORKER_SETTINGS)[number];

/** The worker sizes set in `env` (unset and empty ones left out: the workers' defaults apply). */
export const workerSettingsFrom = (env: NodeJS.ProcessEnv): Partial<Record<WorkerSetting, string>> =>
  Object.fromEntries(WORKER_SETTINGS.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));

export interface ClusterEnvironmentInput {
  databaseUrl: string;
  temporalAddress: string;
  logLevel: string;
  codecKeys: string;
  codecKeyId: string;
  gateway: GatewaySettings;
  publicBaseUrl: string;
  apiPort: number;
  /** The relay process's /metrics and /healthz (RELAY_METRICS_PORT). */
  relayPort: number;
  /** A relay process signals what the API stores (API_RUNS_RELAY=false); false: the API relays itself. */
  relayProcess: boolean;
  uiUrl: string;
  /**
   * Where the Temporal UI calls the codec: https, since the UI passes a person's access token to nothing
   * else (compose: the API behind TLS). Unset: `<publicBaseUrl>/codec`.
   */
  codecUrl?: string;
  /** Keys the PayrunCustomer search attribute (the API's CUSTOMER_KEY_SECRET). */
  customerKeySecret: string;
  /** DECISION_SIGNING_KEY: the API signs money decisions with it, every worker verifies them with it. */
  decisionKey: string;
  /**
   * Settings the API reads and sends to the workflows it starts (SUBSCRIPTION_BILLING_HOUR, …), each passed
   * through by docker-compose.yml; the cluster always passes all of them.
   */
  apiSettings: ApiTunables;
  metricsPort: (workerIndex: number) => number;
  /**
   * GATEWAY_RATE_LIMITS of the API and every worker; unset: no limit (docker-compose passes it through). The
   * workers apply it; the API reads it to choose who charges a new subscription (api/subscriptions/settings.ts).
   */
  gatewayRateLimits?: string;
  /** The workers' sizes; unset: platform/config.ts's defaults. */
  workerSettings?: Partial<Record<WorkerSetting, string>>;
  /**
   * Benchmarks only (docker-compose never sets them): a comparison switch or a benchmark's own setting, given
   * to the API and to every worker, each process reading what it knows (platform/config.ts).
   */
  switches?: Record<string, string>;
  /** TRUSTED_PROXIES of the API (the proxies whose X-Forwarded-For is believed); unset: loopback (codec-tls). */
  trustedProxies?: string;
  /** Rehearsals only (docker-compose never sets it): webhooks to a receiver on this machine. */
  loopbackWebhooks?: boolean;
  /** payrun's own OpenID Connect provider, where people sign in to the console and the Temporal UI. */
  identity: IdentitySettings;
}

export interface IdentitySettings {
  /** Where browsers, the API and the Temporal UI server all reach the provider. */
  issuer: string;
  /** The console's client secret (OIDC_CLIENT_SECRET). */
  consoleClientSecret: string;
  /** The Temporal UI's client secret (IDENTITY_TEMPORAL_UI_CLIENT_SECRET). */
  uiClientSecret: string;
  /** The demo people's password (IDENTITY_DEMO_PASSWORD). */
  password: string;
}

export interface ClusterEnvironment {
  /** docker-compose's `migrate` service (and the base every payrun service shares). */
  migrate: Record<string, string>;
  /** Answers requests and stores notifications; signals them too unless a relay process does (API_RUNS_RELAY). */
  api: Record<string, string>;
  /** docker-compose's `relay` service: the API's settings (it reads the same), and its metrics port. */
  relay: Record<string, string>;
  worker(index: number): Record<string, string>;
  /** docker-compose's `temporal-ui` service. */
  temporalUi(port: number): Record<string, string>;
  /** docker-compose's `identity` service. */
  identity(port: number, dataDir: string): Record<string, string>;
  /** docker-compose's `codec-tls` service: the codec over TLS in front of the API (scripts/cluster/codec-tls.ts). */
  codecTls(port: number, dataDir: string, host?: string): Record<string, string>;
}

export function clusterEnvironment(input: ClusterEnvironmentInput): ClusterEnvironment {
  const shared = {
    DATABASE_URL: input.databaseUrl,
    TEMPORAL_ADDRESS: input.temporalAddress,
    LOG_LEVEL: input.logLevel,
    PAYLOAD_CODEC_KEYS: input.codecKeys,
    PAYLOAD_CODEC_KEY_ID: input.codecKeyId,
    GATEWAY_BASE_URL: input.gateway.baseUrl,
    GATEWAY_PARTNER_CODE: input.gateway.partnerCode,
    GATEWAY_ACCESS_KEY: input.gateway.accessKey,
    GATEWAY_SECRET_KEY: input.gateway.secretKey,
    GATEWAY_PUBLIC_KEY: input.gateway.publicKey,
    PUBLIC_BASE_URL: input.publicBaseUrl,
    // The API checks an endpoint's URL when it is registered, the workers again before each delivery.
    ...(input.loopbackWebhooks ? { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' } : {}),
  };
  const uiOrigin = new URL(input.uiUrl).origin;
  const api = {
    ...shared,
    API_HOST: '127.0.0.1',
    API_PORT: String(input.apiPort),
    TEMPORAL_UI_ORIGIN: uiOrigin,
    TEMPORAL_UI_URL: input.uiUrl,
    CUSTOMER_KEY_SECRET: input.customerKeySecret,
    DECISION_SIGNING_KEY: input.decisionKey,
    // Loopback is where the codec's TLS front reaches the API: its X-Forwarded-For names the browser.
    TRUSTED_PROXIES: input.trustedProxies ?? 'loopback',
    OIDC_ISSUER: input.identity.issuer,
    OIDC_CLIENT_ID: CONFIG_DEFAULTS.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: input.identity.consoleClientSecret,
    OIDC_ROLE_MAP: '',
    GATEWAY_RATE_LIMITS: input.gatewayRateLimits ?? '',
    // The default policy, as for the workers; docker-compose passes a deployment's own to both.
    APPROVAL_POLICY: '',
    ...Object.fromEntries(Object.entries(input.apiSettings).map(([name, value]) => [name, String(value)])),
    ...input.switches,
  };
  return {
    migrate: shared,
    api: { ...api, API_RUNS_RELAY: input.relayProcess ? 'false' : 'true' },
    // The relay builds what an API process's relay would from the same settings (api/relay-main.ts).
    relay: { ...api, API_RUNS_RELAY: 'false', RELAY_METRICS_PORT: String(input.relayPort) },
    worker: (index) => ({
      ...shared,
      WORKER_METRICS_PORT: String(input.metricsPort(index)),
      DECISION_SIGNING_KEY: input.decisionKey,
      GATEWAY_RATE_LIMITS: input.gatewayRateLimits ?? '',
      APPROVAL_POLICY: '',
      // Empty: the worker's default (platform/config.ts); benchmarks size the worker through these.
      ...Object.fromEntries(WORKER_SETTINGS.map((name) => [name, input.workerSettings?.[name] ?? ''])),
      ...input.switches,
    }),
    temporalUi: (port) => ({
      TEMPORAL_ADDRESS: input.temporalAddress,
      TEMPORAL_UI_PORT: String(port),
      TEMPORAL_CORS_ORIGINS: input.publicBaseUrl,
      // The UI asks the payrun API to decode the encrypted payloads it shows.
      TEMPORAL_CODEC_ENDPOINT: input.codecUrl ?? `${input.publicBaseUrl}/codec`,
      // People sign in to the UI through payrun's provider; the UI hands their access token (a JWT for
      // payrun's audience, the provider's default resource) to the codec, which decodes per their roles.
      TEMPORAL_AUTH_ENABLED: 'true',
      TEMPORAL_AUTH_PROVIDER_URL: input.identity.issuer,
      TEMPORAL_AUTH_CLIENT_ID: TEMPORAL_UI_CLIENT_ID,
      TEMPORAL_AUTH_CLIENT_SECRET: input.identity.uiClientSecret,
      TEMPORAL_AUTH_CALLBACK_URL: new URL('/auth/sso/callback', input.uiUrl).href,
      TEMPORAL_AUTH_SCOPES: 'openid,profile,email',
      TEMPORAL_CODEC_PASS_ACCESS_TOKEN: 'true',
      // Plain http on this machine: a Secure CSRF cookie would never come back and every action would fail.
      TEMPORAL_CSRF_COOKIE_INSECURE: 'true',
    }),
    identity: (port, dataDir) => ({
      API_HOST: '127.0.0.1',
      IDENTITY_PORT: String(port),
      OIDC_ISSUER: input.identity.issuer,
      OIDC_CLIENT_ID: CONFIG_DEFAULTS.OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET: input.identity.consoleClientSecret,
      IDENTITY_DEMO_PASSWORD: input.identity.password,
      IDENTITY_TEMPORAL_UI_CLIENT_SECRET: input.identity.uiClientSecret,
      PUBLIC_BASE_URL: input.publicBaseUrl,
      TEMPORAL_UI_URL: input.uiUrl,
      PAYRUN_DATA_DIR: dataDir,
    }),
    codecTls: (port, dataDir, host = '127.0.0.1') => ({
      CODEC_TLS_PORT: String(port),
      CODEC_TLS_TARGET: `http://127.0.0.1:${input.apiPort}`,
      CODEC_TLS_DIR: dataDir,
      CODEC_TLS_HOST: host,
    }),
  };
}
