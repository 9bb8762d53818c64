/**
 * A billing day of active subscriptions (issue 35): N subscriptions that the billing run already charged
 * once, whose next cycle falls due on the same day. That day is a month away and these servers keep real
 * time, so the benchmark brings it forward: the day's run, which the first cycles' chunks started to begin
 * at that day's billing hour, is replaced by the same run started now. The run charges the cycles handed
 * over for its day; nothing in it depends on the clock's date. Measured (the only part counted in writes
 * per billed cycle): the run's start to every cycle 2 recorded succeeded, the subscription/pay calls the
 * sandbox saw, the run's own history. Not measured: the set-up, N customers who authorize at once (sandbox
 * auto-approve) and their first cycles. A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { createApiKey } from '../../db/shared/api-keys';
import { mostWithin } from '../../sandbox/ledger';
import {
  addDays,
  billingRunWorkflowId,
  dayOfGmt7,
  DEFAULT_BILLING_RUN,
  billingRunChargeSignal,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { costLines, measureCosts, type BenchItems } from './costs';
import type { BenchStack } from './harness';
import { parseGatewayRateLimits } from '../../platform/gateway-rate-limits';
import { billingRunQueueOf, createSubscriptions, inParallel, printBillingRunCost } from './billing-day';
import { peakRssLines } from './process-memory';
import { activityTypeOf, isLocalActivity } from '../../platform/local-activity-markers';

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The brought-forward run's chunk size, charges at once and chunks side by side: the defaults (the last as the
 * workers read BILLING_RUN_PARALLEL_CHUNKS), or BENCH_RUN_* to try others.
 */
const RUN_SIZES = {
  chunkSize: Number(process.env.BENCH_RUN_CHUNK_SIZE ?? DEFAULT_BILLING_RUN.chunkSize),
  concurrency: Number(process.env.BENCH_RUN_CONCURRENCY ?? DEFAULT_BILLING_RUN.concurrency),
  parallelChunks: Number(process.env.BILLING_RUN_PARALLEL_CHUNKS || DEFAULT_BILLING_RUN.parallelChunks),
};

/** How many of `ids` have this cycle recorded succeeded; throws when one of them left `active`. */
async function chargedCount(stack: BenchStack, ids: string[], cycle: number): Promise<number> {
  const row = await stack
    .db('subscription_charges')
    .whereIn('subscription_id', ids)
    .where({ cycle, status: 'succeeded' })
    .count({ n: '*' })
    .first();
  const stopped = await stack
    .db('subscriptions')
    .whereIn('subscription_id', ids)
    .whereNotIn('status', ['authorizing', 'active'])
    .first('subscription_id', 'status', 'status_reason');
  if (stopped)
    throw new Error(`${stopped.subscription_id} ended ${stopped.status}: ${stopped.status_reason}`);
  return Number(row?.n);
}

async function onboard(stack: BenchStack, ids: string[]) {
  const key = (await createApiKey(stack.db, `bench-active-day-${randomUUID().slice(0, 6)}`, ['billing'])).key;
  await stack.gateway.setAutoApprove(true);
  const firstDate = addDays(dayOfGmt7(Date.now()), -1);
  const began = performance.now();
  const minutes = () => ((performance.now() - began) / 60_000).toFixed(1);
  await createSubscriptions(stack, key, ids, firstDate, '  set-up: ');
  while ((await chargedCount(stack, ids, 1)) < ids.length) await pause(500);
  // The run does not tell a workflow of its success: each reads it from the rows at the end of its grace
  // (SUBSCRIPTION_RUN_GRACE_MINUTES, short on this benchmark's stack). Wait until every workflow has and
  // waits for cycle 2, so the measured window holds cycle 2's work only. Read from the histories: they need
  // no payload codec.
  await measureGracePhase(stack, ids);
  await printGraceCost(stack, subscriptionWorkflowId(ids[0]!));
  // The first cycle's success hands the second over in the same write: every row names the same day. One
  // whose first answer was followed by its workflow (pending, then settled) hands over a moment later.
  let handed: Array<{ subscription_id: string; run_due_date: string }> = [];
  for (let waited = 0; waited <= 60_000; waited += 1000) {
    handed = await stack
      .db('subscriptions')
      .whereIn('subscription_id', ids)
      .where({ run_cycle: 2 })
      .select('subscription_id', 'run_due_date');
    if (handed.length === ids.length) break;
    await pause(1000);
  }
  const days = [...new Set(handed.map((row) => String(row.run_due_date)))];
  if (days.length !== 1) throw new Error(`cycle 2 handed over to ${days.length} days: ${days.join(', ')}`);
  console.log(
    `  set-up: ${ids.length} subscriptions active, cycle 1 charged, in ${minutes()} min; ${handed.length} cycles 2 handed over to ${days[0]}`,
  );
  const handedIds = new Set(handed.map((row) => row.subscription_id));
  const left = ids.filter((id) => !handedIds.has(id));
  if (left.length) await printNotHanded(stack, left);
  return { day: days[0]!, ids: ids.filter((id) => handedIds.has(id)) };
}

/**
 * Waits until every workflow has taken cycle 1, counting what that cost for the ones that had not yet when
 * every cycle 1 was charged: with this design, the workflows' reads at their grace (work that follows a
 * billing window, outside it). Printed apart from the measured window; meaningful when most were waiting.
 * The history store counted is also the one each check reads, so the wait checks little: the last-created
 * few every 5 s until they have all read (their grace ends last), then each waiting workflow, the stragglers
 * again every 5 s; the line says how many histories the checks fetched.
 */
async function measureGracePhase(stack: BenchStack, ids: string[]) {
  const workflowIds = ids.map(subscriptionWorkflowId);
  const waiting: string[] = [];
  await inParallel(workflowIds.length, async (i) => {
    if (!(await readCycleOne(stack, workflowIds[i]!))) waiting.push(workflowIds[i]!);
  });
  let fetched = 0;
  const untilAllRead = async (workflowIds: string[]) => {
    let left = workflowIds;
    while (left.length > 0) {
      const done: boolean[] = [];
      await inParallel(left.length, async (i) => {
        fetched += 1;
        done[i] = await readCycleOne(stack, left[i]!);
      });
      left = left.filter((_, i) => !done[i]);
      if (left.length > 0) await pause(5000);
    }
  };
  const started = Date.now();
  const measured = await measureCosts(stack.costs, async () => {
    await untilAllRead(waiting.slice(-GRACE_WATCHED));
    await untilAllRead(waiting);
    return {
      count: waiting.length,
      noun: 'cycle taken by its workflow after the charge',
      running: { workflowIds: waiting, type: 'subscription' },
    };
  });
  // Only the cluster counts Temporal's own store, which the wait's fetches read too.
  const fetches = Object.keys(measured.database).some((name) => name.includes('history-store'))
    ? ` (the history store's count includes the ${fetched} histories the wait fetched)`
    : '';
  console.log(
    `  set-up, not the window: ${waiting.length} of ${ids.length} workflows had not yet taken cycle 1 when every cycle 1 was charged; what taking it cost them${fetches}:`,
  );
  for (const line of costLines('after the charge', measured)) console.log(`  ${line}`);
  if (waiting.length > 0)
    await printNetOfIdle(stack, measured.database, (Date.now() - started) / 1000, waiting.length);
}

/**
 * The counts above hold the stores' own background work over the whole wait. Measured now, with every
 * workflow waiting a month for its next cycle, and subtracted: what the reads themselves cost (the wait's
 * history fetches still included).
 */
async function printNetOfIdle(
  stack: BenchStack,
  phase: Record<string, number>,
  phaseSeconds: number,
  reads: number,
) {
  const before = await stack.costs.database.read();
  const idleStarted = Date.now();
  await pause(IDLE_MS);
  const after = await stack.costs.database.read();
  const idleSeconds = (Date.now() - idleStarted) / 1000;
  const parts = Object.entries(phase).map(([name, count]) => {
    const perSecond = ((after[name] ?? 0) - (before[name] ?? 0)) / idleSeconds;
    const net = (count - perSecond * phaseSeconds) / reads;
    return `${name}: ${perSecond.toFixed(1)}/s idle, ${net.toFixed(1)} per read net of it`;
  });
  console.log(
    `  the stores idle for ${idleSeconds.toFixed(0)} s after it (the wait took ${phaseSeconds.toFixed(0)} s): ${parts.join('; ')}`,
  );
}

/** How long the stores are watched idle, for their background work. */
const IDLE_MS = 60_000;

/** How many waiting workflows the grace phase watches before it checks them all. */
const GRACE_WATCHED = 20;

/** Subscriptions whose cycle 2 was not handed over after a minute: measured without them, and shown. */
async function printNotHanded(stack: BenchStack, left: string[]) {
  console.log(`  ${left.length} not handed over after 60 s: measured without them; the first of them:`);
  for (const id of left.slice(0, 3)) {
    const row = await stack
      .db('subscriptions')
      .where({ subscription_id: id })
      .first('status', 'next_cycle', 'next_payment_date', 'run_cycle', 'run_due_date');
    const charges = await stack
      .db('subscription_charges')
      .where({ subscription_id: id })
      .orderBy('created_at')
      .select('cycle', 'attempt', 'status', 'result_code', 'billing_run_id', 'created_at', 'updated_at');
    console.log(`    ${id}: ${JSON.stringify(row)}; charges ${JSON.stringify(charges)}`);
    await printEventsSince(stack, subscriptionWorkflowId(id), 0);
  }
}

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const SETTLE = 'settleHandedCycle';

/** The events from the grace's timer firing to the next cycle's wait, around the read of cycle 1. */
async function graceEvents(stack: BenchStack, workflowId: string): Promise<HistoryEvent[] | undefined> {
  return graceEventsIn(await historyEvents(stack, workflowId));
}

async function historyEvents(stack: BenchStack, workflowId: string): Promise<HistoryEvent[]> {
  const history = await stack.costs.temporal.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

function graceEventsIn(events: HistoryEvent[]): HistoryEvent[] | undefined {
  // Queued before the read moved into the workflow task its timer wakes; a local activity's marker since.
  const read = events.findIndex((event) => activityTypeOf(event) === SETTLE);
  if (read < 0) return undefined;
  const waits = events.findIndex((event, index) => index > read && event.timerStartedEventAttributes);
  if (waits < 0) return undefined;
  let fired = read;
  while (fired > 0 && !events[fired]!.timerFiredEventAttributes) fired -= 1;
  return events.slice(fired, waits + 1);
}

/** Cycle 1 taken: read at the grace, or (BILLING_RUN_SIGNALS_SUCCESS) its signal taken by a workflow task. */
async function readCycleOne(stack: BenchStack, workflowId: string): Promise<boolean> {
  const events = await historyEvents(stack, workflowId);
  if (graceEventsIn(events) !== undefined) return true;
  const signalled = events.findIndex(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === billingRunChargeSignal.name,
  );
  return signalled >= 0 && events.slice(signalled).some((event) => event.timerStartedEventAttributes);
}

/**
 * What a billed cycle costs its workflow outside the window: at its grace it wakes, reads the run's success
 * and waits for the next cycle (the signal it used to take in the window cost 6 events, 1 workflow task).
 */
async function printGraceCost(stack: BenchStack, workflowId: string) {
  const events = await graceEvents(stack, workflowId);
  if (!events) {
    console.log(
      `  each workflow took the run's signal for cycle 1 (BILLING_RUN_SIGNALS_SUCCESS): nothing at its grace`,
    );
    return;
  }
  const names = events.map((event) => {
    const name = (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType))
      .replace(/^EVENT_TYPE_/, '')
      .toLowerCase();
    const activity = isLocalActivity(event) ? activityTypeOf(event) : undefined;
    return activity ? `${name} (${activity}, local)` : name;
  });
  const tasks = events.filter((event) => event.workflowTaskCompletedEventAttributes).length;
  const activities = events.filter((event) => activityTypeOf(event) !== undefined).length;
  console.log(
    `  each workflow at its grace, after the window (set-up's cycle 1, ${workflowId}): ${events.length} events, ${tasks} workflow tasks, ${activities} activity: ${names.join(', ')}`,
  );
}

/** Replaces the day's waiting run (started to begin at that day's billing hour) by the same run, now. */
async function bringForward(stack: BenchStack, day: string): Promise<string> {
  const client = stack.costs.temporal;
  const workflowId = billingRunWorkflowId(day, billingRunQueueOf(stack));
  const handle = client.workflow.getHandle(workflowId);
  try {
    const waiting = await handle.describe();
    if (waiting.status.name !== 'RUNNING')
      console.log(`  the run of ${day} had already ended (${waiting.status.name}): started again`);
    else await handle.terminate('benchmark: the billing day brought forward');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    console.log(`  no run of ${day} was waiting: the first cycles' chunks did not start it`);
  }
  await stack.sealed.workflow.start('billingRun', {
    workflowId,
    taskQueue: billingRunQueueOf(stack),
    args: [{ day, ...RUN_SIZES }],
  });
  return workflowId;
}

/** What one subscription's history gained in the window, event by event: where a billed cycle's writes go. */
async function printEventsSince(stack: BenchStack, workflowId: string, since: number) {
  const history = await stack.costs.temporal.workflow.getHandle(workflowId).fetchHistory();
  const names = (history.events ?? [])
    .filter(
      (event) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6 >= since,
    )
    .map((event) => {
      const type = proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
      const name = event.workflowExecutionSignaledEventAttributes?.signalName;
      return type.replace(/^EVENT_TYPE_/, '').toLowerCase() + (name ? `(${name})` : '');
    });
  const when = since ? 'in the window' : 'from its start';
  console.log(`  ${workflowId} ${when}: ${names.length} events: ${names.join(', ')}`);
}

export const activeBillingDay = {
  async prepare(stack: BenchStack): Promise<() => Promise<BenchItems>> {
    // With subscription.pay limited, new subscriptions charge themselves on that queue and no run is started.
    if (
      parseGatewayRateLimits(process.env.GATEWAY_RATE_LIMITS ?? '').limits['subscription.pay'] !== undefined
    )
      throw new Error(
        'active-billing-day measures the billing run, which a subscription.pay limit in GATEWAY_RATE_LIMITS replaces ' +
          'for new subscriptions (docs/production.md, "Gateway rate limits"): measure a limited day with billing-day',
      );
    const tag = `a${randomUUID().slice(0, 6)}`;
    const ids = Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);
    console.log(
      `active-billing-day: ${COUNT} active subscriptions whose cycle 2 falls due on one day (its run brought forward: chunks of ${RUN_SIZES.chunkSize}, ${RUN_SIZES.concurrency} charges at once in each, ${RUN_SIZES.parallelChunks} chunks side by side), GATEWAY_RATE_LIMITS=${process.env.GATEWAY_RATE_LIMITS || 'none'}`,
    );
    const { day, ids: handedIds } = await onboard(stack, ids);
    return async () => measure(stack, day, handedIds);
  },
};

async function measure(stack: BenchStack, day: string, ids: string[]): Promise<BenchItems> {
  const COUNT = ids.length;
  const started = performance.now();
  const startedAt = Date.now();
  await bringForward(stack, day);
  const run = stack.costs.temporal.workflow.getHandle(billingRunWorkflowId(day, billingRunQueueOf(stack)));
  for (let polls = 1; (await chargedCount(stack, ids, 2)) < COUNT; polls += 1) {
    await pause(250);
    if (polls % 20 !== 0) continue;
    // Its last chunk's rows are written before it completes: an ended run with cycles left is a failure.
    const { status } = await run.describe();
    if (status.name !== 'RUNNING' && (await chargedCount(stack, ids, 2)) < COUNT)
      throw new Error(`The run of ${day} ended ${status.name} before every cycle 2 was charged`);
  }
  const seconds = (performance.now() - started) / 1000;
  const orders = new Set(ids.flatMap((id) => [`${id}-c1`, `${id}-c2`]));
  const ledger = (await stack.gateway.ledger()).filter((entry) => orders.has(entry.orderId));
  const cycleTwo = ledger.filter((entry) => entry.orderId.endsWith('-c2'));
  const times = cycleTwo.map((entry) => Date.parse(entry.at));
  console.log(
    `  the run's start → every cycle 2 charged and recorded: ${seconds.toFixed(1)} s (${(COUNT / seconds).toFixed(1)} charges/s)`,
  );
  console.log(
    `  subscription/pay calls at the sandbox: first to last ${((Math.max(...times) - Math.min(...times)) / 1000).toFixed(1)} s, at most ${mostWithin(cycleTwo, 1000)} in one second`,
  );
  await printBillingRunCost(stack, day, COUNT);
  await printEventsSince(stack, subscriptionWorkflowId(ids[0]!), startedAt);
  for (const line of peakRssLines(stack.processes())) console.log(line);
  const paid = ledger.filter((entry) => entry.outcome === 'succeeded');
  const distinct = new Set(paid.map((entry) => entry.orderId)).size;
  console.log(
    `  sandbox ledger: ${paid.length} charges, ${distinct} distinct orders (each paid at most once: ${distinct === paid.length}; expected ${2 * COUNT})`,
  );
  return {
    count: COUNT,
    noun: 'billed cycle',
    running: { workflowIds: ids.map(subscriptionWorkflowId), type: 'subscription' },
  };
}
