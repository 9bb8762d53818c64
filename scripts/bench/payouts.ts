/**
 * 10,000 payouts end to end against the sandbox, two ways, in one run:
 *   1. one CSV upload → approval → 10 batch workflows → reconciled;
 *   2. the same 10,000 payouts as single disbursements, one workflow each.
 * Prints both times and their ratio. A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import type { BenchStack } from './harness';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
/** Receivers whose last four digits are never a sandbox scenario (1007, 7000, …): every payout can succeed. */
const walletOf = (index: number) => `09${String(index).padStart(6, '0')}55`;

async function call(
  stack: BenchStack,
  key: string,
  method: string,
  path: string,
  body?: string,
  type = 'application/json',
) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': type },
    ...(body === undefined ? {} : { body }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function viaBatches(stack: BenchStack, prefix: string): Promise<number> {
  const header = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id';
  const rows = Array.from(
    { length: ROWS },
    (_, i) => `${prefix}-${i},${walletOf(i)},Receiver ${i},,${10_000 + i},Bench,`,
  );
  const started = performance.now();
  const run = await call(
    stack,
    stack.makerKey,
    'POST',
    '/v1/payout-runs?fileName=bench.csv',
    [header, ...rows].join('\n'),
    'text/csv',
  );
  await call(stack, stack.approverKey, 'POST', `/v1/payout-runs/${String(run.runId)}/approve`, '{}');
  for (;;) {
    const view = await call(stack, stack.makerKey, 'GET', `/v1/payout-runs/${String(run.runId)}`);
    if (view.status === 'reconciled' || view.status === 'needs_attention') {
      if (view.status !== 'reconciled')
        throw new Error(`run ended ${String(view.status)}: ${String(view.statusReason)}`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return (performance.now() - started) / 1000;
}

async function viaSingles(stack: BenchStack, prefix: string): Promise<number> {
  const started = performance.now();
  const ids = Array.from({ length: ROWS }, (_, i) => `${prefix}-${i}`);
  const concurrency = 32;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < ids.length; i = next++) {
        const body = {
          disbursementId: ids[i],
          amount: 10_000 + i,
          wallet: { walletId: walletOf(i), walletName: `Receiver ${i}` },
        };
        await call(stack, stack.makerKey, 'POST', '/v1/disbursements', JSON.stringify(body));
      }
    }),
  );
  for (;;) {
    const row = await stack
      .db('disbursements')
      .whereIn('status', ['succeeded', 'failed', 'needs_attention'])
      .count({ n: '*' })
      .first();
    if (Number(row?.n) >= ROWS) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const failed = await stack.db('disbursements').whereNot({ status: 'succeeded' }).count({ n: '*' }).first();
  if (Number(failed?.n) > 0) throw new Error(`${String(failed?.n)} single disbursements did not succeed`);
  return (performance.now() - started) / 1000;
}

export async function benchPayouts(stack: BenchStack): Promise<void> {
  const tag = randomUUID().slice(0, 6);
  console.log(`payouts: ${ROWS} rows, sandbox without artificial delays`);
  const batchSeconds = await viaBatches(stack, `b${tag}`);
  console.log(
    `  batch run (upload → reconciled):   ${batchSeconds.toFixed(1)} s  (${(ROWS / batchSeconds).toFixed(0)} payouts/s)`,
  );
  const singleSeconds = await viaSingles(stack, `s${tag}`);
  console.log(
    `  single disbursements (one by one): ${singleSeconds.toFixed(1)} s  (${(ROWS / singleSeconds).toFixed(0)} payouts/s)`,
  );
  console.log(`  ratio single / batch:              ${(singleSeconds / batchSeconds).toFixed(1)}×`);
  const moved = (await stack.gateway.ledger()).filter((entry) => entry.outcome === 'succeeded');
  const keys = new Set(moved.map((entry) => `${entry.orderId}/${entry.itemId ?? ''}`));
  console.log(
    `  sandbox ledger: ${moved.length} movements, ${keys.size} distinct (each paid at most once: ${keys.size === moved.length})`,
  );
}
