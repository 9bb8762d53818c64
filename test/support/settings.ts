import type { PayoutSettings } from '../../api/payouts/payout-runs';

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
});

export const testMerchant = {
  partnerCode: 'PAYRUNTEST',
  accessKey: 'test-access-key',
  secretKey: 'test-secret-key-32-bytes-long!!!',
};
