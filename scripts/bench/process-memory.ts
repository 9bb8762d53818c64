/** Peak resident memory of the stack's processes, from Linux's own high-water mark (VmHWM). */
import fs from 'node:fs';
import type { BenchProcess } from './harness';

function peakRssMb(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined; // the process ended, or this is not Linux
  }
}

/** One line per process; the high-water mark covers the process's whole life, earlier benchmarks included. */
export function peakRssLines(processes: BenchProcess[]): string[] {
  return processes.map(({ name, pid }) => {
    const peak = peakRssMb(pid);
    return `  peak RSS ${name}: ${peak === undefined ? 'not readable' : `${peak.toFixed(0)} MB`}`;
  });
}
