import { randomUUID } from 'node:crypto';
import type { PayoutSettings } from '../../api/payouts/payout-runs';
import { apiSettingsFrom, type ApiSettings } from '../../api/settings';
import { loadConfig } from '../../platform/config';

/** Payout settings for tests: small waits so fallbacks and retries happen within a test's time. */
export const testPayoutSettings = (taskQueue = 'payrun-test'): PayoutSettings & { uploadLimit: string } => ({
  maxRows: 100_000,
  batchSize: 1000,
  parallelBatches: 2,
  approvalTtlHours: 24,
  taskQueue,
  uploadLimit: '32mb',
  timing: {
    gatewayAttemptTimeout: '3 seconds',
    ipnTimeout: '5 seconds',
    pendingFirstCheck: '2 seconds',
    pendingMaxInterval: '10 seconds',
    pendingGiveUpAfter: '1 hour',
  },
  disbursement: { ipnTimeout: '5 seconds', resultWait: '1 day', inWorkflowTask: true, desk: false },
});

/** The secret test APIs key the PayrunCustomer search attribute with. */
export const TEST_CUSTOMER_KEY_SECRET = 'test-customer-key-secret-0123456789abcdef';

/** The key test APIs sign decisions with and test workers verify them with (DECISION_SIGNING_KEY). */
export const TEST_DECISION_SIGNING_KEY = 'test-decision-signing-key-0123456789abcdef';

export const testMerchant = {
  partnerCode: 'PAYRUNTEST',
  accessKey: 'test-access-key',
  secretKey: 'test-secret-key-32-bytes-long!!!',
};

/**
 * Every capability's settings as production builds them (`apiSettingsFrom` over the defaults), on the
 * test's task queue, with the test payout timing; a test overrides what it exercises. Test files share
 * one database but not one Temporal server, so each API gets a relay scope of its own: its relay signals
 * only what its receivers stored (a test that overrides `notifications` runs on a database of its own).
 */
export const testApiSettings = (
  taskQueue = 'payrun-test',
  overrides: Partial<ApiSettings> = {},
): ApiSettings => {
  const settings = apiSettingsFrom(
    loadConfig({
      TEMPORAL_TASK_QUEUE: taskQueue,
      CUSTOMER_KEY_SECRET: TEST_CUSTOMER_KEY_SECRET,
      DECISION_SIGNING_KEY: TEST_DECISION_SIGNING_KEY,
    }),
  );
  return {
    ...settings,
    notifications: { ...settings.notifications, relayScope: `test-${randomUUID()}` },
    payouts: testPayoutSettings(taskQueue),
    // The payment workflow's own tests run without the desk; test/payments/payment-desk.test.ts turns it on.
    payments: { ...settings.payments, desk: false },
    // As the subscription workflow's own tests: test/subscriptions/subscription-desk.test.ts turns it on.
    subscriptions: { ...settings.subscriptions, desk: false },
    ...overrides,
  };
};
