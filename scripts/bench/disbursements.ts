/**
 * Single disbursements: N wallet payouts, each `POST /v1/disbursements` → its own workflow (check the
 * wallet, read the balance, pay) → recorded succeeded, 32 creates in flight. Prints disbursements/s from
 * the first create to the last recorded result and p50/p99 of the create call, against the floor (the
 * same three gateway operations per payout, signed and sent directly with the gateway client, 32 at
 * once), the ratio, one disbursement's history, peak RSS and the ledger check (each order paid at most
 * once). A benchmark, not a test: nothing here asserts a duration. `npm run bench -- disbursements`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient } from '../../gateway';
import { disbursementWorkflowId } from '../../contracts/payouts';
import type { BenchStack } from './harness';
import type { BenchItems } from './costs';
import { describeRun, post, timedInParallel, type Timed } from './load';
import { peakRssLines } from './process-memory';
import { deskHistoryLines } from './desk-history';

const COUNT = Number(process.env.BENCH_DISBURSEMENTS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const DONE_WAIT_MS = 30 * 60_000;
/** Receivers whose last four digits are never a sandbox scenario (1007, 7000, …): every payout can succeed. */
export const benchWalletOf = (index: number) => `09${String(index).padStart(6, '0')}55`;
/**
 * BENCH_PENDING_EVERY=<n>: every n-th receiver's wallet ends in 7000, which the sandbox answers pending and
 * settles by notification (after its pendingSettleMs): the path a payout takes when the gateway cannot say at
 * once, exercised under the same load. Unset: every payout is answered at once.
 */
const PENDING_EVERY = Number(process.env.BENCH_PENDING_EVERY ?? 0);
const answeredLater = (index: number) => PENDING_EVERY > 0 && index % PENDING_EVERY === 0;
const receiverWalletOf = (index: number) =>
  answeredLater(index) ? `09${String(index % 10_000).padStart(4, '0')}7000` : benchWalletOf(index);
const amountOf = (index: number) => 10_000 + (index % 90_000);

export async function benchDisbursements(stack: BenchStack): Promise<BenchItems> {
  const tag = `d${randomUUID().slice(0, 6)}`;
  const ids = Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);
  console.log(
    `disbursements: ${COUNT} single wallet disbursements through the API, ${IN_FLIGHT} created at once` +
      (PENDING_EVERY > 0 ? `, every ${PENDING_EVERY}th answered pending and settled by notification` : ''),
  );

  const started = performance.now();
  const created = await timedInParallel(COUNT, IN_FLIGHT, async (i) => {
    const response = await post(
      `${stack.apiUrl}/v1/disbursements`,
      JSON.stringify({
        disbursementId: ids[i],
        amount: amountOf(i),
        wallet: { walletId: receiverWalletOf(i), walletName: `Receiver ${i}` },
      }),
      { authorization: `Bearer ${stack.makerKey}` },
    );
    if (response.status >= 300) throw new Error(`create ${i}: ${response.status} ${response.text}`);
  });
  const outcomes = await terminalWithin(stack, ids, DONE_WAIT_MS);
  const endToEnd: Timed = { seconds: (performance.now() - started) / 1000, latenciesMs: created.latenciesMs };
  const succeeded = outcomes.get('succeeded') ?? 0;

  const floor = await gatewayFloor(stack, `${tag}-floor`);
  const rate = succeeded / endToEnd.seconds;
  console.log(
    `  create → recorded succeeded (create-call latency): ${describeRun(succeeded, endToEnd, 'disbursements')}`,
  );
  if (succeeded !== COUNT)
    console.log(`  outcomes: ${[...outcomes].map(([status, n]) => `${status} ×${n}`).join(', ')}`);
  console.log(`  ${await recordedLatencies(stack, ids)}`);
  const later = ids.filter((_, i) => answeredLater(i));
  if (later.length > 0)
    console.log(
      `  of which the ${later.length} answered pending first: ${await recordedLatencies(stack, later)}`,
    );
  for (const line of await slowestStory(stack, ids)) console.log(line);
  console.log(
    `  floor (checkWallet + balance + pay signed and sent directly with the gateway client, ${IN_FLIGHT} at once): ${describeRun(COUNT, floor, 'payouts')}`,
  );
  console.log(`  ratio floor / payrun: ${(COUNT / floor.seconds / rate).toFixed(1)}×`);
  for (const line of await deskHistoryLines(
    stack,
    { table: 'disbursements', idColumn: 'disbursement_id', noun: 'payout' },
    ids,
  ))
    console.log(line);
  for (const line of peakRssLines(stack.processes())) console.log(line);

  const wanted = new Set(ids);
  const paid = (await stack.gateway.ledger()).filter(
    (entry) => wanted.has(entry.orderId) && entry.outcome === 'succeeded',
  );
  const distinct = new Set(paid.map((entry) => entry.orderId)).size;
  console.log(
    `  sandbox ledger: ${paid.length} payouts, ${distinct} distinct orders (each paid at most once: ${distinct === paid.length}; expected ${COUNT})`,
  );
  // Per payout, whether each had a workflow or the desk made them (one workflow for all).
  return { count: COUNT, noun: 'disbursement' };
}

/** The three operations a wallet disbursement makes, without the API, the database or Temporal. */
async function gatewayFloor(stack: BenchStack, prefix: string): Promise<Timed> {
  const settings = stack.gatewaySettings;
  const client = createGatewayClient({ ...settings, gatewayPublicKey: settings.publicKey });
  // The floor's notifications go to a receiver that only acknowledges them, not to payrun's API.
  const receiver = http.createServer((request, response) =>
    request.resume().on('end', () => response.writeHead(204).end()),
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const ipnUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ipn`;
  try {
    return await floorCalls(client, prefix, ipnUrl);
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

function floorCalls(
  client: ReturnType<typeof createGatewayClient>,
  prefix: string,
  ipnUrl: string,
): Promise<Timed> {
  return timedInParallel(COUNT, IN_FLIGHT, async (i) => {
    const orderId = `${prefix}-${i}`;
    const disbursementMethod = { walletId: benchWalletOf(i), walletName: `Receiver ${i}` };
    await client.call('disbursement.verify', {
      orderId: `${orderId}-chk`,
      requestId: `${orderId}-chk`,
      requestType: 'checkWallet',
      disbursementMethod,
    });
    await client.call('disbursement.balance', { orderId: `${orderId}-bal`, requestId: `${orderId}-bal` });
    await client.call('disbursement.pay', {
      orderId,
      requestId: `${orderId}-pay`,
      amount: amountOf(i),
      requestType: 'disburseToWallet',
      disbursementMethod,
      orderInfo: 'Bench floor',
      ipnUrl,
      extraData: '',
    });
  });
}

/** Status → count of `ids`, once every one is terminal or `ms` has passed. */
async function terminalWithin(stack: BenchStack, ids: string[], ms: number): Promise<Map<string, number>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const rows: Array<{ status: string; n: string | number }> = await stack
      .db('disbursements')
      .whereIn('disbursement_id', ids)
      .groupBy('status')
      .select('status')
      .count({ n: '*' });
    const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
    const terminal = ['succeeded', 'failed', 'needs_attention'].reduce(
      (sum, s) => sum + (counts.get(s) ?? 0),
      0,
    );
    if (terminal >= ids.length || Date.now() > deadline) return counts;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * From each record's creation to its last write (the recorded result), p50 / p99 / max, and over what span
 * the records were created: where a disbursement's time goes once the create call has answered.
 */
async function recordedLatencies(stack: BenchStack, ids: string[]): Promise<string> {
  const rows = (await stack
    .db('disbursements')
    .whereIn('disbursement_id', ids)
    .select(
      stack.db.raw(
        `percentile_cont(0.5) within group (order by extract(epoch from updated_at - created_at)) as p50,
         percentile_cont(0.99) within group (order by extract(epoch from updated_at - created_at)) as p99,
         max(extract(epoch from updated_at - created_at)) as worst,
         extract(epoch from max(created_at) - min(created_at)) as created_over`,
      ),
    )) as Array<Record<'p50' | 'p99' | 'worst' | 'created_over', string | number>>;
  const [row] = rows;
  const s = (value: string | number | undefined) => `${Number(value ?? 0).toFixed(1)} s`;
  return `record created → result recorded: p50 ${s(row?.p50)}, p99 ${s(row?.p99)}, worst ${s(row?.worst)}; records created over ${s(row?.created_over)}`;
}

/** The slowest disbursement's notifications and history, from its record's creation: where its time went. */
async function slowestStory(stack: BenchStack, ids: string[]): Promise<string[]> {
  const slowest = (await stack
    .db('disbursements')
    .whereIn('disbursement_id', ids)
    .orderByRaw('updated_at - created_at desc')
    .first('disbursement_id', 'order_id', 'created_at', 'updated_at', 'status', 'desk_id', 'desk_chunk')) as
    | {
        disbursement_id: string;
        order_id: string;
        created_at: Date;
        updated_at: Date;
        status: string;
        desk_id: string | null;
        desk_chunk: string | null;
      }
    | undefined;
  if (!slowest) return [];
  const since = (at: Date | string | null | undefined) =>
    at ? `+${((new Date(at).getTime() - slowest.created_at.getTime()) / 1000).toFixed(1)} s` : 'never';
  const workflowId = disbursementWorkflowId(slowest.disbursement_id);
  const notifications = (await stack
    .db('ipn_notifications')
    .where({ order_id: slowest.order_id })
    .orWhere({ workflow_id: workflowId })
    .orderBy('received_at')
    .select('kind', 'result_code', 'received_at', 'signalled_at')) as Array<{
    kind: string;
    result_code: number | null;
    received_at: Date;
    signalled_at: Date | null;
  }>;
  // A payout the desk settled has no workflow of its own: its chunk is where it was made.
  if (slowest.desk_id)
    return [
      `  slowest: ${slowest.disbursement_id} (${slowest.status}) recorded ${since(slowest.updated_at)} after its record, by the desk's chunk ${slowest.desk_chunk}`,
    ];
  const history = await stack.costs.temporal.workflow.getHandle(workflowId).fetchHistory();
  const events = (history.events ?? []).map((event) => {
    const type = Object.keys(event)
      .find((key) => key.endsWith('EventAttributes'))
      ?.replace('EventAttributes', '');
    const seconds =
      Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
    return `${type} ${since(new Date(seconds))}`;
  });
  // What the gateway side did: each attempt to deliver its notifications, and how it ended.
  const deliveries = (await stack.gateway.ipnLog())
    .filter((entry) => entry.orderId === slowest.order_id)
    .map(
      (entry) =>
        `${entry.kind} attempt ${entry.attempt} ${since(entry.at)} ${entry.outcome}` +
        (entry.httpStatus ? ` ${entry.httpStatus}` : '') +
        (entry.error ? ` (${entry.error})` : ''),
    );
  return [
    `  slowest: ${slowest.disbursement_id} (${slowest.status}) recorded ${since(slowest.updated_at)} after its record`,
    `    sandbox deliveries: ${deliveries.join('; ') || 'none'}`,
    `    notifications: ${notifications.map((n) => `${n.kind} ${n.result_code} received ${since(n.received_at)}, signalled ${since(n.signalled_at)}`).join('; ') || 'none'}`,
    `    history: ${events.join(', ')}`,
  ];
}
