/**
 * CPU time spent by each process of the stack, from Linux's /proc: where the machine's cores went during a
 * benchmark, per item. On two shared cores every figure is bounded by the sum, so this names the process a
 * design should spare first. Linux only; elsewhere the reading is empty.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseCounters } from './costs';

/** Clock ticks per second of /proc's times: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  /** Its own user and system time, and that of its children it has waited for (ended ones). */
  ticks: number;
  command: string;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command sits in parentheses and may itself hold spaces or parentheses: split after the last ")".
    const close = text.lastIndexOf(')');
    const command = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return { ppid: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime!, command };
  } catch {
    return undefined; // ended while the table was read
  }
}

function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}

/** An unnamed child by its command, or by the script a Node process runs (the embedded PostgreSQL's host). */
function describe(pid: number, command: string): string {
  if (command !== 'node') return command;
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const script = args.slice(1).find((arg) => /\.[cm]?[jt]s$/.test(arg));
    return script ? path.basename(script) : command;
  } catch {
    return command;
  }
}

/**
 * CPU seconds of this process (the benchmark's clients; on the dev shape also the API, the worker and the
 * sandbox) and of each tree of processes below it, named as the stack names them (`named`) or by command
 * (the dev shape's PostgreSQL and Temporal dev server). A tree counts every descendant, so PostgreSQL's
 * backends count under the process that started it; an ended child counts once its parent has reaped it.
 */
export function cpuSecondsByProcess(
  named: ReadonlyArray<{ name: string; pid: number }>,
  selfName: string,
): Record<string, number> {
  if (os.platform() !== 'linux') return {};
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, stat] of table) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  const treeTicks = (pid: number): number =>
    (table.get(pid)?.ticks ?? 0) +
    (children.get(pid) ?? []).reduce((sum, child) => sum + treeTicks(child), 0);
  const names = new Map(named.map(({ name, pid }) => [pid, name]));
  const own = process.cpuUsage();
  const seconds: Record<string, number> = { [selfName]: (own.user + own.system) / 1e6 };
  for (const child of children.get(process.pid) ?? []) {
    const name = names.get(child) ?? describe(child, table.get(child)!.command);
    seconds[name] = (seconds[name] ?? 0) + treeTicks(child) / TICKS_PER_SECOND;
  }
  return seconds;
}

/** The readings as counters measureCosts takes before and after a benchmark's window. */
export function cpuCounters(
  processes: () => ReadonlyArray<{ name: string; pid: number }>,
  selfName: string,
): DatabaseCounters {
  return {
    method: "CPU seconds from /proc, each process's tree",
    read: async () => cpuSecondsByProcess(processes(), selfName),
  };
}
