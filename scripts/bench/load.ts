/** Concurrent callers, their HTTP client and latency figures shared by the request-rate benchmarks. */
import http from 'node:http';

export interface Timed {
  /** Wall time of the whole run. */
  seconds: number;
  /** Each call's duration, in call order. */
  latenciesMs: number[];
}

/** Calls `each(0 … count-1)` with at most `concurrency` calls in flight, timing every call and the whole. */
export async function timedInParallel(
  count: number,
  concurrency: number,
  each: (index: number) => Promise<void>,
): Promise<Timed> {
  const latenciesMs = new Array<number>(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) {
        const callStarted = performance.now();
        await each(i);
        latenciesMs[i] = performance.now() - callStarted;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latenciesMs };
}

/** Nearest-rank percentile (p in 0–100) of durations in ms. */
export function percentile(latenciesMs: number[], p: number): number {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** "N in S s (R/s), p50 X ms, p99 Y ms": one line's worth of a timed run. */
export function describeRun(count: number, run: Timed, unit: string): string {
  const rate = count / run.seconds;
  const p50 = percentile(run.latenciesMs, 50).toFixed(1);
  const p99 = percentile(run.latenciesMs, 99).toFixed(1);
  return `${count} in ${run.seconds.toFixed(2)} s (${rate.toFixed(1)} ${unit}/s), p50 ${p50} ms, p99 ${p99} ms`;
}

/**
 * The benchmarks' client: one POST on a keep-alive connection of node:http. It shares the two cores with
 * payrun, and Node's `fetch` costs several times its CPU per request (a loopback POST and its answer, client
 * and server in separate processes, 32 at once: about 0.40 ms of the client's CPU with `fetch`, 0.15–0.18 ms
 * with this), CPU the measured stack then lacks.
 */
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: Infinity });
export function post(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          'content-type': 'application/json',
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
