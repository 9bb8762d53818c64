/** Waiting for a process to serve: polled, with the last failure in the error when time runs out. */
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 250;

/** Polls `check` until it yields a value; gives up when `timeoutMs` runs out or `signal` aborts. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | false>,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const value = await check();
      if (value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`Timed out after ${timeoutMs / 1000}s waiting for ${what}${reason}`);
    }
    await sleep(POLL_MS, undefined, { signal });
  }
}

export const httpAnswers = (url: string) => async () => {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return response.status < 500;
};

export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Where the kernel's ephemeral range begins: it hands those out as source ports of outgoing connections,
 * so a port chosen there can be taken by any connect() (the Temporal server opens many) between choosing
 * it and binding it.
 */
function ephemeralLow(): number {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

const chosen = new Set<number>();

/**
 * Ports the Fetch standard blocks ("bad ports", those above 1023): Node's `fetch` refuses them before
 * connecting ("bad port"), so a service on one is out of reach of every client that uses it, openid-client
 * and the tests among them. 10080 is inside the range these helpers choose from.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697,
  10080,
]);

/**
 * A port free right now and outside the ephemeral range, so only another listener can take it before
 * it is bound. Ports handed out earlier by this process are not handed out again.
 */
export async function freePort(): Promise<number> {
  return (await freePortRun(1))[0]!;
}

/**
 * A free port in [low, high) not handed out before by this process. The Temporal server stores
 * membership ports in a smallint column, so those must stay below 32768.
 */
export async function freePortBetween(low: number, high: number, taken = chosen): Promise<number> {
  return (await freePortRunBetween(low, high, 1, taken))[0]!;
}

/** `count` consecutive free ports in [low, high), for workers that serve metrics on base + index. */
export async function freePortRunBetween(
  low: number,
  high: number,
  count: number,
  taken = chosen,
): Promise<number[]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count));
    const run = Array.from({ length: count }, (_, i) => base + i);
    if (run.some((port) => taken.has(port) || FETCH_BLOCKED_PORTS.has(port))) continue;
    if ((await Promise.all(run.map((port) => portIsFree(port)))).every(Boolean)) {
      for (const port of run) taken.add(port);
      return run;
    }
  }
  throw new Error(`No ${count} free consecutive ports between ${low} and ${high}`);
}

/** `count` consecutive ports free right now, outside the ephemeral range. */
export async function freePortRun(count: number): Promise<number[]> {
  return freePortRunBetween(10_000, Math.min(ephemeralLow(), 32_000), count);
}
