/**
 * Subscription billing for one test file: the sandbox over real HTTP (its clock follows the
 * time-skipping server, so expiry and "today" agree with workflow time), payrun's API with the
 * subscription IPN channel, and a worker that can be stopped and started again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createApp } from '../../api/app';
import type { SubscriptionSettings } from '../../api/subscriptions/settings';
import type { GatewayClient } from '../../gateway';
import type { Db } from '../../db/knex';
import { createLogger } from '../../platform/logger';
import { generateSandboxKeyPair, startSandbox, type Sandbox } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { DEFAULT_SUBSCRIPTION_TIMING } from '../../workflows/subscription-definitions';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testMerchant, testPayoutSettings } from '../support/settings';
import { createTestWorker } from '../support/temporal';

const keyPair = generateSandboxKeyPair();

export interface SubscriptionFixture {
  env: TestWorkflowEnvironment;
  db: Db;
  sandbox: Sandbox;
  api: RunningApi;
  settings: SubscriptionSettings;
  billingKey: string;
  viewerKey: string;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
}

export function useSubscriptionStack(createEnv: () => Promise<TestWorkflowEnvironment>): SubscriptionFixture {
  const fixture = {} as SubscriptionFixture;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    fixture.env = await createEnv();
    fixture.db = connectTestDatabase();
    const taskQueue = `subscriptions-${randomUUID()}`;
    let serverTime = await fixture.env.currentTimeMs();
    fixture.sandbox = await startSandbox({
      merchant: testMerchant,
      keyPair,
      timing: { ipnDelayMs: 5, pendingSettleMs: 300 },
      now: () => serverTime,
    });
    fixture.settings = {
      taskQueue,
      linksWaitMs: 10_000,
      timing: {
        ...DEFAULT_SUBSCRIPTION_TIMING,
        insufficientFundsRetryDelay: '1 day',
        authorizationIpnWait: '10 minutes',
        gatewayAttemptTimeout: '3 seconds',
        pendingCheckInterval: '1 minute',
        cyclesPerRun: 4,
      },
    };
    fixture.api = await listen(
      createApp({
        db: fixture.db,
        temporal: fixture.env.client,
        logger: createLogger('silent'),
        merchant: testMerchant,
        payouts: testPayoutSettings(taskQueue),
        subscriptions: fixture.settings,
      }),
    );
    const real = createInstrumentedGateway({
      baseUrl: fixture.sandbox.url,
      ...testMerchant,
      publicKey: keyPair.publicKeyPem,
    });
    // Before each call the sandbox's clock catches up with the Temporal test server's.
    const gateway: GatewayClient = {
      prepare: real.prepare,
      call: async (operation, fields, options) => {
        serverTime = await fixture.env.currentTimeMs();
        return real.call(operation, fields, options);
      },
    };
    const activities = createActivities({
      db: fixture.db,
      gateway,
      publicBaseUrl: fixture.api.baseUrl,
      subscriptionSecrets: {
        merchantSecretKey: testMerchant.secretKey,
        keyring: { currentKeyId: 'test', keys: new Map([['test', randomBytes(32)]]) },
      },
    });
    fixture.startWorker = async () => {
      worker = (await createTestWorker(fixture.env, activities, taskQueue, { maxCachedWorkflows: 0 })).worker;
      running = worker.run();
    };
    fixture.stopWorker = async () => {
      if (!worker) return;
      worker.shutdown();
      await running;
      worker = undefined;
    };
    fixture.billingKey = await newKey(fixture.db, ['billing'], `billing-${taskQueue}`);
    fixture.viewerKey = await newKey(fixture.db, ['viewer'], `viewer-${taskQueue}`);
    await fixture.startWorker();
  });
  afterAll(async () => {
    await fixture.stopWorker?.();
    await fixture.api?.close();
    await fixture.sandbox?.close();
    await fixture.db?.destroy();
    await fixture.env?.teardown();
  });
  return fixture;
}

export async function call(
  fixture: SubscriptionFixture,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
) {
  const response = await fetch(`${fixture.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key ?? fixture.billingKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await jsonOf(response) };
}
