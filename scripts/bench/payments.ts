/**
 * One-time payments: N wallet payments (captureWallet) created through `POST /v1/payments`, 32 at once.
 * A create answers 201 once the gateway's answer (the links) is recorded: made by a chunk of the payment desk
 * (PAYMENT_DESK, the default), or by the payment's own workflow in its first task (`--previous`).
 * Prints payments/s and p50/p99 of the create call against the floor (the same api/create, signed and
 * sent directly with the gateway client, 32 at once), the ratio, peak RSS and the ledger check.
 * A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { createGatewayClient } from '../../gateway';
import { ipnPaths, paymentReturnPath } from '../../platform/ipn-paths';
import type { BenchStack } from './harness';
import type { BenchItems } from './costs';
import { describeRun, post, timedInParallel } from './load';
import { peakRssLines } from './process-memory';
import { deskHistoryLines } from './desk-history';

const COUNT = Number(process.env.BENCH_PAYMENTS ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
/** No amount scenario of the sandbox ends in 5000: the customer simply pays. */
const AMOUNT = 25_000;
const DONE_WAIT_MS = 120_000;

export async function benchPayments(stack: BenchStack): Promise<BenchItems> {
  // The customers pay after the measurement: their notifications would otherwise load the timed window.
  await stack.gateway.setAutoApprove(false);
  const tag = `p${randomUUID().slice(0, 6)}`;
  const ids = Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);
  console.log(`payments: ${COUNT} one-time payments (captureWallet) through the API, ${IN_FLIGHT} at once`);

  const statuses = new Map<number, number>();
  const created = await timedInParallel(COUNT, IN_FLIGHT, async (i) => {
    const response = await post(
      `${stack.apiUrl}/v1/payments`,
      JSON.stringify({ paymentId: ids[i], requestType: 'captureWallet', amount: AMOUNT, orderInfo: 'Bench' }),
      { authorization: `Bearer ${stack.paymentsKey}` },
    );
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    // 202 (no gateway answer within the create call's wait) is slow, not wrong: counted, not thrown.
    if (response.status !== 201 && response.status !== 202)
      throw new Error(`create ${i}: ${response.status} ${response.text}`);
  });
  const answered201 = statuses.get(201) ?? 0;

  // The floor: the gateway operation the payment activity makes first, signed and sent with the gateway
  // client, without the API, the database or Temporal. Its orders are never paid, so no IPN follows.
  const settings = stack.gatewaySettings;
  const client = createGatewayClient({ ...settings, gatewayPublicKey: settings.publicKey });
  const floor = await timedInParallel(COUNT, IN_FLIGHT, async (i) => {
    const orderId = `${tag}-floor-${i}`;
    await client.call('payment.captureWallet', {
      orderId,
      requestId: `${orderId}-c`,
      amount: AMOUNT,
      orderInfo: 'Bench floor',
      extraData: '',
      redirectUrl: `${stack.apiUrl}${paymentReturnPath}`,
      ipnUrl: `${stack.apiUrl}${ipnPaths.payment}`,
      requestType: 'captureWallet',
      autoCapture: true,
      lang: 'vi',
    });
  });

  const rate = answered201 / created.seconds;
  const floorRate = COUNT / floor.seconds;
  console.log(`  created through the API (HTTP 201): ${describeRun(answered201, created, 'payments')}`);
  if (answered201 !== COUNT)
    console.log(`  answers by status: ${[...statuses].map(([code, n]) => `${code} ×${n}`).join(', ')}`);
  console.log(
    `  floor (api/create signed and sent directly with the gateway client, ${IN_FLIGHT} at once): ${describeRun(COUNT, floor, 'creates')}`,
  );
  console.log(`  ratio floor / API: ${(floorRate / rate).toFixed(1)}×`);
  for (const line of peakRssLines(stack.processes())) console.log(line);

  // The check, outside the measurement: every customer pays, so every order the API created reaches the
  // sandbox's ledger, once; approving an order the sandbox does not hold would throw.
  await timedInParallel(COUNT, IN_FLIGHT, (i) => stack.gateway.approve(ids[i]!));
  const wanted = new Set(ids);
  const paid = (await stack.gateway.ledger()).filter((entry) => wanted.has(entry.orderId));
  const distinct = new Set(paid.map((entry) => entry.orderId)).size;
  console.log(
    `  sandbox ledger: ${paid.length} payments, ${distinct} distinct orders (each created and paid at most once: ${distinct === paid.length}; expected ${COUNT})`,
  );
  const recorded = await succeededWithin(stack, ids, DONE_WAIT_MS);
  console.log(`  payrun recorded ${recorded} of ${COUNT} succeeded after the customers paid`);
  // After the results: a payment the desk holds has no workflow, one it handed over (or every one, without the
  // desk) has its own, whose history is complete only now.
  for (const line of await deskHistoryLines(
    stack,
    { table: 'payments', idColumn: 'payment_id', noun: 'payment' },
    ids,
  ))
    console.log(line);
  return { count: COUNT, noun: 'payment' };
}

/** How many of `ids` payrun records succeeded, waiting for all of them up to `ms` (quiet for the next bench). */
export async function succeededWithin(stack: BenchStack, ids: string[], ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = await stack
      .db('payments')
      .whereIn('payment_id', ids)
      .where({ status: 'succeeded' })
      .count({ n: '*' })
      .first();
    const done = Number(row?.n);
    if (done >= ids.length || Date.now() > deadline) return done;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
