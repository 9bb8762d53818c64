/**
 * The production shape for one test file: `startCluster` (what `npm run cluster` runs) on free ports,
 * with its own embedded PostgreSQL and data folder, 2 worker processes. Tests drive it only over HTTP:
 * payrun's API, and the sandbox's admin API for the customer's side (approvals, OTPs, the ledger).
 * The one shortcut is creating API keys in the cluster's database, as `npm run keys` does.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { Role } from '../../api/auth/roles';
import { createApiKey } from '../../db/shared/api-keys';
import { createDb, type Db } from '../../db/shared/knex';
import { startClusterOnFreePorts, type Cluster } from '../../scripts/cluster/cluster';
import type { LedgerEntry } from '../../sandbox/ledger';
import { jsonOf } from '../support/api';

export interface ClusterFixture {
  cluster: Cluster;
  db: Db;
  temporal: Client;
  key(roles: Role[]): Promise<string>;
  api(
    key: string,
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  sandbox<T = any>(method: string, path: string, body?: unknown): Promise<T>; // eslint-disable-line @typescript-eslint/no-explicit-any
  ledger(): Promise<LedgerEntry[]>;
  /** Identities of the workers that completed workflow or activity tasks of a workflow (its latest run). */
  workerIdentities(workflowId: string): Promise<Set<string>>;
  /** A worker process's Temporal identity: the SDK's default, `<pid>@<host>`. */
  identityOf(workerName: string): string;
}

let keyCounter = 0;

export function useCluster(
  options: { workers?: number; sandboxTiming?: Record<string, number>; relayProcess?: boolean } = {},
): ClusterFixture {
  const fixture = {} as ClusterFixture;
  let dataDir: string;
  let connection: Connection | undefined;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-cluster-test-'));
    const workers = options.workers ?? 2;
    const cluster = await startClusterOnFreePorts({
      dataDir,
      workers,
      logLevel: 'info',
      ...(options.sandboxTiming && { sandboxTiming: options.sandboxTiming }),
      ...(options.relayProcess && { relayProcess: true }),
      // Bill subscriptions due today at once; a killed worker's call and a lost notification are
      // retried or asked about within a test's patience (the production defaults are 2 minutes).
      // Tests poll their runs' status far more often than people do: no rate limits here.
      apiSettings: {
        RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 0,
        RATE_LIMIT_PER_KEY_PER_MINUTE: 0,
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 0,
        SUBSCRIPTION_BILLING_HOUR: 0,
        PAYOUT_GATEWAY_ATTEMPT_SECONDS: 30,
        PAYOUT_IPN_TIMEOUT_SECONDS: 10,
        DISBURSEMENT_IPN_TIMEOUT_SECONDS: 10,
        REMITTANCE_IPN_TIMEOUT_SECONDS: 10,
      },
    });
    connection = await Connection.connect({ address: cluster.urls.temporal });
    Object.assign(fixture, {
      cluster,
      db: createDb(cluster.urls.database),
      // Histories only: payloads stay encrypted, as the server stores them.
      temporal: new Client({ connection }),
      async key(roles: Role[]) {
        return (await createApiKey(fixture.db, `cluster-${roles.join('+')}-${++keyCounter}`, roles)).key;
      },
      async api(
        key: string,
        method: string,
        route: string,
        body?: unknown,
        contentType = 'application/json',
      ) {
        const response = await fetch(`${cluster.urls.api}${route}`, {
          method,
          // Every create carries a fresh Idempotency-Key, as a careful client does (required on some).
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': contentType,
            ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
          },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
      async sandbox(method: string, route: string, body?: unknown) {
        const response = await fetch(`${cluster.urls.sandbox}/__sandbox${route}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        if (!response.ok)
          throw new Error(`sandbox ${method} ${route}: ${response.status} ${await response.text()}`);
        return jsonOf(response);
      },
      ledger: () => fixture.sandbox<LedgerEntry[]>('GET', '/ledger'),
      async workerIdentities(workflowId: string) {
        const identities = new Set<string>();
        const handle = fixture.temporal.workflow.getHandle(workflowId);
        const history = await handle.fetchHistory();
        for (const event of history.events ?? []) {
          const identity =
            event.workflowTaskCompletedEventAttributes?.identity ??
            event.activityTaskStartedEventAttributes?.identity;
          if (identity) identities.add(identity);
        }
        return identities;
      },
      identityOf(workerName: string) {
        const pid = cluster.processes.pidOf(workerName);
        if (!pid) throw new Error(`${workerName} is not running`);
        return `${pid}@${os.hostname()}`;
      },
    });
  }, 240_000);
  afterAll(async () => {
    await fixture.db?.destroy();
    await connection?.close();
    await fixture.cluster?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
  return fixture;
}
