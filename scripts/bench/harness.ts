/**
 * A whole payrun stack in one process for benchmarks: a throwaway embedded PostgreSQL, the Temporal
 * dev server, the sandbox with no artificial delays, the API and a worker. Real components, real HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildApp } from '../../api/build';
import { createApiKey } from '../../db/api-keys';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { createDb, withDatabaseName, type Db } from '../../db/knex';
import { migrateLatest } from '../../db/migrator';
import { loadConfig } from '../../platform/config';
import { createDataConverter } from '../../platform/data-converter';
import { createLogger } from '../../platform/logger';
import { generateSandboxKeyPair, startSandbox } from '../../sandbox';
import type { LedgerEntry } from '../../sandbox/ledger';
import { buildWorker } from '../../workers/build';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { createDatabaseIfMissing } from '../stack';
import { resolveDevServer } from '../temporal-binaries';

/** The sandbox's side, in process or over its HTTP admin API. */
export interface BenchGateway {
  ledger(): Promise<LedgerEntry[]>;
  setAutoApprove(enabled: boolean): Promise<void>;
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
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** No artificial delays: the figures measure payrun and Temporal, not the simulator's pauses. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
  RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
};

export const BENCH_SANDBOX_TIMING = {
  ipnDelayMs: 0,
  batchValidationMs: 0,
  batchPaymentMs: 0,
  pendingSettleMs: 1000,
};

export async function startBenchStack(): Promise<BenchStack> {
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

  const keyring = { currentKeyId: 'bench', keys: new Map([['bench', randomBytes(32)]]) };
  const dataConverter = createDataConverter(keyring);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: await resolveDevServer({ build: true }),
      searchAttributes: PAYRUN_SEARCH_ATTRIBUTES,
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
  const config = loadConfig({
    TEMPORAL_TASK_QUEUE: 'bench',
    CUSTOMER_KEY_SECRET: randomBytes(32).toString('base64url'),
    ...NO_RATE_LIMITS,
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => /^(PAYOUT|RATE_LIMIT|REMITTANCE)_/.test(name)),
    ),
  });
  const logger = createLogger('silent');
  const app = buildApp(config, { db, temporal: env.client, logger, merchant, keyring });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const worker = await buildWorker(config, {
    connection: env.nativeConnection,
    db,
    gateway: { baseUrl: sandbox.url, ...merchant, publicKey: keyPair.publicKeyPem },
    keyring,
    publicBaseUrl: apiUrl,
  });
  const running = worker.run();
  return {
    shape: 'dev',
    db,
    gateway: {
      ledger: async () => sandbox.admin.ledger(),
      setAutoApprove: async (enabled) => sandbox.admin.setAutoApprove(enabled),
    },
    apiUrl,
    makerKey: (await createApiKey(db, 'bench-maker', ['payouts-maker'])).key,
    approverKey: (await createApiKey(db, 'bench-approver', ['payouts-approver'])).key,
    viewerKey: (await createApiKey(db, 'bench-viewer', ['viewer'])).key,
    async close() {
      worker.shutdown();
      await running;
      await new Promise((resolve) => server.close(resolve));
      await sandbox.close();
      await env.teardown();
      await db.destroy();
      await cluster.stop();
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
