/**
 * `--repeat N`: one benchmark run N times, each on a fresh stack, and the spread of the runs. On two shared cores
 * the same build's rate moves by about a tenth from run to run (docs/performance.md), so a single figure cannot
 * tell a change of a few percent from the machine; the writes per item do not move and are printed per run.
 */
import type { Measured } from './costs';

/** `--repeat N` from the arguments: 1 when absent; a clear error for anything but a whole number from 1 to 20. */
export function repeatsOf(args: readonly string[]): number {
  const at = args.indexOf('--repeat');
  if (at === -1) return 1;
  const given = args[at + 1];
  const repeats = Number(given);
  if (!given || !Number.isInteger(repeats) || repeats < 1 || repeats > 20)
    throw new Error(`--repeat must be a whole number from 1 to 20, got "${given ?? ''}"`);
  return repeats;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface RunFigures {
  /** Items per second of the measured window. */
  rate: number;
  /** CPU of every process the stack started, per item (ms); absent where /proc is not read. */
  cpuMs?: number;
}

/** What one measured run says, per the items the benchmark named (or per workflow started). */
export function figuresOf(measured: Measured): RunFigures | undefined {
  const count = measured.items?.count ?? measured.workflows;
  const cpu = measured.cpu;
  if (!count || !cpu || cpu.windowSeconds <= 0) return undefined;
  const seconds = Object.values(cpu.seconds).reduce((sum, value) => sum + value, 0);
  return { rate: count / cpu.windowSeconds, cpuMs: (seconds * 1000) / count };
}

/** The lines printed after the last run: each run's figures in order, then the median and the range. */
export function spreadLines(name: string, label: string, runs: readonly Measured[]): string[] {
  const figures = runs.map(figuresOf);
  const known = figures.filter((figure): figure is RunFigures => figure !== undefined);
  const per = runs[0]?.items?.noun ?? 'workflow';
  const head = `${name} (${label}), ${runs.length} run${runs.length === 1 ? '' : 's'} on fresh stacks`;
  if (known.length === 0) return [`${head}: no run counted items and CPU, no spread to show`];
  const rates = known.map((figure) => figure.rate);
  const cpus = known.flatMap((figure) => (figure.cpuMs === undefined ? [] : [figure.cpuMs]));
  const list = (values: readonly number[]) => values.map((value) => value.toFixed(1)).join(', ');
  const range = (values: readonly number[]) =>
    `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
  return [
    `${head}:`,
    `  ${per}s per second of the measured window: ${list(rates)}; median ${median(rates).toFixed(1)}, range ${range(rates)}`,
    ...(cpus.length
      ? [`  CPU per ${per}: ${list(cpus)} ms; median ${median(cpus).toFixed(1)}, range ${range(cpus)}`]
      : []),
    ...(known.length < runs.length ? [`  ${runs.length - known.length} run(s) counted no items or CPU`] : []),
  ];
}
