/**
 * The processes of `npm run cluster`, each its own OS process: started in order, each waited on until
 * it answers, recorded in `processes.json` (name, pid, role, port) for operators and scripts, and
 * stopped newest first. Nothing is restarted by itself: a process that dies stays dead and is reported,
 * as it would be in production without a supervisor; `restart()` is for rehearsals and fault tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type ProcessRole =
  | 'postgres'
  | 'temporal'
  | 'temporal-ui'
  | 'identity'
  | 'codec-tls'
  | 'sandbox'
  | 'migrate'
  | 'api'
  | 'relay'
  | 'worker';

export interface ProcessRecord {
  name: string;
  pid: number;
  role: ProcessRole;
  port?: number;
}

export interface ProcessSpec {
  name: string;
  role: ProcessRole;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  port?: number;
  /** Resolves once the process serves; rejects or times out otherwise. */
  ready: () => Promise<unknown>;
  /** A one-shot job (migrations): ready when it exits 0, and never recorded as running. */
  oneShot?: boolean;
}

interface Running {
  spec: ProcessSpec;
  child: ChildProcess;
  exited: Promise<number | null>;
  stopping: boolean;
}

/** How long a process may take to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;
const LOG_TAIL_BYTES = 4000;

export class ProcessGroup {
  private readonly running = new Map<string, Running>();
  /** External processes the group reports but does not own (the embedded PostgreSQL's postmaster). */
  private readonly external = new Map<string, ProcessRecord>();
  readonly logDir: string;

  constructor(
    private readonly dir: string,
    private readonly onUnexpectedExit: (name: string, code: number | null) => void = () => {},
  ) {
    this.logDir = path.join(dir, 'logs');
    fs.mkdirSync(this.logDir, { recursive: true });
  }

  logFile(name: string): string {
    return path.join(this.logDir, `${name}.log`);
  }

  async start(spec: ProcessSpec): Promise<ProcessRecord | undefined> {
    if (this.running.has(spec.name)) throw new Error(`${spec.name} is already running`);
    const log = fs.openSync(this.logFile(spec.name), 'a');
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', log, log],
      // Its own process group: Ctrl-C in the terminal reaches only the cluster, which stops these in order.
      detached: true,
    });
    fs.closeSync(log);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code, signal) => resolve(code ?? (signal ? null : code)));
      child.once('error', () => resolve(-1));
    });
    const entry: Running = { spec, child, exited, stopping: false };
    this.running.set(spec.name, entry);
    void exited.then((code) => {
      if (this.running.get(spec.name) !== entry) return;
      this.running.delete(spec.name);
      this.writeFile();
      if (!entry.stopping && !spec.oneShot) this.onUnexpectedExit(spec.name, code);
    });

    if (spec.oneShot) {
      const code = await exited;
      if (code !== 0) throw new Error(`${spec.name} exited with ${code}:\n${this.tail(spec.name)}`);
      return undefined;
    }
    const died = exited.then((code) => {
      throw new Error(`${spec.name} exited with ${code} while starting:\n${this.tail(spec.name)}`);
    });
    await Promise.race([spec.ready(), died]);
    this.writeFile();
    return this.recordOf(entry);
  }

  /** Records a process the group did not spawn but should list (and may kill). */
  addExternal(record: ProcessRecord): void {
    this.external.set(record.name, record);
    this.writeFile();
  }

  removeExternal(name: string): void {
    this.external.delete(name);
    this.writeFile();
  }

  records(): ProcessRecord[] {
    return [...this.external.values(), ...[...this.running.values()].map((entry) => this.recordOf(entry))];
  }

  pidOf(name: string): number | undefined {
    return this.running.get(name)?.child.pid ?? this.external.get(name)?.pid;
  }

  /** Sends a signal and waits for the exit: SIGKILL for crash rehearsals, SIGTERM for a graceful stop. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const entry = this.running.get(name);
    if (!entry) throw new Error(`${name} is not running`);
    entry.stopping = true;
    signalGroup(entry.child, signal);
    await entry.exited;
  }

  /** Starts a stopped or killed process again with the same command, environment and readiness check. */
  async restart(name: string, spec: ProcessSpec): Promise<ProcessRecord | undefined> {
    if (this.running.has(name)) await this.kill(name);
    return this.start(spec);
  }

  specOf(name: string): ProcessSpec | undefined {
    return this.running.get(name)?.spec;
  }

  /** Newest first, so nothing loses a dependency while it still runs. */
  async stopAll(log: (line: string) => void = () => {}): Promise<void> {
    for (const [name, entry] of [...this.running.entries()].reverse()) {
      entry.stopping = true;
      log(`Stopping ${name} (pid ${entry.child.pid})`);
      signalGroup(entry.child, 'SIGTERM');
      const stopped = await Promise.race([
        entry.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS).unref()),
      ]);
      if (!stopped) {
        log(`${name} did not stop within ${STOP_GRACE_MS / 1000}s; killing it`);
        signalGroup(entry.child, 'SIGKILL');
        await entry.exited;
      }
    }
  }

  tail(name: string): string {
    try {
      const text = fs.readFileSync(this.logFile(name), 'utf8');
      return text.slice(-LOG_TAIL_BYTES);
    } catch {
      return '(no log)';
    }
  }

  private recordOf(entry: Running): ProcessRecord {
    const { name, role, port } = entry.spec;
    return { name, pid: entry.child.pid!, role, ...(port !== undefined && { port }) };
  }

  private writeFile(): void {
    fs.writeFileSync(path.join(this.dir, 'processes.json'), `${JSON.stringify(this.records(), null, 2)}\n`);
  }
}

/**
 * Signals the child's whole process group (it leads one: spawned detached), so what it started in turn
 * (the esbuild service tsx starts beside each node process) stops with it.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group is gone already, or the spawn failed and there is none.
    child.kill(signal);
  }
}
