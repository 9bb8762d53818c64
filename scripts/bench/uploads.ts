/**
 * Five concurrent 32 MB payout uploads against the whole stack in this process (API, Temporal worker,
 * sandbox), while `/healthz` is asked every 20 ms. Prints the uploads' answers and times, `/healthz`
 * p50/p99/max and this process's peak RSS. Two files:
 *   - tiny rows (`a,0,b,,1,,`: about 3 million rows, far past the row cap), the file that stalled the API;
 *   - 100,000 rows padded to 32 MB (the largest file that is read to the end), sent to the dry run.
 * An upload answered 503 (all parsers busy) waits its Retry-After and tries again, as a client should.
 * A benchmark, not a test: nothing here asserts a duration. `npm run bench -- uploads`.
 */
import { Worker } from 'node:worker_threads';
import type { BenchStack } from './harness';

const FILE_BYTES = 32 * 1024 * 1024 - 1024;
const CONCURRENT = 5;
const HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id\n';

function tinyRowsFile(): Buffer {
  const row = 'a,0,b,,1,,\n';
  return Buffer.from(HEADER + row.repeat(Math.floor((FILE_BYTES - HEADER.length) / row.length)));
}

function hundredThousandRowsFile(): Buffer {
  const rows = 100_000;
  const fixed = (index: number) => `bench-up-${index},0912345655,Receiver ${index},,150000,,`;
  const padding = Math.floor((FILE_BYTES - HEADER.length) / rows) - fixed(rows).length - 1;
  const lines = Array.from({ length: rows }, (_, index) => {
    const start = fixed(index);
    const cut = start.lastIndexOf(',,');
    return `${start.slice(0, cut + 1)}${'d'.repeat(Math.max(1, padding))},\n`;
  });
  return Buffer.from(HEADER + lines.join(''));
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;

/**
 * The clients (five uploaders and the /healthz prober) run in a worker thread with its own event loop,
 * so the figures are the API's and not the load generator's. Plain JavaScript: it needs no loader.
 */
const CLIENTS = String.raw`
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { apiUrl, key, file, concurrent } = workerData;

function post(path) {
  return new Promise((resolve, reject) => {
    const request = http.request(apiUrl + path, {
      method: 'POST',
      headers: { authorization: 'Bearer ' + key, 'content-type': 'text/csv', 'content-length': file.length },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part) => (text += part));
      response.on('end', () => {
        // An answer before the whole file was sent (a cap applied while reading): stop sending.
        request.destroy();
        resolve({ status: response.statusCode, retryAfter: response.headers['retry-after'], text });
      });
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    request.end(Buffer.from(file.buffer, file.byteOffset, file.length));
  });
}

async function uploadUntilRead() {
  const started = performance.now();
  let busy = 0;
  for (;;) {
    const answer = await post('/v1/payout-runs/dry-run');
    if (answer.status === 503) {
      busy += 1;
      await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfter || 1) * 1000));
      continue;
    }
    const body = JSON.parse(answer.text);
    const firstError = (body.fileErrors || (body.error && body.error.problems) || [])[0];
    return {
      status: answer.status,
      outcome: body.valid === true ? 'valid, ' + body.rowCount + ' rows' : firstError ? firstError.rule : 'refused',
      busyAnswers: busy,
      seconds: (performance.now() - started) / 1000,
    };
  }
}

async function probeHealth(isRunning) {
  const latencies = [];
  // Measured from when the probe was due, so a blocked event loop counts against the answer.
  for (let due = performance.now(); isRunning(); due += 20) {
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await new Promise((resolve, reject) =>
      http.get(apiUrl + '/healthz', (response) => response.resume().on('end', resolve)).on('error', reject),
    );
    latencies.push(performance.now() - due);
    if (performance.now() - due > 20) due = performance.now();
  }
  return latencies;
}

(async () => {
  let running = true;
  const prober = probeHealth(() => running);
  const started = performance.now();
  const uploads = await Promise.all(Array.from({ length: concurrent }, uploadUntilRead));
  const seconds = (performance.now() - started) / 1000;
  running = false;
  parentPort.postMessage({ uploads, seconds, latencies: await prober });
})();
`;

interface ClientReport {
  uploads: Array<{ status: number; outcome: string; busyAnswers: number; seconds: number }>;
  seconds: number;
  latencies: number[];
}

async function scenario(stack: BenchStack, name: string, file: Buffer) {
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
  const clients = new Worker(CLIENTS, {
    eval: true,
    workerData: { apiUrl: stack.apiUrl, key: stack.makerKey, file, concurrent: CONCURRENT },
  });
  const report = await new Promise<ClientReport>((resolve, reject) => {
    clients.once('message', resolve);
    clients.once('error', reject);
  });
  await clients.terminate();
  clearInterval(sampler);
  const sorted = [...report.latencies].sort((a, b) => a - b);
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  console.log(
    `\n${name}: ${CONCURRENT} concurrent uploads of ${mb(file.length)} in ${report.seconds.toFixed(1)} s`,
  );
  for (const [index, result] of report.uploads.entries()) {
    console.log(
      `  upload ${index + 1}: ${result.status} ${result.outcome} after ${result.seconds.toFixed(1)} s (${result.busyAnswers} × 503 first)`,
    );
  }
  console.log(
    `  /healthz: ${sorted.length} probes, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms`,
  );
  console.log(
    `  RSS of this process (API, Temporal worker, sandbox, parser threads, the clients' thread): ${mb(baselineRss)} before, peak ${mb(peakRss)}`,
  );
}

export async function benchUploads(stack: BenchStack): Promise<void> {
  await scenario(stack, 'tiny rows, past the row cap', tinyRowsFile());
  await scenario(stack, '100,000 rows read to the end (dry run)', hundredThousandRowsFile());
}
