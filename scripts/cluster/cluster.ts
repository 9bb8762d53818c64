/**
 * `npm run cluster`: the production shape on one machine, each part its own OS process: PostgreSQL
 * (embedded unless DATABASE_URL), the Temporal server persisted in it, payrun's identity provider, the
 * Temporal UI (signing in through it) with payrun's codec, the gateway sandbox, the migrations, `api/main.ts` and N `workers/main.ts`. payrun's processes
 * get only the environment variables docker-compose.yml passes (`clusterEnvironment`), so this rehearses
 * the deployed configuration, not a convenient one. The chaos harness and the shape tests start it too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../db/shared/embedded-postgres';
import { withDatabaseName } from '../../db/shared/knex';
import { resolveDevCustomerKeySecret } from '../../platform/customer-key';
import { resolveDevDecisionKey } from '../../platform/decision-key';
import { resolveDevSecret } from '../../platform/dev-secret';
import { loadOrCreateDevCodecKeys, type CodecKeyring } from '../../platform/payload-codec';
import { ipnPaths } from '../../platform/ipn-paths';
import type { GatewaySettings } from '../../platform/require-services';
import { loadOrCreateSandboxIdentity } from '../../sandbox/identity';
import { createDatabaseIfMissing } from '../stack';
import { resolveTemporalServer, resolveTemporalUi } from '../temporal-binaries';
import {
  clusterEnvironment,
  DEFAULT_API_TUNABLES,
  type ApiTunables,
  type ClusterEnvironment,
  type WorkerSetting,
} from './environment';
import { ProcessGroup, type ProcessRecord, type ProcessSpec } from './process-group';
import { freePort, freePortBetween, freePortRun, httpAnswers, portIsFree, waitFor } from './readiness';
import {
  postgresTargetOf,
  prepareNamespace,
  prepareTemporalDatabases,
  temporalServerSpec,
  writeServerConfig,
  type TemporalPorts,
} from './temporal-server';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PAYRUN_DATABASE = 'payrun';
const NAMESPACE = 'default';

export interface ClusterPorts {
  postgres: number;
  temporal: TemporalPorts;
  ui: number;
  sandbox: number;
  api: number;
  /** payrun's own OpenID Connect provider. */
  identity: number;
  /** The codec endpoint over TLS (scripts/cluster/codec-tls.ts), where the Temporal UI sends tokens. */
  codecTls: number;
  /** The relay process's /metrics and /healthz. */
  relay: number;
  /** Worker i serves /metrics on metrics + i. */
  metrics: number;
}

/** Fixed ports beside (never on) `npm run dev`'s 3000/7233/8233/8950/54329, so both can run at once. */
export const DEFAULT_CLUSTER_PORTS: ClusterPorts = {
  postgres: 54339,
  temporal: {
    frontend: 7333,
    frontendHttp: 7343,
    history: 7334,
    matching: 7335,
    worker: 7339,
    membership: [6833, 6834, 6835, 6839],
  },
  ui: 8333,
  sandbox: 8960,
  api: 3300,
  identity: 8965,
  codecTls: 3343,
  relay: 9469,
  metrics: 9470,
};

/** Ports nobody holds right now (tests run several clusters in one suite), none of them ephemeral. */
export async function freeClusterPorts(workers: number): Promise<ClusterPorts> {
  // The server keeps membership ports in a smallint column: below 32768.
  const membership = () => freePortBetween(20_000, 32_000);
  return {
    postgres: await freePort(),
    temporal: {
      frontend: await freePort(),
      frontendHttp: await freePort(),
      history: await freePort(),
      matching: await freePort(),
      worker: await freePort(),
      membership: [await membership(), await membership(), await membership(), await membership()],
    },
    ui: await freePort(),
    sandbox: await freePort(),
    api: await freePort(),
    identity: await freePort(),
    codecTls: await freePort(),
    relay: await freePort(),
    // Worker i serves metrics on metrics + i.
    metrics: (await freePortRun(workers))[0]!,
  };
}

/**
 * `startCluster` on ports free right now. Between choosing a port and binding it another process may
 * take it (tests and benchmarks start clusters side by side); such a start is stopped and tried again
 * on new ports.
 */
export async function startClusterOnFreePorts(
  options: Omit<ClusterOptions, 'ports'>,
  attempts = 3,
): Promise<Cluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCluster({ ...options, ports: await freeClusterPorts(options.workers) });
    } catch (error) {
      const portTaken = error instanceof Error && /address already in use|EADDRINUSE/i.test(error.message);
      if (!portTaken || attempt >= attempts) throw error;
      options.log?.(`A port was taken while the cluster started; starting again on other ports`);
    }
  }
}

/**
 * The embedded PostgreSQL's connection limit. Its default (100) was exceeded with 3 workers ("too many
 * clients already"): each Temporal service opens its own pools (up to 30 connections each, four services),
 * the API and every worker up to 10 and 1 listening, a benchmark 20 more.
 */
export const connectionsFor = (workers: number) => 200 + 20 * workers;

export interface ClusterOptions {
  /** Everything the cluster keeps: databases, logs, keys, processes.json. */
  dataDir: string;
  workers: number;
  ports: ClusterPorts;
  /** An existing PostgreSQL server (needs rights to create databases); unset: embedded. */
  databaseUrl?: string;
  logLevel?: string;
  /** Over the production defaults: tests bill at hour 0 and time out calls and notifications sooner. */
  apiSettings?: Partial<ApiTunables>;
  /** The sandbox's delays (SANDBOX_TIMING); unset: its defaults. Benchmarks remove them. */
  sandboxTiming?: Record<string, number>;
  /** GATEWAY_RATE_LIMITS of the API and the workers; unset: no limit. */
  gatewayRateLimits?: string;
  /** The workers' sizes (WORKER_CACHED_WORKFLOWS, …); unset: their defaults. */
  workerSettings?: Partial<Record<WorkerSetting, string>>;
  /** Benchmarks only: comparison switches and a benchmark's own settings, for the API and every worker. */
  switches?: Record<string, string>;
  /** Temporal history shards, fixed when its databases are first made; unset: 4. */
  historyShards?: number;
  /** Partitions of the main task queue (workflow and activity tasks); unset: the server's default, 4. */
  taskQueuePartitions?: number;
  /**
   * A relay process beside the API (`api/relay-main.ts`), the API started with API_RUNS_RELAY=false; unset:
   * the API relays what it stores, in its own process (docs/production.md, "The notification relay").
   */
  relayProcess?: boolean;
  /**
   * Benchmarks only: the API and each worker write V8 CPU profiles of their threads here when they stop
   * (a worker's main thread, and its workflow thread, where every new workflow evaluates the workflows' modules).
   */
  cpuProfileDir?: string;
  /** Benchmarks only: the embedded PostgreSQL loads pg_stat_statements (`BENCH_STATEMENTS`). */
  statementStatistics?: boolean;
  /** Rehearsals only: webhook endpoints may be http://127.0.0.1 (WEBHOOK_ALLOW_LOOPBACK_HTTP). */
  loopbackWebhooks?: boolean;
  log?: (line: string) => void;
  /** Called when a process dies without being asked to (the cluster restarts nothing by itself). */
  onUnexpectedExit?: (name: string, code: number | null) => void;
  /**
   * Ends the start-up early (Ctrl-C while it starts): the step under way is cut short or finished, what
   * started so far is stopped, and `startCluster` rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface Cluster {
  urls: { api: string; ui: string; temporal: string; sandbox: string; database: string; identity: string };
  /** The demo people's password at the cluster's provider (docs/identity.md lists the people). */
  identityPassword: string;
  gateway: GatewaySettings;
  environment: ClusterEnvironment;
  processes: ProcessGroup;
  workerNames: string[];
  records(): ProcessRecord[];
  /**
   * SIGKILLs a process (a crash, not a shutdown). `postgres` (the embedded one) is killed with every
   * backend, as a power cut would: the restart recovers from the write-ahead log.
   */
  kill(name: string): Promise<void>;
  /** Starts a process again with the same command and environment, and waits until it serves. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

function keysText(keyring: CodecKeyring): string {
  return [...keyring.keys.entries()].map(([id, key]) => `${id}:${key.toString('base64')}`).join(',');
}

const node = (entry: string) => ['--import', 'tsx', entry];

/** PATH and HOME only, plus what a part is configured with: nothing leaks in from the caller's shell. */
function baseEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, PAYRUN_CACHE_DIR: process.env.PAYRUN_CACHE_DIR };
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const { ports, dataDir } = options;
  fs.mkdirSync(dataDir, { recursive: true });
  // Run as root, the embedded PostgreSQL runs as the `postgres` user, which must reach its data folder
  // (a mkdtemp folder is 0700).
  if (!options.databaseUrl) fs.chmodSync(dataDir, 0o755);
  const group = new ProcessGroup(dataDir, options.onUnexpectedExit);
  let postgres: EmbeddedPostgresHandle | undefined;
  // Aborted by the caller's signal, and by a stop: a readiness wait still polling then ends with it.
  const starting = new AbortController();
  const interrupted = () => starting.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', interrupted, { once: true });
  const { signal } = starting;
  const stop = async () => {
    starting.abort(new Error('The cluster is stopping'));
    options.signal?.removeEventListener('abort', interrupted);
    await group.stopAll(log);
    if (postgres) {
      log('Stopping PostgreSQL');
      await postgres.stop();
      group.removeExternal('postgres');
    }
  };

  try {
    options.signal?.throwIfAborted();
    const binaries = await resolveTemporalServer({ build: true, log });
    const ui = await resolveTemporalUi({ build: true, log });
    if (!binaries || !ui)
      throw new Error('The Temporal server or UI could not be built: run npm run temporal:binaries');

    const startPostgres = async () => {
      postgres = await startEmbeddedPostgres({
        dataDir: path.join(dataDir, 'postgres'),
        port: ports.postgres,
        persistent: true,
        maxConnections: connectionsFor(options.workers),
        ...(options.statementStatistics && { statementStatistics: true }),
      });
      const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      group.addExternal({ name: 'postgres', pid, role: 'postgres', port: postgres.port });
      log(`PostgreSQL (embedded) on ${postgres.port}, pid ${pid}`);
      return postgres.url;
    };
    const killPostgres = async () => {
      if (!postgres) throw new Error('PostgreSQL is not the embedded one: the cluster cannot kill it');
      await postgres.kill();
      postgres = undefined;
      group.removeExternal('postgres');
    };
    let serverUrl = options.databaseUrl;
    signal.throwIfAborted();
    // Once started, PostgreSQL is known to stop() before anything checks for an interrupt again.
    if (!serverUrl) serverUrl = await startPostgres();
    signal.throwIfAborted();
    await createDatabaseIfMissing(serverUrl, PAYRUN_DATABASE);
    const databaseUrl = withDatabaseName(serverUrl, PAYRUN_DATABASE);

    const temporalRoot = path.join(dataDir, 'temporal');
    const target = postgresTargetOf(serverUrl);
    await prepareTemporalDatabases(binaries, target, log);
    signal.throwIfAborted();
    writeServerConfig(
      temporalRoot,
      ports.temporal,
      target,
      options.historyShards,
      options.taskQueuePartitions,
    );
    const temporalAddress = `127.0.0.1:${ports.temporal.frontend}`;
    const profiled = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
    const specs = new Map<string, ProcessSpec>();
    const start = async (spec: ProcessSpec) => {
      signal.throwIfAborted();
      specs.set(spec.name, spec);
      // Spawned and known to the group at once, so a stop during its readiness wait stops it too.
      const record = await group.start(spec);
      if (record)
        log(`${record.name} started (pid ${record.pid}${record.port ? `, port ${record.port}` : ''})`);
    };
    await start(temporalServerSpec(binaries, temporalRoot, ports.temporal, baseEnv(), signal));
    await prepareNamespace(temporalAddress, NAMESPACE, log, signal);

    const sandboxDir = path.join(dataDir, 'sandbox');
    const identity = loadOrCreateSandboxIdentity(sandboxDir);
    const sandboxUrl = `http://127.0.0.1:${ports.sandbox}`;
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    const uiUrl = `http://127.0.0.1:${ports.ui}`;
    const gateway: GatewaySettings = {
      baseUrl: sandboxUrl,
      partnerCode: identity.merchant.partnerCode,
      accessKey: identity.merchant.accessKey,
      secretKey: identity.merchant.secretKey,
      publicKey: identity.keyPair.publicKeyPem,
    };
    const keyring = loadOrCreateDevCodecKeys(dataDir);
    const identityUrl = `http://127.0.0.1:${ports.identity}`;
    // Generated once into the data folder, so a restarted cluster keeps its clients and password.
    const identitySecret = (file: string) =>
      resolveDevSecret({ configured: undefined, dataDir, file, pattern: /^[\x21-\x7e]{16,256}$/ });
    const environment = clusterEnvironment({
      databaseUrl,
      temporalAddress,
      logLevel: options.logLevel ?? 'info',
      codecKeys: keysText(keyring),
      codecKeyId: keyring.currentKeyId,
      ...(options.gatewayRateLimits && { gatewayRateLimits: options.gatewayRateLimits }),
      ...(options.workerSettings && { workerSettings: options.workerSettings }),
      ...(options.switches && { switches: options.switches }),
      gateway,
      publicBaseUrl: apiUrl,
      apiPort: ports.api,
      relayPort: ports.relay,
      relayProcess: options.relayProcess ?? false,
      uiUrl,
      codecUrl: `https://127.0.0.1:${ports.codecTls}/codec`,
      customerKeySecret: resolveDevCustomerKeySecret({ configured: undefined, dataDir }),
      decisionKey: resolveDevDecisionKey({ configured: undefined, dataDir }),
      apiSettings: { ...DEFAULT_API_TUNABLES, ...options.apiSettings },
      metricsPort: (index) => ports.metrics + index,
      loopbackWebhooks: options.loopbackWebhooks ?? false,
      identity: {
        issuer: identityUrl,
        consoleClientSecret: identitySecret('oidc-client-secret'),
        uiClientSecret: identitySecret('oidc-temporal-ui-client-secret'),
        password: identitySecret('identity-demo-password'),
      },
    });

    // Before the UI: its server reads the provider's discovery document once, at start, and exits without it.
    await start({
      name: 'identity',
      role: 'identity',
      command: process.execPath,
      args: node('scripts/identity/main.ts'),
      cwd: repoRoot,
      env: {
        ...baseEnv(),
        LOG_LEVEL: options.logLevel ?? 'info',
        ...environment.identity(ports.identity, dataDir),
      },
      port: ports.identity,
      ready: () =>
        waitFor(
          'the identity provider',
          httpAnswers(`${identityUrl}/.well-known/openid-configuration`),
          undefined,
          signal,
        ),
    });

    await start({
      name: 'codec-tls',
      role: 'codec-tls',
      command: process.execPath,
      args: node('scripts/cluster/codec-tls.ts'),
      cwd: repoRoot,
      env: {
        ...baseEnv(),
        ...environment.codecTls(ports.codecTls, path.join(dataDir, 'codec-tls')),
      },
      port: ports.codecTls,
      ready: () =>
        waitFor(
          'the codec over TLS',
          () => portIsFree(ports.codecTls).then((free) => !free),
          undefined,
          signal,
        ),
    });
    await start({
      name: 'temporal-ui',
      role: 'temporal-ui',
      command: ui.server,
      args: ['--root', ui.home, '--env', 'docker', 'start'],
      env: { ...baseEnv(), ...environment.temporalUi(ports.ui) },
      port: ports.ui,
      ready: () => waitFor('the Temporal UI', httpAnswers(`${uiUrl}/api/v1/settings`), undefined, signal),
    });
    await start({
      name: 'sandbox',
      role: 'sandbox',
      command: process.execPath,
      args: node('sandbox/main.ts'),
      cwd: repoRoot,
      env: {
        ...baseEnv(),
        SANDBOX_PORT: String(ports.sandbox),
        PAYRUN_DATA_DIR: dataDir,
        LOG_LEVEL: options.logLevel ?? 'info',
        SANDBOX_UNBIND_URL: `${apiUrl}${ipnPaths.unbind}`,
        ...(options.sandboxTiming && { SANDBOX_TIMING: JSON.stringify(options.sandboxTiming) }),
      },
      port: ports.sandbox,
      ready: () => waitFor('the sandbox', httpAnswers(`${sandboxUrl}/__sandbox/`), undefined, signal),
    });
    await start({
      name: 'migrate',
      role: 'migrate',
      command: process.execPath,
      args: node('scripts/migrate.ts'),
      cwd: repoRoot,
      env: { ...baseEnv(), ...environment.migrate },
      ready: async () => {},
      oneShot: true,
    });
    await start({
      name: 'api',
      role: 'api',
      command: process.execPath,
      args: [...profiled, ...node('api/main.ts')],
      cwd: repoRoot,
      env: { ...baseEnv(), ...environment.api },
      port: ports.api,
      // As long as a worker's: tsx compiles the API's modules at start, which took over 60 s on a loaded CI machine.
      ready: () => waitFor('the API', httpAnswers(`${apiUrl}/healthz`), 120_000, signal),
    });
    // --relay-process: the API answers notifications and stores them, this process signals them.
    if (options.relayProcess)
      await start({
        name: 'relay',
        role: 'relay',
        command: process.execPath,
        args: [...profiled, ...node('api/relay-main.ts')],
        cwd: repoRoot,
        env: { ...baseEnv(), ...environment.relay },
        port: ports.relay,
        ready: () =>
          waitFor('the relay', httpAnswers(`http://127.0.0.1:${ports.relay}/healthz`), 120_000, signal),
      });
    const workerNames = Array.from({ length: options.workers }, (_, i) => `worker-${i + 1}`);
    // Workers bundle their workflows at start: started together, they share the wait.
    await Promise.all(
      workerNames.map((name, index) =>
        start({
          name,
          role: 'worker',
          command: process.execPath,
          args: [...profiled, ...node('workers/main.ts')],
          cwd: repoRoot,
          env: { ...baseEnv(), ...environment.worker(index) },
          port: ports.metrics + index,
          ready: () =>
            waitFor(
              `${name}`,
              httpAnswers(`http://127.0.0.1:${ports.metrics + index}/metrics`),
              120_000,
              signal,
            ),
        }),
      ),
    );
    signal.throwIfAborted();
    options.signal?.removeEventListener('abort', interrupted);

    return {
      urls: {
        api: apiUrl,
        ui: uiUrl,
        temporal: temporalAddress,
        sandbox: sandboxUrl,
        database: databaseUrl,
        identity: identityUrl,
      },
      identityPassword: environment.identity(ports.identity, dataDir).IDENTITY_DEMO_PASSWORD!,
      gateway,
      environment,
      processes: group,
      workerNames,
      records: () => group.records(),
      kill: (name) => (name === 'postgres' ? killPostgres() : group.kill(name, 'SIGKILL')),
      restart: async (name) => {
        if (name === 'postgres') {
          if (options.databaseUrl) throw new Error('PostgreSQL is DATABASE_URL: the cluster does not run it');
          if (postgres) await killPostgres();
          await startPostgres();
          return;
        }
        const spec = specs.get(name);
        if (!spec) throw new Error(`No process named ${name}`);
        await group.restart(name, spec);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
