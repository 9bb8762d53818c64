/**
 * The benchmarks on the production shape: `startCluster` (what `npm run cluster` runs) on free ports in a
 * throwaway folder, with the same sandbox timing as the dev-shape bench so the figures compare.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../../db/shared/api-keys';
import { createDb } from '../../db/shared/knex';
import { loadConfig } from '../../platform/config';
import { resolveCodecKeyring } from '../../platform/payload-codec';
import { buildActivities } from '../../workers/build';
import { startClusterOnFreePorts } from '../cluster/cluster';
import { sandboxAdminClient } from '../cluster/sandbox-admin';
import { BENCH_SANDBOX_TIMING, listenApi, summarizeHistory, type BenchStack } from './harness';
import { queryCounter, resetStatements, statementsOf, transactionsOf, workflowCacheCounters } from './costs';
import { PAYRUN_DATABASE } from '../cluster/cluster';
import { TEMPORAL_DATABASES } from '../cluster/temporal-server';
import { workerSettingsFrom } from '../cluster/environment';
import { createDataConverter } from '../../platform/data-converter';
import { createLogger } from '../../platform/logger';

/** PostgreSQL 15+ backends report their counts when idle, at most every 10 s. */
const STATISTICS_SETTLE_MS = 11_000;

/** `switches`: the API's configuration for a benchmark's previous design (`--previous`). */
export async function startClusterBenchStack(
  workers = Number(process.env.BENCH_WORKERS ?? 2),
  switches: Record<string, string> = {},
): Promise<BenchStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-bench-cluster-'));
  const statementsShown = Number(process.env.BENCH_STATEMENTS ?? 0);
  const workerSizes = workerSettingsFrom(process.env);
  const cluster = await startClusterOnFreePorts({
    dataDir,
    workers,
    logLevel: 'warn',
    sandboxTiming: BENCH_SANDBOX_TIMING,
    ...(process.env.GATEWAY_RATE_LIMITS && { gatewayRateLimits: process.env.GATEWAY_RATE_LIMITS }),
    ...(process.env.BENCH_HISTORY_SHARDS && { historyShards: Number(process.env.BENCH_HISTORY_SHARDS) }),
    ...(process.env.BENCH_CPU_PROFILE && {
      cpuProfileDir: process.env.BENCH_CPU_PROFILE,
    }),
    ...(process.env.BENCH_RELAY_PROCESS === 'true' && { relayProcess: true }),
    ...(statementsShown > 0 && { statementStatistics: true }),
    ...(process.env.BENCH_TASK_QUEUE_PARTITIONS && {
      taskQueuePartitions: Number(process.env.BENCH_TASK_QUEUE_PARTITIONS),
    }),
    // WORKER_CACHED_WORKFLOWS and the other sizes, from the bench's environment, as npm run cluster does.
    workerSettings: workerSizes,
    apiSettings: {
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 0,
      RATE_LIMIT_PER_KEY_PER_MINUTE: 0,
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 0,
      RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: 0,
      RATE_LIMIT_FORGERIES_PER_MINUTE: 0,
    },
    // A comparison switch (or a benchmark's own setting) reaches the API and every worker.
    switches,
  });
  const sizes = Object.entries(workerSizes).map(([name, value]) => `${name}=${value}`);
  console.log(
    `Cluster: ${workers} worker process(es), ${process.env.BENCH_HISTORY_SHARDS ?? 4} history shards, ${process.env.BENCH_TASK_QUEUE_PARTITIONS ?? 'default (4)'} task-queue partitions, worker sizes: ${sizes.join(' ') || 'defaults'}, notifications relayed by ${process.env.BENCH_RELAY_PROCESS === 'true' ? 'a relay process' : 'the API'}`,
  );
  const db = createDb(cluster.urls.database, { poolMax: 20 });
  // Subtracted from payrun's transactions: the benchmark's own queries (one transaction each).
  const benchQueries = queryCounter(db);
  // Histories are only counted, never decoded: no data converter needed.
  const connection = await Connection.connect({ address: cluster.urls.temporal });
  const temporal = new Client({ connection });
  const admin = sandboxAdminClient(cluster.urls.sandbox);
  const workerKeyring = resolveCodecKeyring({
    keysText: cluster.environment.worker(0).PAYLOAD_CODEC_KEYS,
    currentId: cluster.environment.worker(0).PAYLOAD_CODEC_KEY_ID,
  });
  const extraApis: Array<() => Promise<void>> = [];
  return {
    shape: 'cluster',
    db,
    gateway: {
      ledger: admin.ledger,
      ipnLog: admin.ipnLog,
      setAutoApprove: admin.setAutoApprove,
      approve: async (orderId) => void (await admin.call('POST', `/payments/${orderId}/approve`, {})),
    },
    // The floor's activities, built from what a worker of this cluster is given.
    activities: buildActivities(loadConfig(cluster.environment.worker(0)), {
      db,
      gateway: cluster.gateway,
      keyring: workerKeyring,
      publicBaseUrl: cluster.environment.worker(0).PUBLIC_BASE_URL ?? cluster.urls.api,
    }),
    processes: () => cluster.records().map(({ name, pid }) => ({ name, pid })),
    history: (workflowId) => summarizeHistory(temporal, workflowId),
    sealed: new Client({ connection, dataConverter: createDataConverter(workerKeyring) }),
    temporalAddress: cluster.urls.temporal,
    costs: {
      temporal,
      workers: {
        method: "the SDK's counters on each worker's /metrics",
        read: async () => {
          const totals: Record<string, number> = {};
          for (let index = 0; index < workers; index += 1) {
            const port = cluster.environment.worker(index).WORKER_METRICS_PORT;
            const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((answer) => answer.text());
            for (const [name, value] of Object.entries(workflowCacheCounters(text)))
              totals[name] = (totals[name] ?? 0) + value;
          }
          return totals;
        },
      },
      database: {
        method:
          "pg_stat_database transactions: payrun's API and workers (the benchmark's own subtracted), the Temporal server's history and visibility stores",
        read: async () => {
          const xacts = await transactionsOf(db, [
            PAYRUN_DATABASE,
            TEMPORAL_DATABASES.history,
            TEMPORAL_DATABASES.visibility,
          ]);
          return {
            'payrun DB transactions': (xacts[PAYRUN_DATABASE] ?? 0) - benchQueries(),
            'Temporal history-store transactions': xacts[TEMPORAL_DATABASES.history] ?? 0,
            'Temporal visibility-store transactions': xacts[TEMPORAL_DATABASES.visibility] ?? 0,
          };
        },
      },
      settleMs: STATISTICS_SETTLE_MS,
      ...(statementsShown > 0 && {
        statements: {
          top: statementsShown,
          reset: () => resetStatements(db),
          read: () => statementsOf(db),
        },
      }),
    },
    // In the bench process, not a process of the cluster's own: its figures share a core with the load.
    startApi: async (settings) => {
      const environment = { ...cluster.environment.api, ...settings };
      const keyring = resolveCodecKeyring({
        keysText: environment.PAYLOAD_CODEC_KEYS,
        currentId: environment.PAYLOAD_CODEC_KEY_ID,
      });
      const sealing = new Client({ connection, dataConverter: createDataConverter(keyring) });
      return listenApi(
        loadConfig(environment),
        {
          db,
          temporal: sealing,
          logger: createLogger('silent'),
          merchant: cluster.gateway,
          keyring,
        },
        extraApis,
      );
    },
    apiUrl: cluster.urls.api,
    makerKey: (await createApiKey(db, 'bench-maker', ['payouts-maker'])).key,
    approverKey: (await createApiKey(db, 'bench-approver', ['payouts-approver'])).key,
    viewerKey: (await createApiKey(db, 'bench-viewer', ['viewer'])).key,
    paymentsKey: (await createApiKey(db, 'bench-payments', ['payments'])).key,
    gatewaySettings: cluster.gateway,
    async close() {
      for (const closeApi of extraApis) await closeApi();
      await db.destroy();
      await connection.close();
      await cluster.stop();
      if (!process.env.BENCH_KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
      else console.log(`kept ${dataDir}`);
    },
  };
}
