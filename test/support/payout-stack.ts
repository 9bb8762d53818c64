/**
 * Everything a payout run touches, for one test file: the sandbox gateway over real HTTP, payrun's
 * API (uploads, approvals and the IPN receiver the sandbox calls), and a real worker, all on the
 * given Temporal environment and the run's own database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createApp } from '../../api/app';
import type { Db } from '../../db/knex';
import { createLogger, type Logger } from '../../platform/logger';
import type { GatewaySettings } from '../../platform/require-services';
import { generateSandboxKeyPair, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { jsonOf, listen, newKey, type RunningApi } from './api';
import { testMerchant, testPayoutSettings } from './settings';
import { connectTestDatabase } from './database';
import { createTestWorker } from './temporal';

export interface PayoutStack {
  sandbox: Sandbox;
  api: RunningApi;
  taskQueue: string;
  makerKey: string;
  approverKey: string;
  /** Starts a worker (again, after a simulated crash). */
  startWorker(): Promise<void>;
  /** Stops the worker as a crash would, without waiting for running activities to finish. */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

const keyPair = generateSandboxKeyPair();

export async function startPayoutStack(
  env: TestWorkflowEnvironment,
  db: Db,
  options: Pick<SandboxOptions, 'timing' | 'balances'> & { logger?: Logger } = {},
): Promise<PayoutStack> {
  const logger = options.logger ?? createLogger('silent');
  const taskQueue = `payouts-${randomUUID()}`;
  const sandbox = await startSandbox({
    merchant: testMerchant,
    keyPair,
    timing: {
      ipnDelayMs: 5,
      batchValidationMs: 20,
      batchPaymentMs: 20,
      pendingSettleMs: 300,
      ...options.timing,
    },
    balances: { VND: 100_000_000_000, ...options.balances },
  });
  const gateway: GatewaySettings = { baseUrl: sandbox.url, ...testMerchant, publicKey: keyPair.publicKeyPem };
  const api = await listen(
    createApp({
      db,
      temporal: env.client,
      logger,
      merchant: testMerchant,
      payouts: testPayoutSettings(taskQueue),
    }),
  );
  const activities = createActivities({
    db,
    gateway: createInstrumentedGateway(gateway, logger),
    publicBaseUrl: api.baseUrl,
  });

  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const stack: PayoutStack = {
    sandbox,
    api,
    taskQueue,
    makerKey: await newKey(db, ['payouts-maker'], `maker-${taskQueue}`),
    approverKey: await newKey(db, ['payouts-approver'], `approver-${taskQueue}`),
    async startWorker() {
      // No workflow cache: a restarted worker must not leave tasks on a dead worker's sticky queue,
      // which the time-skipping server would hold without timing them out.
      worker = (await createTestWorker(env, activities, taskQueue, { maxCachedWorkflows: 0 })).worker;
      running = worker.run();
    },
    async stopWorker() {
      if (!worker) return;
      worker.shutdown();
      await running;
      worker = undefined;
    },
    async close() {
      await stack.stopWorker();
      await api.close();
      await sandbox.close();
    },
  };
  await stack.startWorker();
  return stack;
}

export const PAYOUT_HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id';

/** A file of `count` rows; `wallet(i)` picks each receiver (sandbox scenarios key on the wallet). */
export function payoutFile(
  prefix: string,
  count: number,
  wallet: (index: number) => string = () => '0912345678',
): string {
  const rows = Array.from(
    { length: count },
    (_, index) =>
      `${prefix}-${index + 1},${wallet(index)},Receiver ${index + 1},,${10_000 + index},Payout ${index + 1},`,
  );
  return [PAYOUT_HEADER, ...rows].join('\n') + '\n';
}

export async function apiCall(
  stack: PayoutStack,
  key: string,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
) {
  const response = await fetch(`${stack.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, body: await jsonOf(response) };
}

export async function uploadAndApprove(stack: PayoutStack, csv: string): Promise<string> {
  const uploaded = await apiCall(
    stack,
    stack.makerKey,
    'POST',
    '/v1/payout-runs?fileName=test.csv',
    csv,
    'text/csv',
  );
  if (uploaded.status !== 201) throw new Error(`upload failed: ${JSON.stringify(uploaded.body)}`);
  const runId = uploaded.body.runId as string;
  const approved = await apiCall(stack, stack.approverKey, 'POST', `/v1/payout-runs/${runId}/approve`, '{}');
  if (approved.status !== 200) throw new Error(`approve failed: ${JSON.stringify(approved.body)}`);
  return runId;
}

/** Polls payrun's records (not Temporal) until the run reaches one of `statuses`. */
export async function waitForRunStatus(
  db: Db,
  runId: string,
  statuses: string[],
  options: { timeoutMs?: number; whileWaiting?: () => Promise<void> } = {},
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + (options.timeoutMs ?? 25_000);
  for (;;) {
    const run = await db('payout_runs').where({ run_id: runId }).first();
    if (run && statuses.includes(run.status)) return run;
    if (Date.now() > deadline) {
      const batches = await db('payout_batches')
        .where({ run_id: runId })
        .select('batch_id', 'status', 'status_reason');
      throw new Error(
        `run ${runId} is ${run?.status}, not ${statuses.join('/')}; batches: ${JSON.stringify(batches)}`,
      );
    }
    await options.whileWaiting?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface PayoutFixture {
  env: TestWorkflowEnvironment;
  db: Db;
  stack: PayoutStack;
}

/**
 * One payout stack for a test file, started before its tests and closed after them. Read the
 * fields inside tests (they are set in beforeAll): `const t = usePayoutStack(createTimeSkippingEnv)`.
 */
export function usePayoutStack(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: Parameters<typeof startPayoutStack>[2] = {},
): PayoutFixture {
  const fixture = {} as PayoutFixture;
  beforeAll(async () => {
    fixture.env = await createEnv();
    fixture.db = connectTestDatabase();
    fixture.stack = await startPayoutStack(fixture.env, fixture.db, options);
  });
  afterAll(async () => {
    await fixture.stack?.close();
    await fixture.db?.destroy();
    await fixture.env?.teardown();
  });
  return fixture;
}
