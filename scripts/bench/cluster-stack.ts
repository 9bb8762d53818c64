/**
 * The benchmarks on the production shape: `startCluster` (what `npm run cluster` runs) on free ports in a
 * throwaway folder, with the same sandbox timing as the dev-shape bench so the figures compare.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../db/api-keys';
import { createDb } from '../../db/knex';
import { startClusterOnFreePorts } from '../cluster/cluster';
import { sandboxAdminClient } from '../cluster/sandbox-admin';
import { BENCH_SANDBOX_TIMING, type BenchStack } from './harness';

export async function startClusterBenchStack(
  workers = Number(process.env.BENCH_WORKERS ?? 2),
): Promise<BenchStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-bench-cluster-'));
  const cluster = await startClusterOnFreePorts({
    dataDir,
    workers,
    logLevel: 'warn',
    sandboxTiming: BENCH_SANDBOX_TIMING,
    apiSettings: {
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 0,
      RATE_LIMIT_PER_KEY_PER_MINUTE: 0,
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 0,
    },
  });
  const db = createDb(cluster.urls.database, { poolMax: 20 });
  const admin = sandboxAdminClient(cluster.urls.sandbox);
  return {
    shape: 'cluster',
    db,
    gateway: { ledger: admin.ledger, setAutoApprove: admin.setAutoApprove },
    apiUrl: cluster.urls.api,
    makerKey: (await createApiKey(db, 'bench-maker', ['payouts-maker'])).key,
    approverKey: (await createApiKey(db, 'bench-approver', ['payouts-approver'])).key,
    viewerKey: (await createApiKey(db, 'bench-viewer', ['viewer'])).key,
    async close() {
      await db.destroy();
      await cluster.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
