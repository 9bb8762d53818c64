/**
 * Every capability that sends the gateway an orderId, on one stack: payments, disbursements, subscriptions,
 * remittances, saved methods and payout runs through the API, a real worker, and the sandbox, whose
 * `admin.requests()` lists every id it received (test/api/order-id-*.test.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defaultSavedMethodSettings } from '../../api/saved-methods/saved-methods';
import { subscriptionSettingsFrom } from '../../api/subscriptions/settings';
import { loadConfig } from '../../platform/config';
import { testPaymentSettings } from '../payments/payment-stack';
import { callApi } from './api';
import { testRemittanceSettings } from './remittance-stack';
import { testMerchant } from './settings';
import { useStack, type StackFixture, type StackOptions } from './stack';
import { freshId } from './ids';

export type OrderIdFixture = StackFixture<'adminKey' | 'makerKey' | 'approverKey'>;

export function useOrderIdStack(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: Pick<StackOptions<never>, 'clock' | 'plainApiClient'> = {},
): OrderIdFixture {
  const taskQueue = `order-ids-${randomUUID()}`;
  const subscriptions = subscriptionSettingsFrom(loadConfig({}), taskQueue);
  return useStack(createEnv, {
    ...options,
    taskQueue,
    sandbox: {
      timing: { pendingSettleMs: 300, batchValidationMs: 20, batchPaymentMs: 20, customerDelayMs: 10 },
      balances: { VND: 100_000_000_000, USD: 10_000 },
    },
    app: {
      // A create answers 202 after 2 s without the gateway's answer (a flow an activity stopped never has one).
      payments: { ...testPaymentSettings(taskQueue), answerWaitMs: 2_000 },
      subscriptions: {
        ...subscriptions,
        desk: false,
        linksWaitMs: 5_000,
        timing: {
          ...subscriptions.timing,
          gatewayAttemptTimeout: '3 seconds',
          pendingCheckInterval: '1 minute',
        },
      },
      remittance: testRemittanceSettings(taskQueue),
      savedMethods: defaultSavedMethodSettings(taskQueue, '3 seconds'),
    },
    activities: {
      merchantSecrets: {
        merchantSecretKey: testMerchant.secretKey,
        keyring: { currentKeyId: 'ids', keys: new Map([['ids', randomBytes(32)]]) },
      },
    },
    keys: {
      adminKey: { name: 'admin', roles: ['admin'] },
      // Nobody moves money alone: a payout run is uploaded by one key and approved by another.
      makerKey: { name: 'maker', roles: ['payouts-maker'] },
      approverKey: { name: 'approver', roles: ['payouts-approver'] },
    },
    workerTuning: { maxCachedWorkflows: 0 },
    hookTimeoutMs: 60_000,
  });
}

export const call = (
  fixture: OrderIdFixture,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => callApi(fixture.api, fixture.adminKey, method, path, body, headers);

// ---- request bodies

export const paymentBody = (paymentId: string) => ({
  paymentId,
  requestType: 'captureWallet',
  amount: 150_000,
  orderInfo: 'Order',
});

export const disbursementBody = (disbursementId: string) => ({
  disbursementId,
  amount: 250_000,
  description: 'Payout',
  wallet: { walletId: '0912345678', walletName: 'Tran Thi B' },
});

/** A FIXED monthly subscription whose first charge is on `nextPaymentDate` (nothing charged at creation). */
export const subscriptionBody = (subscriptionId: string, nextPaymentDate = '2030-01-15') => ({
  subscriptionId,
  partnerClientId: freshId('member-', 8),
  amount: 0,
  orderInfo: 'Gym membership',
  subscriptionInfo: {
    name: 'Gym',
    type: 'FIXED',
    recurringAmount: 100_000,
    frequency: 'MONTHLY',
    nextPaymentDate,
  },
});
