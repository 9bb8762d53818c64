/**
 * The Temporal server persisted in PostgreSQL, as production runs it: the schema tool creates and
 * migrates its two databases, a generated configuration points the server at them, and the namespace
 * and payrun's search attributes are registered once the frontend answers.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import Long from 'long';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from '../search-attributes';
import type { TemporalServerBinaries } from '../temporal-binaries';
import type { ProcessSpec } from './process-group';
import { waitFor } from './readiness';
import { operationQueueOf, QUEUED_OPERATIONS } from '../../contracts/shared';

export interface TemporalPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Ringpop membership ports of frontend, history, matching and worker. */
  membership: [number, number, number, number];
}

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A URL to any database of the server, for existence checks. */
  url: string;
}

export const TEMPORAL_DATABASES = { history: 'temporal', visibility: 'temporal_visibility' } as const;

/**
 * The server's PostgreSQL driver: pgx, which prepares each statement once per connection. The other
 * plugin (`postgres12`, lib/pq) parses every statement again and takes two round trips for one with
 * arguments, each its own transaction to PostgreSQL: 42.7 history-store transactions per disbursement
 * against 23.8, and 87.9 against 79.0 ms of CPU in all (docs/performance.md). Same schema, same tool.
 */
export const SQL_PLUGIN = 'postgres12_pgx';

export function postgresTargetOf(url: string): PostgresTarget {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    url,
  };
}

function runTool(tool: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) {
        log(`temporal-sql-tool ${args.slice(-3).join(' ')}: ok`);
        resolve();
      } else reject(new Error(`temporal-sql-tool ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

async function schemaIsSetUp(
  target: PostgresTarget,
  database: string,
): Promise<{ exists: boolean; setUp: boolean }> {
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) return { exists: false, setUp: false };
  } finally {
    await admin.end();
  }
  const url = new URL(target.url);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const table = await client.query(`select to_regclass('public.schema_version') as name`);
    return { exists: true, setUp: table.rows[0]?.name !== null };
  } finally {
    await client.end();
  }
}

/** Creates (first time) and migrates (every time: it is idempotent) the history and visibility databases. */
export async function prepareTemporalDatabases(
  binaries: TemporalServerBinaries,
  target: PostgresTarget,
  log: (line: string) => void,
): Promise<void> {
  const common = [
    '--plugin',
    SQL_PLUGIN,
    '--ep',
    target.host,
    '-p',
    String(target.port),
    '-u',
    target.user,
    '--pw',
    target.password,
  ];
  const plan = [
    {
      database: TEMPORAL_DATABASES.history,
      versioned: path.join(binaries.schemaDir, 'temporal', 'versioned'),
    },
    {
      database: TEMPORAL_DATABASES.visibility,
      versioned: path.join(binaries.schemaDir, 'visibility', 'versioned'),
    },
  ];
  for (const { database, versioned } of plan) {
    const state = await schemaIsSetUp(target, database);
    const withDb = [...common, '--db', database];
    if (!state.exists) await runTool(binaries.schemaTool, [...withDb, 'create'], log);
    if (!state.setUp) await runTool(binaries.schemaTool, [...withDb, 'setup-schema', '-v', '0.0'], log);
    await runTool(binaries.schemaTool, [...withDb, 'update-schema', '-d', versioned], log);
  }
}

/**
 * History shards are fixed when the server first writes its databases: a later start with another count
 * is refused by the server. The count is kept beside the configuration so the refusal names it first.
 */
function historyShardsFor(root: string, requested: number | undefined): number {
  const file = path.join(root, 'history-shards');
  const kept = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) : undefined;
  const shards = requested ?? kept ?? DEFAULT_HISTORY_SHARDS;
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error(`History shards must be a whole number above 0, got ${shards}`);
  if (kept !== undefined && kept !== shards)
    throw new Error(
      `This cluster's Temporal databases were made with ${kept} history shards; ${shards} needs a new data folder (the count cannot change afterwards).`,
    );
  fs.writeFileSync(file, `${shards}\n`);
  return shards;
}

export const DEFAULT_HISTORY_SHARDS = 4;

/** The server's configuration for one machine: every service in one process, on the given ports. */
export function writeServerConfig(
  root: string,
  ports: TemporalPorts,
  target: PostgresTarget,
  historyShards?: number,
  taskQueuePartitions?: number,
): void {
  const configDir = path.join(root, 'config');
  fs.mkdirSync(path.join(configDir, 'dynamicconfig'), { recursive: true });
  const shards = historyShardsFor(root, historyShards);
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: "${SQL_PLUGIN}"
        databaseName: "${database}"
        connectAddr: "${target.host}:${target.port}"
        connectProtocol: "tcp"
        user: ${JSON.stringify(target.user)}
        password: ${JSON.stringify(target.password)}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (grpcPort: number, membershipPort: number, extra = '') => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnLocalHost: true${extra}`;
  const [frontendMembership, historyMembership, matchingMembership, workerMembership] = ports.membership;
  const yaml = `# Written by npm run cluster on every start; edit scripts/cluster/temporal-server.ts instead.
log:
  stdout: true
  level: warn

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${shards}
  datastores:
    postgres-default:${store(TEMPORAL_DATABASES.history, 20)}
    postgres-visibility:${store(TEMPORAL_DATABASES.visibility, 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"

services:
  frontend:${service(ports.frontend, frontendMembership, `\n      httpPort: ${ports.frontendHttp}`)}
  history:${service(ports.history, historyMembership)}
  matching:${service(ports.matching, matchingMembership)}
  worker:${service(ports.worker, workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: "${path.join(configDir, 'dynamicconfig', 'cluster.yaml')}"
  pollInterval: "10s"
`;
  fs.writeFileSync(path.join(configDir, 'cluster.yaml'), yaml);
  fs.writeFileSync(
    path.join(configDir, 'dynamicconfig', 'cluster.yaml'),
    serverDynamicConfig(taskQueuePartitions),
  );
}

/**
 * The dynamic config payrun's Temporal server runs with: `npm run cluster` writes it on every start, and
 * `temporal-dynamicconfig.yaml` (mounted by docker-compose.yml) holds the same text for the default queue
 * (`test/unit/compose-environment.test.ts` compares them).
 *
 * - Namespaces registered a moment ago become usable within a second, not the default ten.
 * - Eager activity execution: an activity scheduled on the queue of the worker that completes the workflow
 *   task goes back to that worker in the completion's answer (no matching round trip, no transfer task):
 *   1,000 payments on the cluster took 88.2 ms of CPU each instead of 96.0, 38.3/s against 35.4/s
 *   (docs/performance.md). Activities on another queue (the rate-limited gateway queues) go as before.
 */
export function serverDynamicConfig(taskQueuePartitions?: number, taskQueue = 'payrun'): string {
  return (
    '# Written by scripts/cluster/temporal-server.ts (serverDynamicConfig); edit it there.\n' +
    'system.namespaceCacheRefreshInterval:\n  - value: 1s\nlimit.maxIDLength:\n  - value: 255\n' +
    'system.enableActivityEagerExecution:\n  - value: true\n' +
    taskQueuePartitionsOf(taskQueuePartitions, taskQueue)
  );
}

/**
 * A rate-limited operation queue (GATEWAY_RATE_LIMITS) gets one partition: the server divides a queue's
 * rate over its partitions (4 by default), and with 4 the measured rate of subscription/pay was well under
 * the configured one (docs/performance.md). The main queue gets `mainQueue` partitions when given, else
 * the server's default.
 */
function taskQueuePartitionsOf(mainQueue: number | undefined, taskQueue: string): string {
  const entry = (queue: string, partitions: number) =>
    `  - value: ${partitions}\n    constraints:\n      taskQueueName: '${queue}'\n`;
  const entries = [
    ...(mainQueue !== undefined ? [entry(taskQueue, mainQueue)] : []),
    ...QUEUED_OPERATIONS.map((operation) => entry(operationQueueOf(taskQueue, operation), 1)),
  ].join('');
  return `matching.numTaskqueueReadPartitions:\n${entries}matching.numTaskqueueWritePartitions:\n${entries}`;
}

export function temporalServerSpec(
  binaries: TemporalServerBinaries,
  root: string,
  ports: TemporalPorts,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): ProcessSpec {
  return {
    name: 'temporal',
    role: 'temporal',
    command: binaries.server,
    args: ['--root', root, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
    env,
    port: ports.frontend,
    ready: async () => {
      await waitFor(
        `the Temporal frontend on ${ports.frontend}`,
        () => frontendAnswers(ports.frontend),
        90_000,
        signal,
      );
    },
  };
}

async function frontendAnswers(port: number): Promise<boolean> {
  const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 });
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } finally {
    await connection.close();
  }
}

/** Registers the namespace (3 days of retention) and payrun's search attributes, then waits until both are usable. */
export async function prepareNamespace(
  address: string,
  namespace: string,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const exists = await connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(3 * 24 * 3600) },
      });
      log(`Registered namespace ${namespace}`);
    }
    await waitFor(
      `namespace ${namespace}`,
      async () => {
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        return true;
      },
      undefined,
      signal,
    );
    const added = await waitFor(
      'payrun search attributes',
      () => ensureSearchAttributes(connection, namespace),
      undefined,
      signal,
    );
    if (added.length) log(`Registered search attributes ${added.join(', ')}`);
  } finally {
    await connection.close();
  }
}
