/**
 * Ctrl-C while `npm run dev` or `npm run cluster` is still starting: whatever it had started by then
 * stops with it. Each case starts the command, waits for a moment of its start-up (a line it prints, a
 * port that opens), sends SIGINT to its process group as a terminal does, and once the command has
 * exited looks for any process it left. Every process it starts carries a tag in its environment (an
 * entry in PATH no program needs, inherited by every descendant), so a process found by the tag is one
 * of its, even after the orphan was adopted by init.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/global-setup';
import { eventually } from '../support/wait';

/** Processes whose environment holds `tag`, with their command lines for the failure message. */
function processesTagged(tag: string): Array<{ pid: number; command: string }> {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        if (!fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(tag)) return [];
        const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        return [{ pid: Number(pid), command: command.slice(0, 160) }];
      } catch {
        // Ended while we looked, or a zombie: gone either way.
        return [];
      }
    });
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Ctrl-C in a terminal signals the whole foreground group; `kill <pid>` or a supervisor, the command alone. */
type Interrupt = 'Ctrl-C' | 'SIGTERM to the command';

interface StartCase {
  /** The moment of start-up, for the test's name. */
  moment: string;
  interrupt: Interrupt;
  /**
   * Resolves `true` once that moment has come: from everything printed so far, a port answering, or a
   * process of the run's (found by its tag) running.
   */
  reached: (seen: { output: string; tag: string; sandboxPort: number }) => boolean | Promise<boolean>;
}

/**
 * Starts `args` (what the npm script runs: npm's wrapper would exit on Ctrl-C before its child has
 * stopped), interrupts it once `reached`, and returns the processes it left and its output.
 */
async function interruptDuringStart(
  args: string[],
  env: NodeJS.ProcessEnv,
  reached: (seen: { output: string; tag: string }) => boolean | Promise<boolean>,
  interrupt: Interrupt,
): Promise<{ left: Array<{ pid: number; command: string }>; output: string; code: number | null }> {
  const tag = `/nonexistent/payrun-interrupt-${randomUUID()}`;
  const child = spawn(process.execPath, args, {
    env: { ...env, PATH: `${process.env.PATH}:${tag}` },
    detached: true, // its own process group, as a terminal gives a foreground job
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} first:\n${output}`);
        expect(await reached({ output, tag })).toBe(true);
      },
      { timeout: 120_000 },
    );
    if (interrupt === 'Ctrl-C') process.kill(-child.pid!, 'SIGINT');
    else process.kill(child.pid!, 'SIGTERM');
    const code = await exited;
    // /proc may list a process its parent has just collected for a moment longer.
    const left = await eventually(
      () => {
        const found = processesTagged(tag);
        if (found.length) throw new Error('still running');
        return found;
      },
      { timeout: 2_000 },
    ).catch(() => processesTagged(tag));
    return { left, output, code };
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    for (const { pid } of processesTagged(tag)) process.kill(pid, 'SIGKILL');
  }
}

function tempDataDir(prefix: string): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // The embedded PostgreSQL runs as `postgres` when the suite runs as root.
  fs.chmodSync(dataDir, 0o755);
  return dataDir;
}

describe('npm run dev interrupted while it starts', () => {
  const cases: StartCase[] = [
    // The database's first start: initdb runs in a process group of its own, out of Ctrl-C's reach.
    {
      moment: 'initdb running',
      interrupt: 'Ctrl-C',
      reached: ({ tag }) => processesTagged(tag).some(({ command }) => /\/initdb /.test(command)),
    },
    {
      moment: 'the Temporal dev server starting',
      interrupt: 'Ctrl-C',
      reached: ({ output }) => output.includes('Starting the Temporal dev server'),
    },
    {
      moment: 'the Temporal dev server starting',
      interrupt: 'SIGTERM to the command',
      reached: ({ output }) => output.includes('Starting the Temporal dev server'),
    },
    // The sandbox answers, then the worker bundles the workflows: the longest wait of the start-up.
    {
      moment: 'the worker bundling its workflows',
      interrupt: 'SIGTERM to the command',
      reached: ({ sandboxPort }) => portAnswers(sandboxPort),
    },
  ];
  it.each(cases)(
    'leaves no process behind after $interrupt with $moment',
    async ({ reached, interrupt }) => {
      const dataDir = tempDataDir('payrun-dev-interrupt-');
      const sandboxPort = await freePort();
      try {
        const env = {
          ...process.env,
          DATABASE_URL: '',
          TEMPORAL_ADDRESS: '',
          GATEWAY_BASE_URL: '',
          PAYRUN_DATA_DIR: dataDir,
          LOG_LEVEL: 'info',
          API_PORT: String(await freePort()),
          TEMPORAL_PORT: String(await freePort()),
          TEMPORAL_UI_PORT: String(await freePort()),
          EMBEDDED_PG_PORT: String(await freePort()),
          SANDBOX_PORT: String(sandboxPort),
        };
        const { left, output, code } = await interruptDuringStart(
          ['--import', 'tsx', 'scripts/dev.ts'],
          env,
          (seen) => reached({ ...seen, sandboxPort }),
          interrupt,
        );
        expect(left, output.slice(-3000)).toEqual([]);
        expect(code, output.slice(-3000)).toBe(0);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});

describe('npm run cluster interrupted while it starts', () => {
  const cases: StartCase[] = [
    // The schema tool migrates Temporal's databases; the server, UI, sandbox and API follow.
    {
      moment: 'PostgreSQL up',
      interrupt: 'Ctrl-C',
      reached: ({ output }) => output.includes('PostgreSQL (embedded) on'),
    },
    // The API is up and the workers bundle their workflows (15 s or more): the moment the issue names.
    {
      moment: 'the workers bundling',
      interrupt: 'Ctrl-C',
      reached: ({ output }) => /\bapi started \(pid/.test(output),
    },
  ];
  it.each(cases)(
    'leaves no process behind after $interrupt with $moment',
    async ({ reached, interrupt }) => {
      const dataDir = tempDataDir('payrun-cluster-interrupt-');
      try {
        const { left, output, code } = await interruptDuringStart(
          ['--import', 'tsx', 'scripts/cluster/main.ts', '--workers', '2', '--free-ports'],
          { PATH: process.env.PATH, HOME: process.env.HOME, PAYRUN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
          (seen) => reached({ ...seen, sandboxPort: 0 }),
          interrupt,
        );
        expect(left, output.slice(-3000)).toEqual([]);
        expect(code, output.slice(-3000)).toBe(0);
        expect(output).toContain('no process left running');
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
