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

function currentRssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples one process's resident memory every `everyMs` until stopped: its RSS when sampling began
 * (the idle figure) and the highest seen since, for a figure bounded by "idle + N MB".
 */
export function sampleRss(pid: number, everyMs = 10): () => { idleMb: number; peakMb: number } {
  const idleMb = currentRssMb(pid) ?? Number.NaN;
  let peakMb = idleMb;
  const timer = setInterval(() => {
    const now = currentRssMb(pid);
    if (now !== undefined && !(now <= peakMb)) peakMb = now;
  }, everyMs);
  return () => {
    clearInterval(timer);
    return { idleMb, peakMb };
  };
}
