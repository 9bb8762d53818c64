/**
 * Validating a payout file through the API: a 100,000-row CSV posted to `/v1/payout-runs/dry-run`,
 * three times one after another. Prints each answer's time, the API process's resident memory when
 * idle and at its peak (sampled every 10 ms), and the floor: csv-parse alone reading the same bytes
 * into records, in this process. A benchmark, not a test: nothing here asserts a duration.
 * `npm run bench -- payout-file`.
 */
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import { benchWalletOf } from './disbursements';
import type { BenchStack } from './harness';
import { sampleRss } from './process-memory';

const ROWS = Number(process.env.BENCH_FILE_ROWS ?? 100_000);
const TIMES = 3;
const HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id';

function payoutFile(prefix: string): Buffer {
  const rows = Array.from(
    { length: ROWS },
    (_, i) => `${prefix}-${i},${benchWalletOf(i)},Receiver ${i},,${10_000 + i},Salary November,`,
  );
  return Buffer.from([HEADER, ...rows].join('\n'));
}

async function dryRun(stack: BenchStack, file: Buffer): Promise<{ seconds: number; summary: string }> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}/v1/payout-runs/dry-run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.makerKey}`, 'content-type': 'text/csv' },
    body: file,
  });
  const body = (await response.json()) as { valid?: boolean; rowCount?: number };
  const seconds = (performance.now() - started) / 1000;
  if (response.status !== 200 || body.valid !== true)
    throw new Error(`dry run answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return { seconds, summary: `valid, ${String(body.rowCount)} rows` };
}

export async function benchPayoutFile(stack: BenchStack): Promise<void> {
  const file = payoutFile(`f${randomUUID().slice(0, 6)}`);
  console.log(
    `payout-file: a ${ROWS}-row CSV (${(file.length / 1024 / 1024).toFixed(1)} MB) validated by the API's dry run, ${TIMES} times`,
  );
  const api = stack.processes().find((process) => /\bapi\b/i.test(process.name));
  if (!api) throw new Error('payout-file: the stack names no API process');
  const seconds: number[] = [];
  for (let time = 1; time <= TIMES; time += 1) {
    const stop = sampleRss(api.pid);
    const run = await dryRun(stack, file);
    const { idleMb, peakMb } = stop();
    seconds.push(run.seconds);
    console.log(
      `  dry run ${time}: ${run.summary} in ${run.seconds.toFixed(2)} s; ${api.name} RSS idle ${idleMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB (+${(peakMb - idleMb).toFixed(0)} MB)`,
    );
  }
  const floorStarted = performance.now();
  const records = parse(file, { columns: true }) as unknown[];
  const floorSeconds = (performance.now() - floorStarted) / 1000;
  const median = [...seconds].sort((a, b) => a - b)[Math.floor(TIMES / 2)]!;
  console.log(
    `  floor (csv-parse alone, ${records.length} records, in this process): ${floorSeconds.toFixed(2)} s`,
  );
  console.log(
    `  median ${median.toFixed(2)} s; ratio payrun / floor: ${(median / floorSeconds).toFixed(1)}×`,
  );
}
