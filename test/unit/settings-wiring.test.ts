/**
 * Every setting in platform/config.ts reaches the process that uses it. `apiSettingsFrom` is what every
 * API process is built with; the process-level settings (ports, addresses, keys) are proven by the tests
 * that start real processes with them, listed in PROOFS, so a new setting without a proof fails here.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rateLimitSettingsFrom } from '../../api/http/rate-limit-settings';
import { apiSettingsFrom } from '../../api/settings';
import { paymentWorkflowInput } from '../../api/payments/payments';
import { subscriptionWorkflowInput } from '../../api/subscriptions/subscriptions';
import { checkDecisionProof } from '../../activities/shared/decision-proofs';
import { buildActivities, cachedWorkflowsFor, workerTuningOf } from '../../workers/build';
import { testCodecKeyring } from '../support/temporal';
import { configSchema, loadConfig, type Config } from '../../platform/config';

/**
 * Settings the production-shape tests (test/cluster/) start real processes with: `npm run cluster` passes
 * them (scripts/cluster/environment.ts), and those tests fail when a process cannot start or serve.
 */
const CLUSTER = 'scripts/cluster/environment.ts';

/** The API's settings with the keys it requires and one variable set (or left unset). */
const apiSettingsWith = (name: keyof Config, value?: string) =>
  apiSettingsFrom(
    loadConfig({
      CUSTOMER_KEY_SECRET: 'a'.repeat(32),
      DECISION_SIGNING_KEY: 'd'.repeat(32),
      ...(value !== undefined && { [name]: value }),
    }),
  );

const PROOFS: Record<keyof Config, string> = {
  DATABASE_URL: CLUSTER,
  PAYRUN_DATA_DIR: 'test/e2e/dev-stack.test.ts',
  EMBEDDED_PG_PORT: 'test/e2e/dev-stack.test.ts',
  TEMPORAL_ADDRESS: CLUSTER,
  TEMPORAL_NAMESPACE: 'test/unit/settings-wiring.test.ts',
  TEMPORAL_TASK_QUEUE: 'test/unit/settings-wiring.test.ts',
  TEMPORAL_PORT: 'test/e2e/dev-stack.test.ts',
  TEMPORAL_UI_PORT: 'test/e2e/dev-stack.test.ts',
  API_HOST: CLUSTER,
  API_PORT: 'test/e2e/dev-stack.test.ts',
  PAYLOAD_CODEC_KEYS: 'test/codec/payload-codec.test.ts',
  PAYLOAD_CODEC_KEY_ID: 'test/codec/payload-codec.test.ts',
  TEMPORAL_UI_ORIGIN: CLUSTER,
  TEMPORAL_UI_URL: CLUSTER,
  GATEWAY_BASE_URL: 'test/e2e/dev-stack.test.ts',
  GATEWAY_PARTNER_CODE: CLUSTER,
  GATEWAY_ACCESS_KEY: CLUSTER,
  GATEWAY_SECRET_KEY: CLUSTER,
  GATEWAY_PUBLIC_KEY: CLUSTER,
  SANDBOX_PORT: 'test/e2e/dev-stack.test.ts',
  PUBLIC_BASE_URL: CLUSTER,
  PAYOUT_MAX_ROWS: 'test/unit/settings-wiring.test.ts',
  PAYOUT_UPLOAD_LIMIT: 'test/unit/settings-wiring.test.ts',
  PAYOUT_APPROVAL_TTL_HOURS: 'test/unit/settings-wiring.test.ts',
  PAYOUT_SCHEDULE_CHECK_AHEAD: 'test/unit/settings-wiring.test.ts',
  PAYOUT_BATCH_SIZE: 'test/unit/settings-wiring.test.ts',
  PAYOUT_PARALLEL_BATCHES: 'test/unit/settings-wiring.test.ts',
  PAYOUT_IPN_TIMEOUT_SECONDS: 'test/unit/settings-wiring.test.ts',
  DISBURSEMENT_IPN_TIMEOUT_SECONDS: 'test/unit/settings-wiring.test.ts',
  DISBURSEMENT_RESULT_WAIT_HOURS: 'test/unit/settings-wiring.test.ts',
  DISBURSEMENT_DESK: 'test/payouts/disbursement-desk.test.ts',
  PAYMENT_DESK: 'test/payments/payment-desk.test.ts',
  SUBSCRIPTION_DESK: 'test/subscriptions/subscription-desk.test.ts',
  REMITTANCE_IPN_TIMEOUT_SECONDS: 'test/unit/settings-wiring.test.ts',
  PAYMENT_RESULT_WAIT_HOURS: 'test/unit/settings-wiring.test.ts',
  PAYMENT_ANSWER_BY_POLLING: 'test/unit/settings-wiring.test.ts',
  STEPS_AS_QUEUED_ACTIVITIES: 'test/unit/settings-wiring.test.ts',
  BILLING_RUN_SIGNALS_SUCCESS: 'test/subscriptions/billing-run-signals-success.test.ts',
  BILLING_RUN_PARALLEL_CHUNKS: 'test/subscriptions/billing-run-parallel-chunks.test.ts',
  PAYOUT_GATEWAY_ATTEMPT_SECONDS: 'test/unit/settings-wiring.test.ts',
  REMITTANCE_QUOTE_TTL_SECONDS: 'test/unit/settings-wiring.test.ts',
  WORKER_METRICS_PORT: CLUSTER,
  SUBSCRIPTION_RETRY_DELAY_HOURS: 'test/subscriptions/billing-settings.test.ts',
  SUBSCRIPTION_BILLING_HOUR: 'test/subscriptions/billing-settings.test.ts',
  SUBSCRIPTION_BILLING_PATH: 'test/subscriptions/billing-run.test.ts',
  SUBSCRIPTION_RUN_GRACE_MINUTES: 'test/subscriptions/billing-run.test.ts',
  LOG_LEVEL: CLUSTER,
  TEMPORAL_UI_CODEC_TOKEN: 'test/unit/config.test.ts',
  PAYOUT_UPLOAD_CONCURRENCY: 'test/unit/settings-wiring.test.ts',
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 'test/unit/settings-wiring.test.ts',
  RATE_LIMIT_PER_KEY_PER_MINUTE: 'test/unit/settings-wiring.test.ts',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 'test/unit/settings-wiring.test.ts',
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: 'test/unit/settings-wiring.test.ts',
  RATE_LIMIT_FORGERIES_PER_MINUTE: 'test/unit/settings-wiring.test.ts',
  TRUSTED_PROXIES: 'test/api/rate-limits.test.ts',
  REMITTANCE_QUOTE_CACHE_SECONDS: 'test/unit/settings-wiring.test.ts',
  WEBHOOK_ALLOW_LOOPBACK_HTTP: 'test/events/webhook-signing.test.ts',
  CUSTOMER_KEY_SECRET: 'test/unit/settings-wiring.test.ts',
  DECISION_SIGNING_KEY: 'test/payouts/decision-proofs.test.ts',
  GATEWAY_RATE_LIMITS: 'test/subscriptions/gateway-rate-limit.test.ts',
  IPN_CLAIM_LEASE_SECONDS: 'test/api/notification-relay.test.ts',
  IPN_RELAY_INTERVAL_SECONDS: 'test/api/notification-relay.test.ts',
  IPN_RELAY_CONCURRENCY: 'test/api/notification-inbox.test.ts',
  IPN_RELAY_YIELD_ABOVE: 'test/unit/settings-wiring.test.ts',
  IPN_RELAY_YIELD_MAX_SECONDS: 'test/unit/settings-wiring.test.ts',
  IPN_SIGNAL_BEFORE_ANSWER: 'test/api/notification-relay.test.ts',
  API_RUNS_RELAY: 'test/cluster/faults.test.ts',
  RELAY_METRICS_PORT: CLUSTER,
  APPROVAL_POLICY: 'test/approvals/approvals.test.ts',
  OIDC_ISSUER: 'test/identity/identity-settings.test.ts',
  OIDC_CLIENT_ID: 'test/identity/identity-settings.test.ts',
  OIDC_CLIENT_SECRET: 'test/identity/identity-settings.test.ts',
  OIDC_AUDIENCE: 'test/identity/identity-settings.test.ts',
  OIDC_ROLE_CLAIM: 'test/identity/identity-settings.test.ts',
  OIDC_ROLE_MAP: 'test/identity/identity-settings.test.ts',
  SESSION_IDLE_MINUTES: 'test/identity/identity-settings.test.ts',
  SESSION_MAX_HOURS: 'test/identity/identity-settings.test.ts',
  SESSION_RECHECK_MINUTES: 'test/identity/identity-settings.test.ts',
  IDENTITY_RECHECK_MINUTES: 'test/identity/identity-settings.test.ts',
  IDENTITY_PORT: 'test/identity/identity-settings.test.ts',
  IDENTITY_PEOPLE_FILE: 'test/identity/identity-settings.test.ts',
  IDENTITY_DEMO_PASSWORD: 'test/identity/identity-settings.test.ts',
  IDENTITY_TEMPORAL_UI_CLIENT_SECRET: 'test/identity/temporal-ui-client.test.ts',
  PAYEE_CHANGED_WINDOW_DAYS: 'test/payees/payees.test.ts',
  BALANCE_WATCH_INTERVAL: 'test/payouts/balance-watch.test.ts',
  PAYOUT_AUTO_RESUME_FUNDED: 'test/payouts/auto-resume.test.ts',
  SMTP_URL: 'test/subscriptions/notices.test.ts',
  NOTICE_FROM: 'test/subscriptions/notices.test.ts',
  MAIL_CATCHER_PORT: 'test/subscriptions/notices.test.ts',
  WORKER_CACHED_WORKFLOWS: 'test/unit/settings-wiring.test.ts',
  WORKER_WORKFLOW_TASK_SLOTS: 'test/unit/settings-wiring.test.ts',
  WORKER_ACTIVITY_TASK_SLOTS: 'test/unit/settings-wiring.test.ts',
  WORKER_WORKFLOW_TASK_POLLERS: 'test/unit/settings-wiring.test.ts',
  WORKER_NON_STICKY_POLL_SHARE: 'test/unit/settings-wiring.test.ts',
};

describe('every setting reaches its process', () => {
  it('API settings are built from the configuration, each changing what the API sends to workflows', () => {
    const settings = apiSettingsFrom(
      loadConfig({
        TEMPORAL_TASK_QUEUE: 'q-custom',
        PAYOUT_MAX_ROWS: '123',
        PAYOUT_UPLOAD_LIMIT: '7mb',
        PAYOUT_APPROVAL_TTL_HOURS: '5',
        PAYOUT_SCHEDULE_CHECK_AHEAD: '90m',
        PAYOUT_BATCH_SIZE: '250',
        PAYOUT_PARALLEL_BATCHES: '3',
        PAYOUT_IPN_TIMEOUT_SECONDS: '42',
        DISBURSEMENT_IPN_TIMEOUT_SECONDS: '43',
        DISBURSEMENT_RESULT_WAIT_HOURS: '5',
        REMITTANCE_IPN_TIMEOUT_SECONDS: '44',
        PAYMENT_RESULT_WAIT_HOURS: '48',
        PAYOUT_GATEWAY_ATTEMPT_SECONDS: '45',
        REMITTANCE_QUOTE_TTL_SECONDS: '17',
        REMITTANCE_QUOTE_CACHE_SECONDS: '3',
        PAYOUT_UPLOAD_CONCURRENCY: '4',
        SUBSCRIPTION_BILLING_HOUR: '10',
        SUBSCRIPTION_RETRY_DELAY_HOURS: '6',
        CUSTOMER_KEY_SECRET: 'a'.repeat(32),
        DECISION_SIGNING_KEY: 'd'.repeat(32),
        IPN_CLAIM_LEASE_SECONDS: '7',
        IPN_RELAY_INTERVAL_SECONDS: '0.5',
        IPN_RELAY_CONCURRENCY: '5',
        IPN_RELAY_YIELD_ABOVE: '321',
        IPN_RELAY_YIELD_MAX_SECONDS: '12.5',
        IPN_SIGNAL_BEFORE_ANSWER: 'true',
      }),
    );
    expect(settings.payouts).toMatchObject({
      maxRows: 123,
      uploadLimit: '7mb',
      approvalTtlHours: 5,
      scheduleCheckAhead: '90m',
      batchSize: 250,
      uploadConcurrency: 4,
      parallelBatches: 3,
      taskQueue: 'q-custom',
      timing: { ipnTimeout: '42 seconds', gatewayAttemptTimeout: '45 seconds' },
      disbursement: { ipnTimeout: '43 seconds', resultWait: '5 hours' },
    });
    expect(settings.remittance).toMatchObject({
      taskQueue: 'q-custom',
      quoteCacheSeconds: 3,
      timing: { quoteTtl: '17 seconds', ipnTimeout: '44 seconds' },
    });
    expect(settings.subscriptions).toMatchObject({
      taskQueue: 'q-custom',
      timing: { billingHourGmt7: 10, insufficientFundsRetryDelay: '6 hours' },
    });
    expect(settings.notifications).toMatchObject({
      claimLeaseSeconds: 7,
      relayIntervalMs: 500,
      relayConcurrency: 5,
      relayYieldAbove: 321,
      relayYieldMaxSeconds: 12.5,
      signalBeforeAnswer: true,
    });
    expect(settings.payments.taskQueue).toBe('q-custom');
    expect(settings.payments.payment.resultWait).toBe('2 days');
    expect(settings.savedMethods.taskQueue).toBe('q-custom');
  });

  it('CUSTOMER_KEY_SECRET keys the customer key the API puts in visibility, and the API needs it', () => {
    const keyOf = (secret: string) =>
      apiSettingsFrom(
        loadConfig({ CUSTOMER_KEY_SECRET: secret, DECISION_SIGNING_KEY: 'd'.repeat(32) }),
      ).customers.keyOf('ann@example.com');
    expect(keyOf('a'.repeat(32))).toMatch(/^ck_[0-9a-f]{32}$/);
    expect(keyOf('a'.repeat(32))).toBe(keyOf('a'.repeat(32)));
    expect(keyOf('b'.repeat(32))).not.toBe(keyOf('a'.repeat(32)));
    expect(() => apiSettingsFrom(loadConfig({ DECISION_SIGNING_KEY: 'd'.repeat(32) }))).toThrow(
      /CUSTOMER_KEY_SECRET is missing/,
    );
    expect(() => loadConfig({ CUSTOMER_KEY_SECRET: 'short' })).toThrow(/CUSTOMER_KEY_SECRET: must be 32/);
  });

  it('DECISION_SIGNING_KEY signs the API decisions the workers check; neither starts without it', () => {
    const key = 'k'.repeat(32);
    const config = loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: key });
    const decision = { subject: 'payout-run/run-1', action: 'approve', by: { keyId: 'k1', name: 'Chi' } };
    const proof = apiSettingsFrom(config).decisions.sign(decision);
    expect(checkDecisionProof(key, decision, proof, Date.now())).toBeUndefined();
    expect(checkDecisionProof('o'.repeat(32), decision, proof, Date.now())).toBe('wrong_signature');

    expect(() => apiSettingsFrom(loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32) }))).toThrow(
      /DECISION_SIGNING_KEY is missing: the API needs it/,
    );
    const workerServices = {
      db: undefined as never,
      gateway: {
        baseUrl: 'http://127.0.0.1:1',
        partnerCode: 'P',
        accessKey: 'a',
        secretKey: 's',
        publicKey: 'p',
      },
      keyring: testCodecKeyring,
      publicBaseUrl: 'http://127.0.0.1:3000',
    };
    expect(() => buildActivities(loadConfig({}), workerServices)).toThrow(
      /DECISION_SIGNING_KEY is missing: the worker needs it/,
    );
    expect(() => loadConfig({ DECISION_SIGNING_KEY: 'short' })).toThrow(/DECISION_SIGNING_KEY: must be 32/);
  });

  it('each wait left unset is what it was before it was a setting', () => {
    const settings = apiSettingsFrom(
      loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32) }),
    );
    expect(settings.payouts.timing.ipnTimeout).toBe('120 seconds');
    expect(settings.payouts.disbursement).toEqual({
      ipnTimeout: '120 seconds',
      resultWait: '1 day',
      inWorkflowTask: true,
      desk: true,
    });
    expect(settings.remittance.timing.ipnTimeout).toBe('120 seconds');
    expect(settings.payments.payment.resultWait).toBe('1 day');
  });

  it.each([
    'PAYOUT_IPN_TIMEOUT_SECONDS',
    'DISBURSEMENT_IPN_TIMEOUT_SECONDS',
    'DISBURSEMENT_RESULT_WAIT_HOURS',
    'REMITTANCE_IPN_TIMEOUT_SECONDS',
    'PAYMENT_RESULT_WAIT_HOURS',
  ])('%s refuses a wait that is not a positive number, naming the variable', (name) => {
    expect(() => loadConfig({ [name]: '0' })).toThrow(new RegExp(`${name}: must be above 0`));
    expect(() => loadConfig({ [name]: 'soon' })).toThrow(new RegExp(`${name}: must be a number of`));
  });

  it('PAYMENT_ANSWER_BY_POLLING selects the old wait of a payment create, for the benchmark (the behaviour: test/payments/create-answer.test.ts)', () => {
    const settingsWith = (value?: string) =>
      apiSettingsWith('PAYMENT_ANSWER_BY_POLLING', value).payments.answerBy;
    expect(settingsWith('true')).toBe('polling');
    expect(settingsWith('false')).toBeUndefined();
    expect(settingsWith()).toBeUndefined();
  });

  it('STEPS_AS_QUEUED_ACTIVITIES has new payments, disbursements and subscriptions queue the steps now made in their workflow tasks, for the benchmark (the workflows: test/payments/payment.workflow.test.ts, test/subscriptions/subscription.workflow.test.ts, test/payouts/disbursement.workflow.test.ts)', () => {
    const settingsWith = (value?: string) => apiSettingsWith('STEPS_AS_QUEUED_ACTIVITIES', value);
    const payment = { paymentId: 'p1', requestType: 'captureWallet' as const, autoCapture: true };
    const subscription = {
      subscriptionId: 's1',
      amount: 0,
      subscriptionInfo: {
        name: 'n',
        type: 'FIXED' as const,
        recurringAmount: 50_000,
        frequency: 'MONTHLY' as const,
      },
    };
    const queued = settingsWith('true');
    expect(paymentWorkflowInput(queued.payments, payment).queuedSteps).toBe(true);
    expect(subscriptionWorkflowInput(queued.subscriptions, subscription).queuedSteps).toBe(true);
    expect(queued.payouts.disbursement.inWorkflowTask).toBe(false);
    for (const settings of [settingsWith('false'), settingsWith()]) {
      expect(paymentWorkflowInput(settings.payments, payment)).not.toHaveProperty('queuedSteps');
      expect(subscriptionWorkflowInput(settings.subscriptions, subscription)).not.toHaveProperty(
        'queuedSteps',
      );
      expect(settings.payouts.disbursement.inWorkflowTask).toBe(true);
    }
    expect(() => settingsWith('yes')).toThrow(/STEPS_AS_QUEUED_ACTIVITIES: true or false/);
  });

  it('rate limits are built from the configuration (the behaviour: test/api/rate-limits.test.ts)', () => {
    expect(
      rateLimitSettingsFrom(
        loadConfig({
          RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '11',
          RATE_LIMIT_PER_KEY_PER_MINUTE: '12',
          RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '13',
          RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: '14',
          RATE_LIMIT_FORGERIES_PER_MINUTE: '15',
        }),
      ),
    ).toEqual({
      perAddressPerMinute: 11,
      perKeyPerMinute: 12,
      authFailuresPerMinute: 13,
      notificationsPerMinute: 14,
      forgedNotificationsPerMinute: 15,
    });
  });

  it('the worker is sized from the configuration; unset, its cache from the heap limit', () => {
    expect(
      workerTuningOf(
        loadConfig({
          WORKER_CACHED_WORKFLOWS: '5000',
          WORKER_WORKFLOW_TASK_SLOTS: '8',
          WORKER_ACTIVITY_TASK_SLOTS: '64',
          WORKER_WORKFLOW_TASK_POLLERS: '12',
          WORKER_NON_STICKY_POLL_SHARE: '0.5',
        }),
      ),
    ).toEqual({
      maxCachedWorkflows: 5000,
      maxConcurrentWorkflowTaskExecutions: 8,
      maxConcurrentActivityTaskExecutions: 64,
      nonStickyToStickyPollRatio: 0.5,
      // No more polls than slots to run what they bring.
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 8 },
    });
    expect(workerTuningOf(loadConfig({}), 4144)).toEqual({
      // Node's default heap limit on a host with 16 GiB or more: 10,000 waiting on two workers fit.
      maxCachedWorkflows: 6573,
      maxConcurrentWorkflowTaskExecutions: 40,
      maxConcurrentActivityTaskExecutions: 100,
      nonStickyToStickyPollRatio: 0.2,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
    });
    // A small heap keeps a small cache, never fewer than the SDK's least.
    expect(cachedWorkflowsFor(1024)).toBe(1373);
    expect(cachedWorkflowsFor(128)).toBe(2);
    expect(() => loadConfig({ WORKER_CACHED_WORKFLOWS: '1' })).toThrow(
      /WORKER_CACHED_WORKFLOWS: must be at least 2/,
    );
    expect(() => loadConfig({ WORKER_NON_STICKY_POLL_SHARE: '0' })).toThrow(
      /WORKER_NON_STICKY_POLL_SHARE: must be above 0/,
    );
    expect(() => loadConfig({ WORKER_NON_STICKY_POLL_SHARE: '1.5' })).toThrow(
      /WORKER_NON_STICKY_POLL_SHARE: must be at most 1/,
    );
  });

  it.each(Object.keys(configSchema.shape) as (keyof Config)[])('%s has a test that proves it', (name) => {
    const proof = PROOFS[name];
    expect(proof, `${name} has no entry in PROOFS`).toBeDefined();
    if (proof === CLUSTER)
      expect(fs.readdirSync('test/cluster').some((f) => f.endsWith('.test.ts'))).toBe(true);
    expect(fs.readFileSync(proof, 'utf8')).toContain(name === 'TEMPORAL_NAMESPACE' ? 'namespace' : name);
  });
});
