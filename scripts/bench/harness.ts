/**
 * A whole payrun stack in one process for benchmarks: a throwaway embedded PostgreSQL, the Temporal
 * dev server, the sandbox with no artificial delays, the API and a worker. Real components, real HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildApi, type ApiServices } from '../../api/build';
import { createApiKey } from '../../db/shared/api-keys';
import { startEmbeddedPostgres } from '../../db/shared/embedded-postgres';
import { createDb, withDatabaseName, type Db } from '../../db/shared/knex';
import { migrateLatest } from '../../db/shared/migrator';
import { loadConfig, type Config } from '../../platform/config';
import { createDataConverter } from '../../platform/data-converter';
import { createLogger } from '../../platform/logger';
import type { GatewaySettings } from '../../platform/require-services';
import { generateSandboxKeyPair, startSandbox } from '../../sandbox';
import type { LedgerEntry } from '../../sandbox/ledger';
import type { IpnLogEntry } from '../../sandbox/ipn';
import type { Activities } from '../../activities';
import { buildActivities, buildWorker } from '../../workers/build';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../../contracts/shared';
import { createDatabaseIfMissing } from '../stack';
import { freePort } from '../cluster/readiness';
import { resolveDevServer } from '../temporal-binaries';
import { queryCounter, type CostProbe } from './costs';
import { isLocalActivity, localActivityName } from '../../platform/local-activity-markers';

/** The sandbox's side, in process or over its HTTP admin API. */

/** The dev shape's task queue (the cluster shape runs on the configured one, `payrun` by default). */
export const BENCH_TASK_QUEUE = 'bench';
export interface BenchGateway {
  ledger(): Promise<LedgerEntry[]>;
  /** Every notification the sandbox sent, each attempt with its outcome. */
  ipnLog(): Promise<IpnLogEntry[]>;
  setAutoApprove(enabled: boolean): Promise<void>;
  /** The simulated customer approves an order waiting for them. */
  approve(orderId: string): Promise<void>;
}

/** A process of the stack, for its peak RSS. */
export interface BenchProcess {
  name: string;
  pid: number;
}

export interface BenchStack {
  /** Which shape the figures are from. */
  shape: 'dev' | 'cluster';
  db: Db;
  gateway: BenchGateway;
  apiUrl: string;
  makerKey: string;
  approverKey: string;
  viewerKey: string;
  /** Role `payments`: one-time payments through the API. */
  paymentsKey: string;
  /**
   * What the workers are given to reach the gateway. The payments floor calls the sandbox with it
   * directly; the ipn bench signs notifications with its keys, the keys the sandbox signs with.
   */
  gatewaySettings: GatewaySettings;
  /** The activities as a worker of this stack builds them: the floor calls them without Temporal. */
  activities: Activities;
  processes(): BenchProcess[];
  /** One workflow's history, where the time of a process goes in events and activities. */
  history(workflowId: string): Promise<HistorySummary>;
  /** A Temporal client with payrun's data converter: what starts or signals a workflow as the API does. */
  sealed: Client;
  /** The stack's Temporal frontend, for a benchmark that runs a worker of its own (`workflow-floor`). */
  temporalAddress: string;
  /** What the writes-per-item figures read (scripts/bench/costs.ts); `settleMs`: wait before reading. */
  costs: CostProbe & { settleMs: number };
  /**
   * Another API process of this stack, built in the bench process as `buildApi` builds every one, with
   * these settings over the stack's (a comparison switch such as IPN_SIGNAL_BEFORE_ANSWER); its relay
   * runs. Closed with the stack at the latest.
   */
  startApi(settings: Record<string, string>): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** An API process inside the bench process: the app on a free loopback port, and its relay. */
export async function listenApi(
  config: Config,
  services: ApiServices,
  opened: Array<() => Promise<void>>,
): Promise<{ url: string; close(): Promise<void> }> {
  const { app, relay, listeners } = buildApi(config, services);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  relay.start();
  listeners.start();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise((resolve) => server.close(resolve));
    await Promise.all([relay.stop(), listeners.stop()]);
  };
  opened.push(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

export interface HistorySummary {
  events: number;
  workflowTasks: number;
  /** Activity type → times scheduled. */
  activities: Record<string, number>;
  /** Signals the workflow received. */
  signals: number;
}

/** Counts what one history asked of Temporal: events, workflow tasks, activities by type. */
export async function summarizeHistory(client: Client, workflowId: string): Promise<HistorySummary> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const activities: Record<string, number> = {};
  for (const event of events) {
    const local = isLocalActivity(event) ? `${localActivityName(event) ?? 'unnamed'} (local)` : undefined;
    const name = local ?? event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) activities[name] = (activities[name] ?? 0) + 1;
  }
  const workflowTasks = events.filter((event) => event.workflowTaskCompletedEventAttributes).length;
  const signals = events.filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  return { events: events.length, workflowTasks, activities, signals };
}

/** No artificial delays: the figures measure payrun and Temporal, not the simulator's pauses. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
  RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: '0',
  RATE_LIMIT_FORGERIES_PER_MINUTE: '0',
};

export const BENCH_SANDBOX_TIMING = {
  ipnDelayMs: 0,
  batchValidationMs: 0,
  batchPaymentMs: 0,
  pendingSettleMs: 1000,
  // billing-day holds every customer until the last subscription is created: at 10,000 that takes longer
  // than the gateway's 15-minute link (payrun itself waits authorizationGiveUpAfter, 30 minutes).
  linkValidityMs: 30 * 60_000,
};

/**
 * `switches`: configuration over the bench's own, for a benchmark's previous design (`--previous`,
 * scripts/bench/main.ts).
 */
export async function startBenchStack(switches: Record<string, string> = {}): Promise<BenchStack> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-bench-'));
  fs.chmodSync(scratch, 0o755);
  const cluster = await startEmbeddedPostgres({
    dataDir: path.join(scratch, 'pg'),
    port: await freePort(),
    persistent: false,
  });
  await createDatabaseIfMissing(cluster.url, 'bench');
  const db = createDb(withDatabaseName(cluster.url, 'bench'), { poolMax: 20 });
  await migrateLatest(db);
  // The API's and the worker's round trips are counted; the benchmark's own reads go through `benchDb`.
  const appQueries = queryCounter(db);
  const benchDb = createDb(withDatabaseName(cluster.url, 'bench'), { poolMax: 5 });

  const keyring = { currentKeyId: 'bench', keys: new Map([['bench', randomBytes(32)]]) };
  const dataConverter = createDataConverter(keyring);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: await resolveDevServer({ build: true }),
      searchAttributes: PAYRUN_SEARCH_ATTRIBUTES,
      ...(process.env.BENCH_TASK_QUEUE_PARTITIONS && {
        extraArgs: ['Read', 'Write'].flatMap((kind) => [
          '--dynamic-config-value',
          `matching.numTaskqueue${kind}Partitions=${process.env.BENCH_TASK_QUEUE_PARTITIONS}`,
        ]),
      }),
    },
    client: { dataConverter },
  });
  const merchant = {
    partnerCode: 'BENCH',
    accessKey: 'bench-access',
    secretKey: 'bench-secret-key-0123456789abcde',
  };
  const keyPair = generateSandboxKeyPair();
  const sandbox = await startSandbox({
    merchant,
    keyPair,
    timing: BENCH_SANDBOX_TIMING,
    balances: { VND: 10_000_000_000_000 },
  });
  // Benchmarks measure throughput, so no rate limit unless asked; PAYOUT_, RATE_LIMIT_ and REMITTANCE_
  // settings come from the environment (the uploads and rate-limit benches set them).
  const configInput = {
    TEMPORAL_TASK_QUEUE: BENCH_TASK_QUEUE,
    CUSTOMER_KEY_SECRET: randomBytes(32).toString('base64url'),
    DECISION_SIGNING_KEY: randomBytes(32).toString('base64url'),
    ...NO_RATE_LIMITS,
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) =>
        /^(PAYOUT|RATE_LIMIT|REMITTANCE)_|^GATEWAY_RATE_LIMITS$|^SUBSCRIPTION_BILLING_PATH$/.test(name),
      ),
    ),
    ...switches,
  };
  const config = loadConfig(configInput);
  const extraApis: Array<() => Promise<void>> = [];
  const logger = createLogger('silent');
  const { app, relay, listeners } = buildApi(config, { db, temporal: env.client, logger, merchant, keyring });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  relay.start();
  listeners.start();
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const services = {
    db,
    gateway: { baseUrl: sandbox.url, ...merchant, publicKey: keyPair.publicKeyPem },
    keyring,
    publicBaseUrl: apiUrl,
  };
  const worker = await buildWorker(config, { connection: env.nativeConnection, ...services });
  const running = worker.run();
  return {
    shape: 'dev',
    db: benchDb,
    gateway: {
      ledger: async () => sandbox.admin.ledger(),
      ipnLog: async () => sandbox.admin.ipnLog(),
      setAutoApprove: async (enabled) => sandbox.admin.setAutoApprove(enabled),
      approve: async (orderId) => void sandbox.admin.approvePayment(orderId),
    },
    activities: buildActivities(config, { ...services, db: benchDb }),
    // One process: the API, the worker and the sandbox (the dev server is the SDK's child, not measured).
    processes: () => [{ name: 'payrun (API + worker + sandbox)', pid: process.pid }],
    history: (workflowId) => summarizeHistory(env.client, workflowId),
    sealed: env.client,
    temporalAddress: env.address,
    costs: {
      temporal: env.client,
      database: {
        method: "knex 'query' events of the API and the worker: every round trip",
        read: async () => ({ 'DB round trips': appQueries() }),
      },
      settleMs: 0,
    },
    startApi: (settings) =>
      listenApi(
        loadConfig({ ...configInput, ...settings }),
        { db, temporal: env.client, logger, merchant, keyring },
        extraApis,
      ),
    apiUrl,
    makerKey: (await createApiKey(db, 'bench-maker', ['payouts-maker'])).key,
    approverKey: (await createApiKey(db, 'bench-approver', ['payouts-approver'])).key,
    viewerKey: (await createApiKey(db, 'bench-viewer', ['viewer'])).key,
    paymentsKey: (await createApiKey(db, 'bench-payments', ['payments'])).key,
    gatewaySettings: services.gateway,
    async close() {
      for (const closeApi of extraApis) await closeApi();
      worker.shutdown();
      await running;
      await new Promise((resolve) => server.close(resolve));
      await Promise.all([relay.stop(), listeners.stop()]);
      await sandbox.close();
      await env.teardown();
      await db.destroy();
      await benchDb.destroy();
      await cluster.stop();
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
