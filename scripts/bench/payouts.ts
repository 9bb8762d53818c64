/**
 * A payout file end to end against the sandbox: one CSV upload of 100,000 rows (BENCH_ROWS) → approval →
 * batch workflows → reconciled. Prints the time, payouts/s and the ledger check. The same payouts one
 * by one are the `disbursements` benchmark. A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { benchWalletOf } from './disbursements';
import type { BenchStack } from './harness';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);

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
    (_, i) => `${prefix}-${i},${benchWalletOf(i)},Receiver ${i},,${10_000 + i},Bench,`,
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

export async function benchPayouts(stack: BenchStack): Promise<void> {
  const tag = randomUUID().slice(0, 6);
  console.log(`payouts: ${ROWS} rows, sandbox without artificial delays`);
  const batchSeconds = await viaBatches(stack, `b${tag}`);
  console.log(
    `  batch run (upload → reconciled):   ${batchSeconds.toFixed(1)} s  (${(ROWS / batchSeconds).toFixed(0)} payouts/s)`,
  );
  const moved = (await stack.gateway.ledger()).filter(
    (entry) => entry.outcome === 'succeeded' && (entry.itemId ?? '').startsWith(`b${tag}`),
  );
  const keys = new Set(moved.map((entry) => `${entry.orderId}/${entry.itemId ?? ''}`));
  console.log(
    `  sandbox ledger: ${moved.length} movements, ${keys.size} distinct (each paid at most once: ${keys.size === moved.length}; expected ${ROWS})`,
  );
}
