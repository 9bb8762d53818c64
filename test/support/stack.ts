/**
 * Everything a capability's tests touch, for one test file: the sandbox gateway over real HTTP, payrun's
 * API (its routes and the IPN receivers the sandbox calls) and a real worker, all on the given Temporal
 * environment and the run's own database. The payout, remittance, payment, subscription and token
 * stacks are this with their own options.
 */
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import type { PayrunWorker as Worker } from '../../workers/worker';
import { createActivities, type ActivityDependencies } from '../../activities';
import type { ApiDependencies } from '../../api/app';
import type { Role } from '../../api/auth/roles';
import type { Db } from '../../db/shared/knex';
import type { GatewayClient } from '../../gateway';
import { ipnPaths } from '../../platform/ipn-paths';
import { createLogger, type Logger } from '../../platform/logger';
import { generateSandboxKeyPair, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import type { PayrunWorkerOptions } from '../../workers/worker';
import { createInstrumentedGateway } from '../../workers/gateway';
import { durationMs } from '../../contracts/shared';
import { newKey, serveApi, type RunningApi } from './api';
import { connectTestDatabase, useScratchDatabase } from './database';
import { testApiSettings, TEST_DECISION_SIGNING_KEY, testMerchant } from './settings';
import { createTestWorker, createTimeSkippingEnv, testCodecKeyring, testDataConverter } from './temporal';

export interface StackOptions<K extends string> {
  taskQueue: string;
  /** The API keys to create, by the property that holds them; each is named `${name}-${taskQueue}`. */
  keys: Record<K, { name: string; roles: Role[] }>;
  /** Merged over fast timing (IPN after 5 ms, pending settles after 300 ms) and the default balances. */
  sandbox?: Omit<Partial<SandboxOptions>, 'merchant' | 'keyPair'>;
  /**
   * The sandbox's clock. 'server': it follows the Temporal test server's, catching up before every
   * gateway call, so expiry and "today" agree with workflow time. 'movable': real time plus what
   * `advance()` skipped. Unset: real time.
   */
  clock?: 'server' | 'movable';
  /** The API's and the gateway client's logger; silent by default. */
  logger?: Logger;
  /** Settings of the capabilities under test (unset: the test ones; payouts: testPayoutSettings). */
  app?: Partial<
    Pick<
      ApiDependencies,
      | 'payouts'
      | 'remittance'
      | 'subscriptions'
      | 'payments'
      | 'savedMethods'
      | 'webhooks'
      | 'notifications'
      | 'approvals'
    >
  >;
  /**
   * The API process runs no notification relay (its Temporal client hangs on signals, say): its stored
   * notifications wait for another process's relay. Unset: it runs one, as every API process does.
   */
  withoutRelay?: boolean;
  /**
   * People sign in through this provider (`identityDependencies(prepareTestIdentity())`); read when the API
   * is built, so a getter may hand over what an earlier beforeAll prepared.
   */
  identity?: ApiDependencies['identity'];
  /** What the API's Temporal client becomes (a process that hangs on signals, say); unset: as is. */
  apiTemporal?: (client: Client) => Client;
  /** The API gets a client that does not skip time, so only `advance()` moves workflow time. */
  plainApiClient?: boolean;
  /** Points the sandbox's unbind notifications at the API's receiver. */
  unbindToApi?: boolean;
  /** Merchant secret, token keyring and webhook delivery; unset: the test merchant's, the public test keyring. */
  activities?: Partial<
    Pick<
      ActivityDependencies,
      | 'merchantSecrets'
      | 'webhooks'
      | 'notices'
      | 'autoResumeFunded'
      | 'approvalPolicy'
      | 'billingRunSignalsSuccess'
      | 'billingRunParallelChunks'
      | 'subscriptionPayPerSecond'
    >
  >;
  workerTuning?: PayrunWorkerOptions['tuning'];
  /** Per-operation rate limits of the workers' operation queues (GATEWAY_RATE_LIMITS). */
  operationRateLimits?: PayrunWorkerOptions['operationRateLimits'];
  /** Worker processes polling the same queues (as `npm run cluster` runs several); 1 by default. */
  workers?: number;
}

export type Stack<K extends string = never> = {
  sandbox: Sandbox;
  api: RunningApi;
  taskQueue: string;
  /** Starts a worker (again, after a simulated crash), on another workflow bundle when given. */
  startWorker(workflowBundlePath?: string): Promise<void>;
  /** Stops the worker as a crash would, without waiting for running activities to finish. */
  stopWorker(): Promise<void>;
  /** Skips Temporal time, and moves a 'movable' sandbox clock along with it. */
  advance(duration: string): Promise<void>;
  close(): Promise<void>;
} & Record<K, string>;

const keyPair = generateSandboxKeyPair();

export async function startStack<K extends string>(
  env: TestWorkflowEnvironment,
  db: Db,
  options: StackOptions<K>,
): Promise<Stack<K>> {
  const { taskQueue, clock } = options;
  const logger = options.logger ?? createLogger('silent');
  let serverTime = clock === 'server' ? await env.currentTimeMs() : 0;
  let offset = 0;
  // The sandbox and the API's daily rules read the same clock, so "today" agrees with workflow time.
  const now =
    clock === 'server' ? () => serverTime : clock === 'movable' ? () => Date.now() + offset : undefined;
  const sandbox = await startSandbox({
    merchant: testMerchant,
    keyPair,
    ...options.sandbox,
    timing: { ipnDelayMs: 5, pendingSettleMs: 300, ...options.sandbox?.timing },
    ...(now && { now }),
  });
  const apiDeps: ApiDependencies = {
    db,
    temporal: (options.apiTemporal ?? ((client: Client) => client))(
      options.plainApiClient
        ? new Client({ connection: env.connection, dataConverter: testDataConverter })
        : env.client,
    ),
    logger,
    merchant: testMerchant,
    keyring: testCodecKeyring,
    ...testApiSettings(taskQueue, options.app),
    ...(now && { now }),
    ...(options.identity && { identity: options.identity }),
  };
  const api = await serveApi(apiDeps, { relay: !options.withoutRelay });
  if (options.unbindToApi) sandbox.admin.setUnbindUrl(`${api.baseUrl}${ipnPaths.unbind}`);
  const real = createInstrumentedGateway(
    { baseUrl: sandbox.url, ...testMerchant, publicKey: keyPair.publicKeyPem },
    logger,
  );
  const gateway: GatewayClient =
    clock === 'server'
      ? {
          prepare: real.prepare,
          call: async (operation, fields, callOptions) => {
            serverTime = await env.currentTimeMs();
            return real.call(operation, fields, callOptions);
          },
        }
      : real;
  const activities = createActivities({
    db,
    gateway,
    publicBaseUrl: api.baseUrl,
    merchantSecrets: { merchantSecretKey: testMerchant.secretKey, keyring: testCodecKeyring },
    webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: true },
    decisionKey: TEST_DECISION_SIGNING_KEY,
    ...options.activities,
  });

  const keys = {} as Record<K, string>;
  for (const [property, { name, roles }] of Object.entries(options.keys) as [
    K,
    StackOptions<K>['keys'][K],
  ][]) {
    keys[property] = await newKey(db, roles, `${name}-${taskQueue}`);
  }

  let workers: Worker[] = [];
  let running: Promise<void>[] = [];
  let connections: NativeConnection[] = [];
  const stack = {
    sandbox,
    api,
    taskQueue,
    ...keys,
    async startWorker(workflowBundlePath?: string) {
      for (let i = 0; i < (options.workers ?? 1); i += 1) {
        const connection =
          i === 0 ? env.nativeConnection : await NativeConnection.connect({ address: env.address });
        if (i > 0) connections.push(connection);
        const { worker } = await createTestWorker(
          env,
          activities,
          taskQueue,
          options.workerTuning,
          workflowBundlePath,
          options.operationRateLimits,
          connection,
        );
        workers.push(worker);
        running.push(worker.run());
      }
    },
    async stopWorker() {
      for (const worker of workers) worker.shutdown();
      await Promise.all(running);
      workers = [];
      running = [];
      await Promise.all(connections.map((connection) => connection.close()));
      connections = [];
    },
    async advance(duration: string) {
      offset += durationMs(duration);
      await env.sleep(duration);
    },
    async close() {
      await stack.stopWorker();
      await api.close();
      await sandbox.close();
    },
  } as Stack<K>;
  await stack.startWorker();
  return stack;
}

export type StackFixture<K extends string = never> = { env: TestWorkflowEnvironment; db: Db } & Stack<K>;

/**
 * One stack for a test file, started before its tests and closed after them. Read the fields inside
 * tests (they are set in beforeAll): `const t = useStack(createTimeSkippingEnv, { ... })`.
 */
export function useStack<K extends string>(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: StackOptions<K> & {
    hookTimeoutMs?: number;
    /** A database of the file's own (useScratchDatabase), for files that hold what every file's rows obey. */
    database?: { db: Db };
  },
): StackFixture<K> {
  const fixture = {} as StackFixture<K>;
  beforeAll(async () => {
    fixture.env = await createEnv();
    fixture.db = options.database?.db ?? connectTestDatabase();
    Object.assign(fixture, await startStack(fixture.env, fixture.db, options));
  }, options.hookTimeoutMs);
  afterAll(async () => {
    await fixture.close?.();
    await fixture.db?.destroy();
    await fixture.env?.teardown();
  });
  return fixture;
}

/**
 * One stack on the time-skipping server and a database of the file's own (dropped after it): for files that
 * change what every payment obeys (an approval policy, a hold), which must not reach other files' rows.
 * Read the fields inside tests (they are set in beforeAll).
 */
export function useScratchStack<K extends string>(
  label: string,
  options: StackOptions<K>,
): { env: TestWorkflowEnvironment; db: Db; stack: Stack<K> } {
  const scratch = useScratchDatabase(label);
  const fixture = {} as { env: TestWorkflowEnvironment; db: Db; stack: Stack<K> };
  beforeAll(async () => {
    fixture.env = await createTimeSkippingEnv();
    fixture.db = scratch.db;
    fixture.stack = await startStack(fixture.env, scratch.db, options);
  });
  afterAll(async () => {
    await fixture.stack?.close();
    await fixture.env?.teardown();
  });
  return fixture;
}
