/**
 * `npm run cluster [-- --workers N] [--history-shards N] [--task-queue-partitions N] [--relay-process] [--free-ports]`: starts the production shape (see cluster.ts), prints the URLs and
 * the processes, and stops everything it started, newest first, on Ctrl-C: while it runs, and while it
 * still starts (the workers bundle for 15 s or more), when the start-up stops what it has started so far.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../platform/config';
import {
  DEFAULT_CLUSTER_PORTS,
  startCluster,
  type Cluster,
  startClusterOnFreePorts,
  type ClusterOptions,
  type ClusterPorts,
} from './cluster';
import { workerSettingsFrom } from './environment';
import type { ProcessRecord } from './process-group';
import { portIsFree } from './readiness';

const MAX_WORKERS = 16;

/** `--name N` or `--name=N`, a whole number from 1 to `max`. */
function wholeFlag<T extends number | undefined>(
  argv: string[],
  name: string,
  fallback: T,
  max: number,
): number | T {
  const index = argv.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return fallback;
  const text = argv[index]!.includes('=') ? argv[index]!.split('=')[1] : argv[index + 1];
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got "${text ?? ''}"`);
  return value;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A cluster already running from this data folder: refuse, naming its processes. */
function refuseRunningCluster(dataDir: string): void {
  const file = path.join(dataDir, 'processes.json');
  if (fs.existsSync(file)) {
    const alive = (JSON.parse(fs.readFileSync(file, 'utf8')) as ProcessRecord[]).filter(
      (record) => record.role !== 'postgres' && isAlive(record.pid),
    );
    if (alive.length)
      throw new ConfigError(
        `A cluster from ${dataDir} is still running (${alive.map((r) => `${r.name} pid ${r.pid}`).join(', ')}); stop it with Ctrl-C in its terminal or kill those pids.`,
      );
  }
}

/** A fixed port taken by something else: refuse, naming it. */
async function refuseTakenPorts(ports: ClusterPorts, workers: number): Promise<void> {
  const wanted: Array<[string, number]> = [
    ['Temporal frontend', ports.temporal.frontend],
    ['Temporal frontend HTTP', ports.temporal.frontendHttp],
    ['Temporal history', ports.temporal.history],
    ['Temporal matching', ports.temporal.matching],
    ['Temporal worker service', ports.temporal.worker],
    ...ports.temporal.membership.map((port): [string, number] => ['Temporal membership', port]),
    ['Temporal UI', ports.ui],
    ['sandbox', ports.sandbox],
    ['API', ports.api],
    ['identity provider', ports.identity],
    ['codec over TLS', ports.codecTls],
    ['relay metrics', ports.relay],
    ...Array.from({ length: workers }, (_, i): [string, number] => [
      `worker-${i + 1} metrics`,
      ports.metrics + i,
    ]),
  ];
  for (const [what, port] of wanted) {
    if (!(await portIsFree(port)))
      throw new ConfigError(
        `Port ${port} (${what}) is taken: is another cluster or program using it? npm run dev uses 3000, 7233, 8233, 8950 and 54329; the cluster uses its own.`,
      );
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const log = (line: string) => console.log(`[cluster] ${line}`);
  // Installed before anything starts: an interrupt at any moment stops whatever has started by then.
  const interrupted = new AbortController();
  let cluster: Cluster | undefined;
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`Stopping the cluster (${reason}), newest first`);
    // Still starting: the start-up stops what it started and rejects, and the catch below ends the process.
    if (!cluster) return interrupted.abort(new Error(`Interrupted by ${reason}`));
    await cluster.stop();
    log('Stopped; no process left running.');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));

  const workers = wholeFlag(process.argv.slice(2), '--workers', 2, MAX_WORKERS);
  // Fixed when the cluster's Temporal databases are first made (docs/capacity.md); unset: the count this
  // data folder was made with, or 4 for a new one.
  const historyShards = wholeFlag(process.argv.slice(2), '--history-shards', undefined, 1024);
  // Partitions of the main task queue; unset: the server's default (docs/capacity.md).
  const taskQueuePartitions = wholeFlag(process.argv.slice(2), '--task-queue-partitions', undefined, 64);
  // A relay process beside the API, which then only stores what it receives (docs/production.md).
  const relayProcess = process.argv.includes('--relay-process');
  const config = loadConfig();
  const dataDir = path.join(config.PAYRUN_DATA_DIR, 'cluster');
  // --free-ports: any free ports, printed below (tests, or a second cluster from another data folder).
  const freePorts = process.argv.includes('--free-ports');
  refuseRunningCluster(dataDir);
  if (!freePorts) await refuseTakenPorts(DEFAULT_CLUSTER_PORTS, workers);
  const options: Omit<ClusterOptions, 'ports'> = {
    dataDir,
    workers,
    ...(historyShards !== undefined && { historyShards }),
    ...(taskQueuePartitions !== undefined && { taskQueuePartitions }),
    relayProcess,
    databaseUrl: config.DATABASE_URL,
    // The workers are sized as this process is configured (README, Configuration).
    workerSettings: workerSettingsFrom(process.env),
    logLevel: config.LOG_LEVEL,
    apiSettings: {
      SUBSCRIPTION_BILLING_HOUR: config.SUBSCRIPTION_BILLING_HOUR,
      SUBSCRIPTION_RETRY_DELAY_HOURS: config.SUBSCRIPTION_RETRY_DELAY_HOURS,
      PAYOUT_IPN_TIMEOUT_SECONDS: config.PAYOUT_IPN_TIMEOUT_SECONDS,
      DISBURSEMENT_IPN_TIMEOUT_SECONDS: config.DISBURSEMENT_IPN_TIMEOUT_SECONDS,
      DISBURSEMENT_RESULT_WAIT_HOURS: config.DISBURSEMENT_RESULT_WAIT_HOURS,
      REMITTANCE_IPN_TIMEOUT_SECONDS: config.REMITTANCE_IPN_TIMEOUT_SECONDS,
      PAYMENT_RESULT_WAIT_HOURS: config.PAYMENT_RESULT_WAIT_HOURS,
      PAYOUT_GATEWAY_ATTEMPT_SECONDS: config.PAYOUT_GATEWAY_ATTEMPT_SECONDS,
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: config.RATE_LIMIT_PER_ADDRESS_PER_MINUTE,
      RATE_LIMIT_PER_KEY_PER_MINUTE: config.RATE_LIMIT_PER_KEY_PER_MINUTE,
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
      RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: config.RATE_LIMIT_NOTIFICATIONS_PER_MINUTE,
      RATE_LIMIT_FORGERIES_PER_MINUTE: config.RATE_LIMIT_FORGERIES_PER_MINUTE,
    },
    log,
    onUnexpectedExit: (name, code) => {
      if (!stopping)
        log(
          `${name} exited unexpectedly (code ${code}); nothing restarts it. Its log: ${dataDir}/logs/${name}.log`,
        );
    },
    signal: interrupted.signal,
  };
  try {
    // Free ports are chosen, then bound by other processes; one taken in between means a fresh start.
    cluster = freePorts
      ? await startClusterOnFreePorts(options)
      : await startCluster({ ...options, ports: DEFAULT_CLUSTER_PORTS });
  } catch (error) {
    if (!interrupted.signal.aborted) throw error;
    log('Stopped while starting; no process left running.');
    process.exit(0);
  }

  const table = cluster
    .records()
    .map((r) => `  ${r.name.padEnd(12)} pid ${String(r.pid).padEnd(8)} ${r.role.padEnd(12)} ${r.port ?? ''}`);
  console.log(
    [
      '',
      `payrun cluster is running (started in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
      `  API          ${cluster.urls.api}   (console: ${cluster.urls.api}/console)`,
      `  Temporal UI  ${cluster.urls.ui}   (signs in through the provider below)`,
      `  Sign-in      ${cluster.urls.identity}   (demo people in docs/identity.md, password: ${cluster.identityPassword})`,
      `  Temporal     ${cluster.urls.temporal}  (server on PostgreSQL)`,
      `  Gateway      ${cluster.urls.sandbox}  (sandbox; admin API under /__sandbox)`,
      `  PostgreSQL   ${config.DATABASE_URL ? 'DATABASE_URL' : `embedded, port ${cluster.records().find((r) => r.role === 'postgres')?.port}`}`,
      `  Logs         ${path.join(dataDir, 'logs')}`,
      `Processes (${path.join(dataDir, 'processes.json')}):`,
      ...table,
      'Create an API key: npm run keys -- create --name <name> --roles <role,role> --owner service:<name> with DATABASE_URL set to the cluster database.',
      'Press Ctrl-C to stop everything.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
