import path from 'node:path';
import { z } from 'zod';
import { CUSTOMER_KEY_SECRET_PATTERN } from './customer-key';
import { DECISION_SIGNING_KEY_PATTERN } from './decision-key';
import { CODEC_TOKEN_PATTERN } from './dev-codec-token';
import { parseGatewayRateLimits } from './gateway-rate-limits';
import { parseTrustedProxies } from './trusted-proxies';
import { parseApprovalPolicy } from './approval-policy';
import { DEFAULT_APPROVAL_POLICY } from '../contracts/approvals';

/**
 * Every setting payrun reads, declared once. Processes call `loadConfig()` at start-up so that a
 * missing or malformed value stops them with a message naming the variable, before any work starts.
 */
const port = z.coerce.number().int().min(1).max(65535);
/** An unset or empty variable means "not configured". */
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined));
const optionalUrl = optionalText.pipe(z.url().optional());
/** A wait, in seconds or hours, above zero. */
const seconds = (fallback: number) =>
  z.coerce.number({ error: 'must be a number of seconds' }).positive('must be above 0').default(fallback);
const hours = (fallback: number) =>
  z.coerce.number({ error: 'must be a number of hours' }).positive('must be above 0').default(fallback);

export const configSchema = z.object({
  DATABASE_URL: optionalUrl.describe('PostgreSQL connection string; unset starts an embedded PostgreSQL'),
  PAYRUN_DATA_DIR: z.string().default('.data').describe('Local state of the dev stack'),
  EMBEDDED_PG_PORT: port.default(54329).describe('Port of the embedded PostgreSQL'),
  TEMPORAL_ADDRESS: optionalText.describe(
    'host:port of a Temporal frontend; unset starts the Temporal dev server',
  ),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payrun'),
  TEMPORAL_PORT: port.default(7233).describe('Port of the dev server started by npm run dev'),
  TEMPORAL_UI_PORT: port.default(8233).describe('Port of the Web UI started by npm run dev'),
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port.default(3000),
  PAYLOAD_CODEC_KEYS: optionalText.describe(
    'keyId:base64(32 bytes)[,…] sealing workflow payloads; unset under npm run dev uses <PAYRUN_DATA_DIR>/codec-keys.json',
  ),
  PAYLOAD_CODEC_KEY_ID: optionalText.describe('Which of PAYLOAD_CODEC_KEYS seals new payloads'),
  TEMPORAL_UI_ORIGIN: optionalText.describe('Origin of the Temporal UI allowed to call the codec endpoint'),
  TEMPORAL_UI_CODEC_TOKEN: optionalText
    .pipe(z.string().regex(CODEC_TOKEN_PATTERN, 'must be 32–128 characters of A-Z a-z 0-9 _ -').optional())
    .describe(
      'npm run dev only: secret path segment of the codec endpoint given to the Temporal UI; unset: generated into <PAYRUN_DATA_DIR>/codec-ui-token',
    ),
  CUSTOMER_KEY_SECRET: optionalText
    .pipe(
      z
        .string()
        .regex(
          CUSTOMER_KEY_SECRET_PATTERN,
          'must be 32–256 visible ASCII characters (e.g. 32 random bytes, base64)',
        )
        .optional(),
    )
    .describe(
      'Keys the PayrunCustomer search attribute (HMAC of partnerClientId); required by the API; unset under npm run dev: generated into <PAYRUN_DATA_DIR>/customer-key-secret',
    ),
  DECISION_SIGNING_KEY: optionalText
    .pipe(
      z
        .string()
        .regex(
          DECISION_SIGNING_KEY_PATTERN,
          'must be 32–256 visible ASCII characters (e.g. 32 random bytes, base64)',
        )
        .optional(),
    )
    .describe(
      'HMAC key the API signs money decisions with and the workers verify them with; required by the API and workers; unset under npm run dev: generated into <PAYRUN_DATA_DIR>/decision-signing-key',
    ),
  TEMPORAL_UI_URL: optionalUrl.describe(
    'Temporal UI base URL the finance console links workflows to; default under npm run dev: the dev server UI',
  ),
  GATEWAY_BASE_URL: optionalUrl.describe('The payment gateway; unset under npm run dev starts the sandbox'),
  GATEWAY_PARTNER_CODE: optionalText,
  GATEWAY_ACCESS_KEY: optionalText,
  GATEWAY_SECRET_KEY: optionalText,
  GATEWAY_PUBLIC_KEY: optionalText.describe("The gateway's RSA public key: PEM, or Base64 DER"),
  GATEWAY_RATE_LIMITS: z
    .string()
    .optional()
    .transform((text, context) => {
      const { limits, problems } = parseGatewayRateLimits(text ?? '');
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return limits;
    })
    .describe(
      'Gateway calls per second per operation, across all workers, e.g. subscription.pay=50,disbursement.pay=20 (operations with a queue of their own: subscription.pay, disbursement.pay); unset: no limit',
    ),
  SANDBOX_PORT: port.default(8950).describe('Port of the sandbox that npm run dev starts'),
  PUBLIC_BASE_URL: optionalUrl.describe(
    'How the gateway reaches payrun (IPN and redirect URLs); default: the API URL',
  ),
  PAYOUT_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  PAYOUT_UPLOAD_LIMIT: z
    .string()
    .regex(/^\d+(kb|mb)$/)
    .default('32mb')
    .describe('Largest payout file accepted'),
  PAYOUT_UPLOAD_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .default(2)
    .describe('Payout files parsed at once, each in its own worker thread; one more is answered 503'),
  PAYOUT_APPROVAL_TTL_HOURS: z.coerce.number().positive().default(72),
  BALANCE_WATCH_INTERVAL: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400)
    .default(300)
    .describe('Seconds between two readings of the merchant balances against their thresholds (balance.low)'),
  PAYOUT_AUTO_RESUME_FUNDED: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      'The balance watcher resumes payout runs waiting for funds once the VND balance covers them, oldest first',
    ),
  PAYEE_CHANGED_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .describe(
      'A payout row whose directory payee had its details changed within this many days is flagged `changed` on the approval screen',
    ),
  PAYOUT_SCHEDULE_CHECK_AHEAD: z
    .string()
    .regex(/^[1-9]\d{0,4}(m|h|d)$/, 'must be a number of minutes, hours or days, e.g. 24h, 90m, 2d')
    .default('24h')
    .describe(
      'How long before a scheduled run pays it checks its receivers and the merchant balance (warnings, never a cancellation)',
    ),
  APPROVAL_POLICY: z
    .string()
    .optional()
    .transform((text, context) => {
      if (!text?.trim()) return DEFAULT_APPROVAL_POLICY;
      const { policy, problems } = parseApprovalPolicy(text);
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return policy ?? DEFAULT_APPROVAL_POLICY;
    })
    .describe(
      'JSON approval policy for payout runs, single disbursements, refunds and remittances: amount bands (approvers, roles), daily caps per maker and per merchant, expiry (docs/approvals.md); unset: the default there; an approved version from /v1/approval-policy replaces it from its effective time',
    ),
  PAYOUT_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(1000),
  PAYOUT_PARALLEL_BATCHES: z.coerce.number().int().min(1).max(50).default(4),
  PAYOUT_IPN_TIMEOUT_SECONDS: seconds(120).describe(
    'How long a payout batch waits for a notification (8003, paid) before asking the gateway with batch/query',
  ),
  DISBURSEMENT_IPN_TIMEOUT_SECONDS: seconds(120).describe(
    'How long a single disbursement waits for its result notification before asking the gateway; the asks then double up to an hour',
  ),
  DISBURSEMENT_RESULT_WAIT_HOURS: hours(24).describe(
    'How long a single disbursement waits for its final result before an operator is told (needs_attention; payrun asks on)',
  ),
  DISBURSEMENT_DESK: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value !== 'false')
    .describe(
      'Single disbursements that need no approvers are paid in chunks by one long-lived workflow (the disbursement desk) instead of a workflow each; one the gateway does not settle at once goes on in a workflow of its own. false: a workflow for each, as before. Off while disbursement.pay has a rate limit (docs/payout-runs.md)',
    ),
  PAYOUT_GATEWAY_ATTEMPT_SECONDS: z.coerce
    .number()
    .int()
    .min(30)
    .max(600)
    .default(120)
    .describe(
      'How long one payout gateway call may take before it is retried (same orderId); the spec asks for at least 30',
    ),
  REMITTANCE_IPN_TIMEOUT_SECONDS: seconds(120).describe(
    'How long a remittance waits for its result notification before asking the gateway (api/query); the asks then double up to an hour',
  ),
  PAYMENT_RESULT_WAIT_HOURS: hours(24).describe(
    'How long a payment waits for a final result before it is expired (payrun listens on)',
  ),
  PAYMENT_DESK: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value !== 'false')
    .describe(
      'One-time payments captured at once (every requestType but POS, autoCapture on) are created in chunks by one long-lived workflow (the payment desk) and their notification is recorded without a workflow; one whose create keeps failing, or whose result has not come within its notification wait, goes on in a workflow of its own. false: a workflow for each, as before (docs/payments.md)',
    ),
  SUBSCRIPTION_DESK: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value !== 'false')
    .describe(
      "New subscriptions' authorization starts are made in chunks by one long-lived workflow (the subscription desk), and each subscription's workflow starts at its customer's answer (or after its notification wait, to ask the gateway). false: the workflow starts at the create, as before (docs/subscriptions.md)",
    ),
  PAYMENT_ANSWER_BY_POLLING: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      'Benchmark comparison only (npm run bench -- payments --previous): a payment create or a refund reads its record every 50 ms for the gateway answer, as before update-with-start',
    ),
  STEPS_AS_QUEUED_ACTIVITIES: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      "Benchmark comparison only (npm run bench -- payments|subscriptions|billing-day --previous): new payments, disbursements and subscriptions run the steps now made in the workflow task that decides them (a payment's create and result, a disbursement's payout, a subscription's onboarding, hand-over and reading of the run's word) as queued activities, as before",
    ),
  BILLING_RUN_PARALLEL_CHUNKS: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(32, 'must be at most 32')
    .optional()
    .describe(
      "Chunks of 200 charges a billing run charges side by side, each taken by whichever worker polls first; unset: 2, one per worker of the deployed shape. Read by the workers when they start a day's run (docs/subscriptions.md)",
    ),
  BILLING_RUN_SIGNALS_SUCCESS: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      "Benchmark comparison only (npm run bench -- active-billing-day --previous): the billing run signals each success to its subscription's workflow at once, as before the workflow read it at its grace",
    ),
  REMITTANCE_QUOTE_TTL_SECONDS: z.coerce
    .number()
    .positive()
    .default(300)
    .describe('A remittance quote older than this is fetched again before buying'),
  WORKER_METRICS_PORT: port.default(9464).describe('Port where a standalone worker serves /metrics'),
  WORKER_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .min(2, 'must be at least 2')
    .optional()
    .describe(
      "Workflows a worker keeps in memory between their tasks; one evicted is replayed from its history on its next task. Unset: one per 0.6 MiB of the heap limit over 200 MiB (6,573 with Node's 4 GiB default; the SDK's own default would be 2,310) (docs/capacity.md)",
    ),
  WORKER_WORKFLOW_TASK_SLOTS: z.coerce
    .number()
    .int()
    .positive('must be above 0')
    .default(40)
    .describe('Workflow tasks a worker runs at once'),
  WORKER_ACTIVITY_TASK_SLOTS: z.coerce
    .number()
    .int()
    .positive('must be above 0')
    .default(100)
    .describe('Activities a worker runs at once, per task queue it polls'),
  WORKER_WORKFLOW_TASK_POLLERS: z.coerce
    .number()
    .int()
    .positive('must be above 0')
    .default(10)
    .describe('Most workflow-task polls a worker keeps open at once (at most WORKER_WORKFLOW_TASK_SLOTS)'),
  WORKER_NON_STICKY_POLL_SHARE: z.coerce
    .number()
    .gt(0, 'must be above 0')
    .max(1, 'must be at most 1')
    .default(0.2)
    .describe(
      "Share of a worker's workflow-task polls kept on the queue every worker takes new workflows from; the rest wait on its own (sticky) queue for cached workflows (docs/capacity.md)",
    ),
  SUBSCRIPTION_RETRY_DELAY_HOURS: z.coerce
    .number()
    .positive()
    .default(24)
    .describe('Wait before the one retry of a subscription charge refused for insufficient funds'),
  SUBSCRIPTION_BILLING_HOUR: z.coerce
    .number()
    .int()
    .min(0)
    .max(23)
    .default(9)
    .describe('Hour (GMT+7) at which subscription cycles are charged on their date'),
  SUBSCRIPTION_BILLING_PATH: z
    .enum(['run', 'self'])
    .default('run')
    .describe(
      "run: new subscriptions hand plain cycles to the day's billing run; self: each workflow charges its own cycles",
    ),
  SUBSCRIPTION_RUN_GRACE_MINUTES: z.coerce
    .number()
    .int()
    .positive()
    .default(180)
    .describe(
      'A handed-over cycle the billing run has not charged this long after its hour is charged by its workflow',
    ),
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(600)
    .describe('Requests per minute from one client address (health probes excepted); 0: no limit'),
  RATE_LIMIT_PER_KEY_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(600)
    .describe('Requests per minute with one API key; 0: no limit'),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(10)
    .describe(
      'Failed authentications per minute from one address before its further failures are answered 429 (a valid key still passes); 0: no limit',
    ),
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(60_000)
    .describe(
      'Validly signed gateway notifications per minute from one address (outside every other limit); 0: no limit',
    ),
  RATE_LIMIT_FORGERIES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(60)
    .describe(
      'Notifications failing verification per minute from one address before they are answered 429; 0: no limit',
    ),
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((text, context) => {
      const { trusted, problems } = parseTrustedProxies(text ?? '');
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return trusted;
    })
    .describe(
      'Proxies whose X-Forwarded-For names the client: a hop count, or addresses/CIDR ranges (loopback, linklocal, uniquelocal); unset: none, the header is ignored',
    ),
  REMITTANCE_QUOTE_CACHE_SECONDS: z.coerce
    .number()
    .min(0)
    .default(10)
    .describe(
      'How long a quoted rate is served to GET /v1/remittance-quotes before asking again; 0: every time',
    ),
  IPN_CLAIM_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(60)
    .describe(
      'How long the process that stored a notification has to signal it before a redelivery or the relay takes it over',
    ),
  IPN_RELAY_INTERVAL_SECONDS: z.coerce
    .number()
    .positive()
    .max(300)
    .default(5)
    .describe(
      'How often each API process looks for stored notifications nobody signalled (their claim lapsed)',
    ),
  IPN_RELAY_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(16)
    .describe(
      'How many workflows one API process signals at once from the notification inbox (one at a time per workflow, in order)',
    ),
  IPN_RELAY_YIELD_ABOVE: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(50)
    .describe(
      'Notifications a second arriving faster than the relays signal them above which the relays give way to the receiver, signalling only those older than IPN_RELAY_YIELD_MAX_SECONDS until the burst passes; 0: never',
    ),
  IPN_RELAY_YIELD_MAX_SECONDS: z.coerce
    .number()
    .min(0)
    .max(600)
    .default(60)
    .describe(
      'The longest a stored notification waits for a burst to pass before the relays signal it anyway; keep it under the notification timeouts (120 s by default)',
    ),
  API_RUNS_RELAY: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value !== 'false')
    .describe(
      'false: this API process only answers requests, and a relay process (api/relay-main.ts) signals the stored notifications; default true',
    ),
  RELAY_METRICS_PORT: port
    .default(9465)
    .describe('Port where a standalone relay process serves /metrics and /healthz'),
  IPN_SIGNAL_BEFORE_ANSWER: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      'Comparison switch for the ipn benchmark only: the previous design, which signals Temporal before answering the gateway',
    ),
  WEBHOOK_ALLOW_LOOPBACK_HTTP: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }).optional())
    .transform((value) => value === 'true')
    .describe(
      'Development only: webhook endpoints may be http:// on this machine (127.0.0.1, ::1, localhost)',
    ),
  SMTP_URL: optionalText
    .pipe(z.url({ protocol: /^smtps?$/, error: 'must be smtp://host:port or smtps://…' }).optional())
    .describe(
      'Mail server for notices to subscribers (smtp://user:pass@host:587, smtps://… for TLS); unset: notices are recorded failed. npm run dev sets it to its mail catcher',
    ),
  NOTICE_FROM: optionalText.describe(
    'Sender (From) of notices to subscribers; unset: payrun <billing@payrun.invalid>',
  ),
  MAIL_CATCHER_PORT: port
    .default(1025)
    .describe('npm run dev / npm run cluster: port of the local mail catcher that receives every notice'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OIDC_ISSUER: optionalUrl.describe(
    'OpenID Connect provider people sign in with (discovery at <issuer>/.well-known/openid-configuration); unset under npm run dev: the embedded provider; unset elsewhere: no sign-in, API keys only',
  ),
  OIDC_CLIENT_ID: z.string().min(1).default('payrun-console').describe("payrun's client id at the provider"),
  OIDC_CLIENT_SECRET: optionalText.describe(
    "payrun's client secret at the provider (confidential client); unset under npm run dev: generated into <PAYRUN_DATA_DIR>/oidc-client-secret",
  ),
  OIDC_AUDIENCE: z
    .string()
    .min(1)
    .default('urn:payrun:api')
    .describe('Audience of the access tokens the codec accepts (the Temporal UI passes them)'),
  OIDC_ROLE_CLAIM: z
    .string()
    .min(1)
    .default('groups')
    .describe("The claim of the provider's tokens that lists a person's groups"),
  OIDC_ROLE_MAP: optionalText
    .pipe(
      z
        .string()
        .regex(/^\s*[^=,]+=[^=,]+(\s*,\s*[^=,]+=[^=,]+)*\s*$/, 'must be group=role[,group=role…]')
        .optional(),
    )
    .describe(
      'Groups to roles, e.g. finance-admins=admin,finance-makers=payouts-maker; unset: a group named like a role is that role (docs/identity.md)',
    ),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .positive()
    .default(30)
    .describe('A console session unused this long ends'),
  SESSION_MAX_HOURS: z.coerce
    .number()
    .positive()
    .default(12)
    .describe('A console session ends this long after sign-in'),
  SESSION_RECHECK_MINUTES: z.coerce
    .number()
    .positive()
    .default(5)
    .describe(
      'A console session whose person was last confirmed at the provider this long ago is confirmed again (a token refresh) on its next request; refused: the person is offboarded',
    ),
  IDENTITY_RECHECK_MINUTES: z.coerce
    .number()
    .positive()
    .default(15)
    .describe(
      'Every this often, every person owning an active API key is confirmed at the provider (a token refresh); refused: the person is offboarded',
    ),
  IDENTITY_PORT: port
    .default(8955)
    .describe("Port of payrun's own identity provider (npm run dev, cluster, compose)"),
  IDENTITY_PEOPLE_FILE: optionalText.describe(
    "payrun's own provider: JSON file of its people (subject, name, email, groups); unset: the demo people of docs/identity.md",
  ),
  IDENTITY_DEMO_PASSWORD: optionalText.describe(
    "payrun's own provider: the password of its people; unset under npm run dev: generated into <PAYRUN_DATA_DIR>/identity-demo-password",
  ),
  IDENTITY_TEMPORAL_UI_CLIENT_SECRET: optionalText.describe(
    "payrun's own provider: secret of the Temporal UI's client `temporal-ui` (callback <TEMPORAL_UI_URL>/auth/sso/callback); unset: no such client",
  ),
});

export type Config = z.infer<typeof configSchema>;

/** The value of every setting nobody sets: the one place a default is written. */
export const CONFIG_DEFAULTS: Config = configSchema.parse({});

/** A whole number of days reads as days ('1 day'), as the waits were written before they were settings. */
export const hoursAsDuration = (value: number): string =>
  value % 24 === 0 ? `${value / 24} ${value === 24 ? 'day' : 'days'}` : `${value} hours`;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable is an unset one, so docker-compose.yml can pass `${NAME:-}` and leave the default here.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return { ...parsed.data, PAYRUN_DATA_DIR: path.resolve(parsed.data.PAYRUN_DATA_DIR) };
}
