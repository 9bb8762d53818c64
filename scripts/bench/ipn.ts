/**
 * Notification ingestion: N signed payment results (IPNs), one per distinct payment order, posted to
 * payrun's payment receiver by 200 concurrent senders. The orders are created through the API first
 * (not timed) and wait for their customer; the bench then plays the gateway: each body is signed by
 * `buildNotification`, the function the sandbox's IPN dispatcher signs with (sandbox/ipn.ts), with the
 * merchant's keys. Each accepted POST is: verify, locate the payment, store, claim, signal Temporal,
 * mark signalled, 204. Prints accepted/s and p50/p99 against the floor (the same HTTP server answering
 * `GET /healthz`, same senders), the ratio, signature verification alone in-process, peak RSS, and the
 * check that each notification was stored and signalled once. Nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { buildNotification, parseNotification } from '../../gateway';
import { ipnPaths } from '../../platform/ipn-paths';
import { paymentWorkflowId } from '../../contracts/payments';
import type { BenchStack } from './harness';
import { describeRun, timedInParallel } from './load';
import { succeededWithin } from './payments';
import { peakRssLines } from './process-memory';

const COUNT = Number(process.env.BENCH_IPNS ?? 1000);
const SENDERS = 200;
const CREATORS = 32;
const AMOUNT = 25_000;
const KIND = 'payment.resultA';
const DONE_WAIT_MS = 120_000;

export async function benchIpn(stack: BenchStack): Promise<void> {
  // The bench is the gateway here: the simulated customer must not send results of its own.
  await stack.gateway.setAutoApprove(false);
  const tag = `n${randomUUID().slice(0, 6)}`;
  const ids = Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);
  console.log(`ipn: ${COUNT} signed payment results for distinct orders, ${SENDERS} concurrent senders`);
  await timedInParallel(COUNT, CREATORS, async (i) => {
    const response = await fetch(`${stack.apiUrl}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.paymentsKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paymentId: ids[i], requestType: 'captureWallet', amount: AMOUNT }),
    });
    if (response.status !== 201) throw new Error(`create ${i}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });

  // Signed before the clock starts: signing is the gateway's work, not payrun's.
  const { partnerCode, accessKey, secretKey } = stack.gatewaySettings;
  const keys = { accessKey, secretKey };
  const bodies = ids.map((orderId, i) =>
    JSON.stringify(
      buildNotification(
        KIND,
        {
          // The fields the sandbox sends for a paid wallet order (notificationFields in sandbox/payment-flow.ts).
          partnerCode,
          orderId,
          requestId: `${orderId}-c`,
          amount: AMOUNT,
          orderInfo: '',
          transId: 9_000_000_000 + i,
          resultCode: 0,
          message: 'Successful.',
          payType: 'qr',
          responseTime: Date.now(),
          extraData: '',
          userFee: 0,
        },
        keys,
      ),
    ),
  );

  const statuses = new Map<number, number>();
  const posted = await timedInParallel(COUNT, SENDERS, async (i) => {
    const response = await fetch(`${stack.apiUrl}${ipnPaths.payment}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[i]!,
    });
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    await response.arrayBuffer();
  });
  const accepted = statuses.get(204) ?? 0;

  // The floor: the same HTTP server (Express, its middleware, the same senders) answering a trivial route.
  const floor = await timedInParallel(COUNT, SENDERS, async () => {
    const response = await fetch(`${stack.apiUrl}/healthz`);
    if (response.status !== 200) throw new Error(`healthz: ${response.status}`);
    await response.arrayBuffer();
  });
  // Verification alone, in this process: what the receiver's signature check costs per notification.
  const verifyStarted = performance.now();
  for (const body of bodies) parseNotification(KIND, body, keys);
  const verifyMs = performance.now() - verifyStarted;

  const rate = accepted / posted.seconds;
  const floorRate = COUNT / floor.seconds;
  console.log(`  accepted (HTTP 204): ${describeRun(accepted, posted, 'notifications')}`);
  if (accepted !== COUNT)
    console.log(`  answers by status: ${[...statuses].map(([code, n]) => `${code} ×${n}`).join(', ')}`);
  console.log(
    `  floor (GET /healthz on the same server, ${SENDERS} senders): ${describeRun(COUNT, floor, 'requests')}`,
  );
  console.log(`  ratio floor / ipn: ${(floorRate / rate).toFixed(1)}×`);
  console.log(
    `  signature verification alone, in the bench process: ${((verifyMs * 1000) / COUNT).toFixed(0)} µs per notification (${((COUNT / verifyMs) * 1000).toFixed(0)}/s)`,
  );
  for (const line of peakRssLines(stack.processes())) console.log(line);

  // The check: one stored row per order, each marked signalled, each workflow signalled once.
  const rows = await stack
    .db('ipn_notifications')
    .whereIn('order_id', ids)
    .where({ kind: KIND })
    .select('order_id', 'signalled_at');
  const stored = new Set(rows.map((row: { order_id: string }) => row.order_id)).size;
  const signalled = rows.filter((row: { signalled_at: Date | null }) => row.signalled_at !== null).length;
  const recorded = await succeededWithin(stack, ids, DONE_WAIT_MS);
  const signalCounts = new Map<number, number>();
  await timedInParallel(COUNT, CREATORS, async (i) => {
    const { signals } = await stack.history(paymentWorkflowId(ids[i]!));
    signalCounts.set(signals, (signalCounts.get(signals) ?? 0) + 1);
  });
  const once = signalCounts.get(1) ?? 0;
  console.log(
    `  stored: ${rows.length} rows for ${stored} distinct orders, ${signalled} marked signalled; workflows signalled exactly once: ${once} (${[
      ...signalCounts,
    ]
      .map(([n, workflows]) => `${workflows} with ${n}`)
      .join(', ')}); payrun recorded ${recorded} succeeded (expected ${COUNT} each)`,
  );
}
