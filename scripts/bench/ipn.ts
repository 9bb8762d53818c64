/**
 * Notification ingestion through the inbox: signed payment notifications (IPNs) posted to payrun's payment
 * receiver, which verifies, locates the payment, stores the row (one insert; the relays are woken after
 * the commit) and answers 204; the relay signals each payment's workflow from the stored row. The orders are created
 * through the API first (not timed) and wait for their customer; the bench then plays the gateway: each
 * body is signed by `buildNotification`, the function the sandbox's IPN dispatcher signs with, with the
 * merchant's keys. The notifications say 7000 (pending, not final), so every one is a signal to a live
 * workflow, several per order, and one order's are signalled in the order they were stored.
 *
 * `npm run bench -- ipn [--rate R --seconds S] [--step] [--previous]`:
 * - default: BENCH_IPNS notifications from 200 concurrent senders (closed loop), against the floor (the
 *   same server answering GET /healthz);
 * - `--rate R --seconds S`: open loop, R notifications a second for S seconds, each sent on schedule
 *   without waiting for earlier answers; an answer's time counts from when it was due, so a stalled
 *   receiver shows in p99 rather than slowing the senders;
 * - `--step`: open-loop steps of 5 s at rising rates, up to the first the receiver does not keep up with;
 * - BENCH_IPN_WARMUP=N: N notifications at 40/s, signalled, before each timed load (default 0: a cold
 *   receiver);
 * - `--previous`: the same load against an API process running the previous design
 *   (IPN_SIGNAL_BEFORE_ANSWER=true: claim, signal Temporal, then answer), in the same run.
 * For each design: answers by status, p50/p99, sent vs stored vs signalled (lost = answered 204 but never
 * stored, or stored but never signalled), the relay's drain (signals/s, time until the backlog is empty),
 * each workflow's signals counted in its history, and the writes per notification. Nothing here asserts a
 * duration.
 */
import { randomUUID } from 'node:crypto';
import { buildNotification, parseNotification } from '../../gateway';
import { ipnPaths } from '../../platform/ipn-paths';
import { metricsRegistry } from '../../platform/metrics';
import { paymentWorkflowId } from '../../contracts/payments';
import type { BenchStack } from './harness';
import { describeRun, percentile, post, timedInParallel, type Timed } from './load';
import { peakRssLines } from './process-memory';

const COUNT = Number(process.env.BENCH_IPNS ?? 1000);
/** Orders the notifications are spread over (several notifications each). */
const ORDERS = Number(process.env.BENCH_IPN_ORDERS ?? 500);
const SENDERS = 200;
const CREATORS = 32;
const AMOUNT = 25_000;
const KIND = 'payment.resultA';
const DRAIN_WAIT_MS = 600_000;
const STEP_SECONDS = 5;
const STEP_RATES = [250, 500, 750, 1000, 1500, 2000, 3000];
/**
 * Notifications sent (at WARMUP_RATE, below the relays' burst threshold, so they are signalled too) and
 * drained before the timed load: a receiver that has answered before, as a running API has. 0: cold.
 */
const WARMUP = Number(process.env.BENCH_IPN_WARMUP ?? 0);
const WARMUP_RATE = 40;

interface IpnOptions {
  rate?: number;
  seconds: number;
  step: boolean;
  previous: boolean;
}

function optionsFrom(argv: readonly string[]): IpnOptions {
  const valueOf = (flag: string) => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : Number(argv[at + 1]);
  };
  return {
    rate: valueOf('--rate'),
    seconds: valueOf('--seconds') ?? 60,
    step: argv.includes('--step'),
    previous: argv.includes('--previous'),
  };
}

interface Sent extends Timed {
  statuses: Map<number | 'error', number>;
}

/** Open loop: notification i is due at i/rate seconds and sent then, whatever is still unanswered. */
async function openLoop(url: string, bodies: readonly string[], rate: number): Promise<Sent> {
  const latenciesMs = new Array<number>(bodies.length);
  const statuses = new Map<number | 'error', number>();
  const count = (key: number | 'error') => statuses.set(key, (statuses.get(key) ?? 0) + 1);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      post(`${url}${ipnPaths.payment}`, bodies[i]!)
        .then(({ status }) => {
          latenciesMs[i] = performance.now() - due;
          count(status);
        })
        .catch(() => {
          latenciesMs[i] = performance.now() - due;
          count('error');
        }),
    );
  }
  await Promise.all(inFlight);
  return { seconds: (performance.now() - started) / 1000, latenciesMs, statuses };
}

async function closedLoop(url: string, bodies: readonly string[]): Promise<Sent> {
  const statuses = new Map<number | 'error', number>();
  const run = await timedInParallel(bodies.length, SENDERS, async (i) => {
    const response = await fetch(`${url}${ipnPaths.payment}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[i]!,
    }).catch(() => undefined);
    const key = response?.status ?? 'error';
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    await response?.arrayBuffer();
  });
  return { ...run, statuses };
}

/**
 * The open loop's p99 per tenth of the run (by when each notification was due): a slow start, a stall in
 * the middle and a slow end look alike in one p99 and differ here.
 */
function p99BySlice(latenciesMs: readonly number[], rate: number): string {
  const sliceSize = Math.max(1, Math.ceil(latenciesMs.length / 10));
  const slices: string[] = [];
  for (let start = 0; start < latenciesMs.length; start += sliceSize) {
    const slice = latenciesMs.slice(start, start + sliceSize);
    const from = start / rate;
    slices.push(
      `${from.toFixed(0)}–${((start + slice.length) / rate).toFixed(0)} s ${percentile(slice, 99).toFixed(0)}`,
    );
  }
  return `${slices.join(', ')} ms`;
}

const statusText = (statuses: Sent['statuses']) =>
  [...statuses].map(([code, n]) => `${code} ×${n}`).join(', ');

export async function benchIpn(stack: BenchStack): Promise<void> {
  const options = optionsFrom(process.argv);
  // The bench is the gateway here: the simulated customer must not send results of its own.
  await stack.gateway.setAutoApprove(false);
  const tag = `n${randomUUID().slice(0, 6)}`;
  const ids = Array.from({ length: ORDERS }, (_, i) => `${tag}-${i}`);
  const perDesign = options.rate ? Math.round(options.rate * options.seconds) : COUNT;
  console.log(
    `ipn: ${perDesign} signed payment notifications (7000, pending) over ${ORDERS} orders, ${
      options.rate
        ? `open loop at ${options.rate}/s for ${options.seconds} s`
        : `${SENDERS} concurrent senders (closed loop)`
    }${options.previous ? '; then the previous design, same load' : ''}`,
  );
  await timedInParallel(ORDERS, CREATORS, async (i) => {
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
  let sequence = 0;
  const signedBodies = (count: number) =>
    Array.from({ length: count }, () => {
      const n = sequence++;
      const orderId = ids[n % ORDERS]!;
      return JSON.stringify(
        buildNotification(
          KIND,
          {
            // The fields the sandbox sends for a wallet order (notificationFields in sandbox/payment-flow.ts);
            // each its own requestId, so its own signature and row.
            partnerCode,
            orderId,
            requestId: `${orderId}-c${n}`,
            amount: AMOUNT,
            orderInfo: '',
            transId: 9_000_000_000 + n,
            resultCode: 7000,
            message: 'Transaction is being processed.',
            payType: 'qr',
            responseTime: Date.now(),
            extraData: '',
            userFee: 0,
          },
          keys,
        ),
      );
    });

  const rowsNow = async () =>
    Number(
      (
        (await stack.db('ipn_notifications').whereIn('order_id', ids).count({ n: '*' }).first()) as {
          n: string;
        }
      ).n,
    );

  /** Waits until every stored row of these orders is signalled (or the wait's limit); how many are left. */
  const drained = async () => {
    const started = Date.now();
    for (;;) {
      const left = Number(
        (
          (await stack
            .db('ipn_notifications')
            .whereIn('order_id', ids)
            .whereNull('signalled_at')
            .count({ n: '*' })
            .first()) as { n: string }
        ).n,
      );
      if (left === 0 || Date.now() - started >= DRAIN_WAIT_MS) return left;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  const designs: Array<{ name: string; url: string }> = [
    { name: 'inbox (store and answer; the relay signals)', url: stack.apiUrl },
  ];
  if (options.previous) {
    const previous = await stack.startApi({ IPN_SIGNAL_BEFORE_ANSWER: 'true' });
    designs.push({ name: 'previous (signal Temporal, then answer)', url: previous.url });
  }

  for (const design of designs) {
    if (WARMUP > 0) {
      const warm = await openLoop(design.url, signedBodies(WARMUP), WARMUP_RATE);
      const left = await drained();
      console.log(
        `  warm-up: ${WARMUP} notifications at ${WARMUP_RATE}/s (${statusText(warm.statuses)}), ${left} left unsignalled before the load`,
      );
    }
    const bodies = signedBodies(perDesign);
    const before = await rowsNow();
    const startedAt = ((await stack.db.raw('select now() as at')) as { rows: Array<{ at: Date }> }).rows[0]!
      .at;
    const sent = options.rate
      ? await openLoop(design.url, bodies, options.rate)
      : await closedLoop(design.url, bodies);
    const sentUntil = Date.now();
    const accepted = sent.statuses.get(204) ?? 0;
    console.log(`  ${design.name}:`);
    console.log(`    answered 204: ${describeRun(accepted, sent, 'notifications')}`);
    console.log(
      `    answer time (from when due): p50 ${percentile(sent.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(sent.latenciesMs, 99).toFixed(1)} ms; by status: ${statusText(sent.statuses)}`,
    );
    if (options.rate) console.log(`    p99 by when due: ${p99BySlice(sent.latenciesMs, options.rate)}`);
    // The relay's drain: until every row of this run is signalled.
    const unsignalled = await drained();
    const stored = (await rowsNow()) - before;
    const span = (await stack
      .db('ipn_notifications')
      .whereIn('order_id', ids)
      .where('received_at', '>=', startedAt)
      .first(
        stack.db.raw('extract(epoch from max(signalled_at) - min(received_at)) as seconds'),
        stack.db.raw('max(signalled_at) as last'),
      )) as { seconds: string | null; last: Date | null };
    const drainSeconds = Number(span.seconds ?? NaN);
    const emptyAfter = span.last ? Math.max(0, (span.last.getTime() - sentUntil) / 1000) : NaN;
    // How much of the drain ran beside the load (signals compete with the receiver for the same machine).
    const duringLoad = Number(
      (
        (await stack
          .db('ipn_notifications')
          .whereIn('order_id', ids)
          .where('received_at', '>=', startedAt)
          .where('signalled_at', '<=', new Date(sentUntil))
          .count({ count: '*' })
          .first()) as { count: string }
      ).count,
    );
    console.log(
      `    sent ${bodies.length}, answered 204 ${accepted}, stored ${stored}, left unsignalled ${unsignalled}; lost: ${Math.max(0, accepted - stored) + unsignalled}`,
    );
    console.log(
      `    relay: ${stored} signals in ${drainSeconds.toFixed(1)} s from the first stored (${(stored / drainSeconds).toFixed(0)}/s); backlog empty ${emptyAfter.toFixed(1)} s after the last answer; ${duringLoad} signalled while the load ran (${(duringLoad / sent.seconds).toFixed(0)}/s over its ${sent.seconds.toFixed(1)} s)`,
    );
  }

  if (options.step) {
    console.log(`  step-up (open loop, ${STEP_SECONDS} s a step) against ${designs[0]!.name}:`);
    let highest = 0;
    for (const rate of STEP_RATES) {
      const sent = await openLoop(stack.apiUrl, signedBodies(rate * STEP_SECONDS), rate);
      const accepted = sent.statuses.get(204) ?? 0;
      const answeredRate = accepted / sent.seconds;
      const p99 = percentile(sent.latenciesMs, 99);
      const keptUp = accepted === rate * STEP_SECONDS && answeredRate >= 0.95 * rate;
      console.log(
        `    ${rate}/s offered: ${answeredRate.toFixed(0)}/s answered 204, p50 ${percentile(sent.latenciesMs, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${statusText(sent.statuses)})${keptUp ? '' : ' — did not keep up'}`,
      );
      if (!keptUp) break;
      highest = rate;
    }
    console.log(`    highest rate answered in full: ${highest}/s`);
    const drainStarted = Date.now();
    const left = await drained();
    console.log(
      `    relay: backlog after the steps empty ${((Date.now() - drainStarted) / 1000).toFixed(1)} s after the last answer (${left} left)`,
    );
  }

  if (!options.rate) {
    // The floor: the same HTTP server (Express, its middleware, the same senders) answering a trivial route.
    const floor = await timedInParallel(COUNT, SENDERS, async () => {
      const response = await fetch(`${stack.apiUrl}/healthz`);
      if (response.status !== 200) throw new Error(`healthz: ${response.status}`);
      await response.arrayBuffer();
    });
    console.log(
      `  floor (GET /healthz on the same server, ${SENDERS} senders): ${describeRun(COUNT, floor, 'requests')}`,
    );
  }
  // Verification alone, in this process: what the receiver's signature check costs per notification.
  const sample = signedBodies(1000);
  const verifyStarted = performance.now();
  for (const body of sample) parseNotification(KIND, body, keys);
  const verifyMs = performance.now() - verifyStarted;
  console.log(
    `  signature verification alone, in the bench process: ${((verifyMs * 1000) / sample.length).toFixed(0)} µs per notification`,
  );
  for (const line of peakRssLines(stack.processes())) console.log(line);

  // Each workflow signalled once per stored row, in its history; what one notification costs.
  const signalCounts = { history: 0, events: 0, tasks: 0 };
  const rowsPerOrder = new Map(
    (
      (await stack
        .db('ipn_notifications')
        .whereIn('order_id', ids)
        .groupBy('order_id')
        .select('order_id', stack.db.raw('count(*)::int as n'))) as Array<{ order_id: string; n: number }>
    ).map((row) => [row.order_id, row.n]),
  );
  const mismatched: string[] = [];
  await timedInParallel(ORDERS, CREATORS, async (i) => {
    const summary = await stack.history(paymentWorkflowId(ids[i]!));
    if (summary.signals !== (rowsPerOrder.get(ids[i]!) ?? 0))
      mismatched.push(`${ids[i]}: ${summary.signals} signals, ${rowsPerOrder.get(ids[i]!) ?? 0} rows`);
    signalCounts.history += summary.signals;
    signalCounts.events += summary.events;
    signalCounts.tasks += summary.workflowTasks;
  });
  const rows = await rowsNow();
  console.log(
    `  signals in the workflows' histories: ${signalCounts.history} for ${rows} stored rows (${signalCounts.history === rows ? 'each once' : 'MISMATCH'})`,
  );
  if (mismatched.length)
    console.log(`  workflows whose signals differ from their rows: ${mismatched.join('; ')}`);
  const relayed = (await metricsRegistry.getSingleMetric('payrun_ipn_relayed_total')?.get())?.values ?? [];
  if (relayed.length)
    console.log(
      `  relayed by outcome (this process's relays): ${relayed.map((value) => `${value.labels.outcome} ${value.value}`).join(', ')}`,
    );
  console.log(
    `  writes per notification: receiver 2 database round trips before the answer (the order's record; the insert; relays woken by one NOTIFY at a time per process after the commits), no Temporal call; relay 1 round trip (the order's record) and 1 signal per row, plus a claim and a mark per batch of up to 50 workflows; previous design: 3 round trips and the signal before the answer. Temporal: ${(signalCounts.events / Math.max(1, rows)).toFixed(1)} history events and ${(signalCounts.tasks / Math.max(1, rows)).toFixed(2)} workflow tasks per notification over these histories (creation included)`,
  );
}
