/**
 * Everything a payment touches, for one test file: the sandbox gateway over real HTTP, payrun's API
 * (payments, refunds, the IPN receivers and the redirect page the sandbox calls) and a real worker,
 * on the given Temporal environment and the run's own database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createApp } from '../../api/app';
import type { PaymentSettings } from '../../api/payments/payments';
import type { Db } from '../../db/knex';
import { createLogger } from '../../platform/logger';
import { generateSandboxKeyPair, startSandbox, type Sandbox } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testMerchant, testPayoutSettings } from '../support/settings';
import { createTestWorker } from '../support/temporal';

export interface PaymentFixture {
  env: TestWorkflowEnvironment;
  db: Db;
  sandbox: Sandbox;
  api: RunningApi;
  key: string;
  viewerKey: string;
}

const keyPair = generateSandboxKeyPair();

export const testPaymentSettings = (taskQueue: string): PaymentSettings => ({
  taskQueue,
  payment: {
    gatewayAttemptTimeout: '10 seconds',
    ipnTimeout: '5 seconds',
    maxQueryInterval: '1 minute',
    resultWait: '1 hour',
  },
  refund: {
    gatewayAttemptTimeout: '10 seconds',
    firstCheck: '5 seconds',
    maxInterval: '1 minute',
    giveUpAfter: '1 day',
  },
  answerWaitMs: 10_000,
});

export function usePaymentStack(createEnv: () => Promise<TestWorkflowEnvironment>): PaymentFixture {
  const fixture = {} as PaymentFixture;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    const logger = createLogger('silent');
    const taskQueue = `payments-${randomUUID()}`;
    fixture.env = await createEnv();
    fixture.db = connectTestDatabase();
    fixture.sandbox = await startSandbox({
      merchant: testMerchant,
      keyPair,
      timing: { ipnDelayMs: 5, pendingSettleMs: 300 },
    });
    fixture.api = await listen(
      createApp({
        db: fixture.db,
        temporal: fixture.env.client,
        logger,
        merchant: testMerchant,
        payouts: testPayoutSettings(taskQueue),
        payments: testPaymentSettings(taskQueue),
      }),
    );
    const activities = createActivities({
      db: fixture.db,
      gateway: createInstrumentedGateway(
        { baseUrl: fixture.sandbox.url, ...testMerchant, publicKey: keyPair.publicKeyPem },
        logger,
      ),
      publicBaseUrl: fixture.api.baseUrl,
    });
    worker = (await createTestWorker(fixture.env, activities, taskQueue)).worker;
    running = worker.run();
    fixture.key = await newKey(fixture.db, ['payments'], `payments-${taskQueue}`);
    fixture.viewerKey = await newKey(fixture.db, ['viewer'], `viewer-${taskQueue}`);
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await fixture.api?.close();
    await fixture.sandbox?.close();
    await fixture.db?.destroy();
    await fixture.env?.teardown();
  });
  return fixture;
}

export async function call(
  fixture: PaymentFixture,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
) {
  const response = await fetch(`${fixture.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key ?? fixture.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await jsonOf(response) };
}
