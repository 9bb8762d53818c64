/**
 * Everything a payment touches, for one test file: the sandbox gateway over real HTTP, payrun's API
 * (payments, refunds, the IPN receivers and the redirect page the sandbox calls) and a real worker,
 * on the given Temporal environment and the run's own database.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PaymentSettings } from '../../api/payments/payments';
import { callApi } from '../support/api';
import { durationMs } from '../../contracts/shared';
import { useStack, type StackFixture, type StackOptions } from '../support/stack';

export type PaymentFixture = StackFixture<'key' | 'viewerKey'>;

/** How long payrun and the sandbox hold an authorization in tests (the gateway's is 7 days). */
export const TEST_HOLD = '2 hours';

export const testPaymentSettings = (taskQueue: string): PaymentSettings => ({
  taskQueue,
  payment: {
    gatewayAttemptTimeout: '10 seconds',
    ipnTimeout: '5 seconds',
    maxQueryInterval: '1 minute',
    resultWait: '1 hour',
    authorizationHold: TEST_HOLD,
  },
  refund: {
    gatewayAttemptTimeout: '10 seconds',
    firstCheck: '5 seconds',
    maxInterval: '1 minute',
    giveUpAfter: '1 day',
  },
  answerWaitMs: 10_000,
});

export function usePaymentStack(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: Pick<StackOptions<never>, 'clock'> = {},
): PaymentFixture {
  const taskQueue = `payments-${randomUUID()}`;
  return useStack(createEnv, {
    ...options,
    sandbox: { timing: { authorizationHoldMs: durationMs(TEST_HOLD) } },
    taskQueue,
    app: { payments: testPaymentSettings(taskQueue) },
    keys: {
      key: { name: 'payments', roles: ['payments'] },
      viewerKey: { name: 'viewer', roles: ['viewer'] },
    },
  });
}

export const call = (
  fixture: PaymentFixture,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
  headers?: Record<string, string>,
) => callApi(fixture.api, key ?? fixture.key, method, path, body, headers);
