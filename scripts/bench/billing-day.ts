/**
 * Billing day: N subscriptions whose first cycle is due at once. They are created and wait for their
 * customer; then every customer authorizes in one burst, so N workflows reach their due cycle together
 * (a dev server's timers cannot be skipped to a real billing hour, and this is the same crowd:
 * authorization notice → subscription/create → subscription/pay → records). The measured window (writes and
 * CPU per first charge) is the burst until the last cycle 1 is recorded. Prints charges per second
 * against the floor (the same charge activity, called directly without Temporal, 32 at once, for
 * cycle 2 of the same subscriptions), their ratio, the most subscription/pay calls the sandbox saw in
 * one second, peak RSS and the ledger check. GATEWAY_RATE_LIMITS from the environment applies.
 * A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createApiKey } from '../../db/shared/api-keys';
import { mostWithin } from '../../sandbox/ledger';
import {
  addDays,
  cycleDate,
  dayOfGmt7,
  type BillingAnchor,
  billingRunWorkflowId,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { BENCH_TASK_QUEUE, type BenchStack } from './harness';
import type { BenchItems } from './costs';
import { loadConfig } from '../../platform/config';
import { peakRssLines } from './process-memory';
import { post } from './load';

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
export const IN_FLIGHT = 32;
const AMOUNT = 25_000;

/**
 * `each` for 0…count-1, IN_FLIGHT at once. The first failure stops the lanes taking more, and is thrown once
 * every call under way has ended: nothing is left running against a stack the caller then closes.
 */
export async function inParallel(count: number, each: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, count) }, async () => {
      for (let i = next++; i < count && !failure; i = next++) {
        try {
          await each(i);
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}

/**
 * Monthly FIXED subscriptions with these ids, their first cycle on `firstDate`, created through the API
 * IN_FLIGHT at once; creating thousands takes minutes, so every tenth is reported (`prefix` leads the line).
 */
export async function createSubscriptions(
  stack: BenchStack,
  key: string,
  ids: readonly string[],
  firstDate: string,
  prefix: string,
): Promise<void> {
  const began = performance.now();
  let created = 0;
  await inParallel(ids.length, async (i) => {
    const response = await post(
      `${stack.apiUrl}/v1/subscriptions`,
      JSON.stringify({
        subscriptionId: ids[i],
        partnerClientId: `bench${i}`,
        amount: 0,
        subscriptionInfo: {
          name: 'Bench',
          type: 'FIXED',
          recurringAmount: AMOUNT,
          frequency: 'MONTHLY',
          nextPaymentDate: firstDate,
        },
      }),
      { authorization: `Bearer ${key}` },
    );
    if (response.status !== 201) throw new Error(`create ${i}: ${response.status} ${response.text}`);
    created += 1;
    if (created % Math.max(1, Math.round(ids.length / 10)) === 0 && created < ids.length) {
      const minutes = (performance.now() - began) / 60_000;
      console.log(`${prefix}created ${created} of ${ids.length} in ${minutes.toFixed(1)} min`);
    }
  });
}

/**
 * A create answers 201 with the customer's link when the gateway gave it in time; under thousands of
 * creates some links come later (the subscription desk asks for them in chunks). The burst starts when every
 * customer has a link: otherwise its approvals would wait on the set-up's backlog and time it.
 */
async function untilEveryLinkIssued(stack: BenchStack, ids: readonly string[], since: number) {
  let reported = Date.now();
  for (;;) {
    const waiting = Number(
      (
        await stack
          .db('subscriptions')
          .whereIn('subscription_id', ids)
          .whereNull('pay_url')
          .where({ status: 'authorizing' })
          .count({ n: '*' })
          .first()
      )?.n,
    );
    if (waiting === 0) break;
    if (Date.now() - reported >= 30_000) {
      reported = Date.now();
      console.log(`  ${waiting} customers still wait for their link from the gateway`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  console.log(
    `  every customer has a link ${((performance.now() - since) / 60_000).toFixed(1)} min after the first create`,
  );
}

/**
 * The billing day's set-up, outside the measured window: N subscriptions due at once, created through the
 * API, each waiting for its customer with its link issued.
 */
export async function prepareBillingDay(stack: BenchStack, COUNT: number) {
  const key = (await createApiKey(stack.db, `bench-billing-day-${randomUUID().slice(0, 6)}`, ['billing']))
    .key;
  await stack.gateway.setAutoApprove(false);
  const tag = `d${randomUUID().slice(0, 6)}`;
  const ids = Array.from({ length: COUNT }, (_, i) => `${tag}-${i}`);
  const firstDate = addDays(dayOfGmt7(Date.now()), -1);
  const limits = process.env.GATEWAY_RATE_LIMITS || 'none';
  console.log(`billing-day: ${COUNT} subscriptions due at once, GATEWAY_RATE_LIMITS=${limits}`);

  const creating = performance.now();
  await createSubscriptions(stack, key, ids, firstDate, '  ');
  console.log(
    `  created ${COUNT} subscriptions waiting for their customer in ${((performance.now() - creating) / 60_000).toFixed(1)} min (links live 30 min here)`,
  );
  await untilEveryLinkIssued(stack, ids, creating);
  return { ids, tag, firstDate };
}

/**
 * The billing hour: every customer's authorization arrives in one burst. Answers when the burst is over (the
 * charges are on their way) with the time just before it.
 */
export async function authorizeInOneBurst(stack: BenchStack, ids: readonly string[]): Promise<number> {
  const started = performance.now();
  let late = 0;
  await inParallel(ids.length, async (i) => {
    // Under thousands of waiting subscriptions, a create answered 201 may still be getting its link from the
    // gateway when the burst reaches it: that customer approves as soon as the link exists.
    const giveUpAt = Date.now() + 120_000;
    for (let tries = 0; ; tries += 1) {
      try {
        await stack.gateway.approve(ids[i]!);
        if (tries > 0) late += 1;
        return;
      } catch (error) {
        if (Date.now() > giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  });
  if (late > 0) console.log(`  ${late} customers approved late: their link was not issued yet at the burst`);
  return started;
}

/** The set-up and the burst, for benchmarks that measure what follows it. */
export async function startBillingDay(stack: BenchStack, COUNT: number) {
  const day = await prepareBillingDay(stack, COUNT);
  await authorizeInOneBurst(stack, day.ids);
  return day;
}

async function untilCycleOneCharged(stack: BenchStack, ids: readonly string[]): Promise<void> {
  for (;;) {
    const row = await stack
      .db('subscription_charges')
      .whereIn('subscription_id', ids)
      .where({ cycle: 1, status: 'succeeded' })
      .count({ n: '*' })
      .first();
    if (Number(row?.n) >= ids.length) return;
    const refused = await stack
      .db('subscriptions')
      .whereIn('subscription_id', ids)
      .whereNotIn('status', ['authorizing', 'active'])
      .first('subscription_id', 'status', 'status_reason');
    if (refused)
      throw new Error(`${refused.subscription_id} ended ${refused.status}: ${refused.status_reason}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Whether the subscriptions' workflows run before the burst (a design that starts them at the create): their
 * work in the window then counts as already running, since the window only finds workflows started in it.
 */
async function workflowsRunBeforeTheBurst(stack: BenchStack, ids: readonly string[]): Promise<boolean> {
  try {
    await stack.costs.temporal.workflow.getHandle(subscriptionWorkflowId(ids[0]!)).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The measured window is the burst until every cycle 1 is charged and recorded: the creates before it and the
 * floor after it are not counted in its writes or CPU.
 */
export const benchBillingDay = {
  async prepare(stack: BenchStack): Promise<() => Promise<BenchItems>> {
    const { ids, tag, firstDate } = await prepareBillingDay(stack, COUNT);
    const running = await workflowsRunBeforeTheBurst(stack, ids);
    return async () => {
      const started = await authorizeInOneBurst(stack, ids);
      await untilCycleOneCharged(stack, ids);
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  authorization burst → every cycle 1 charged and recorded: ${seconds.toFixed(1)} s (${(COUNT / seconds).toFixed(1)} charges/s)`,
      );
      return {
        count: COUNT,
        noun: 'first charge',
        ...(running && {
          running: { workflowIds: ids.map((id) => subscriptionWorkflowId(id)), type: 'subscription' },
        }),
        afterwards: () => afterTheBurst(stack, { ids, tag, firstDate }, seconds),
      };
    };
  },
};

/** Printed once the window has closed: the rate, the floor (measured then), the histories and the ledger. */
async function afterTheBurst(
  stack: BenchStack,
  { ids, tag, firstDate }: { ids: string[]; tag: string; firstDate: string },
  seconds: number,
): Promise<void> {
  const cycleOne = (await stack.gateway.ledger()).filter(
    (entry) => entry.orderId.startsWith(`${tag}-`) && entry.orderId.endsWith('-c1'),
  );
  const chargeTimes = cycleOne.map((entry) => Date.parse(entry.at));
  const chargeSpan = (Math.max(...chargeTimes) - Math.min(...chargeTimes)) / 1000;

  // The floor: the charge activity itself (token from the database, signed subscription/pay, records),
  // without Temporal, on cycle 2 of the same subscriptions.
  const anchor: BillingAnchor = { anchorDate: firstDate, anchorCycle: 1, frequency: 'MONTHLY' };
  const floorStarted = performance.now();
  await inParallel(COUNT, async (i) => {
    const paid = await stack.activities.chargeSubscriptionCycle({
      subscriptionId: ids[i]!,
      cycle: 2,
      attempt: 0,
      amount: AMOUNT,
      dueDate: cycleDate(anchor, 2),
      nextPaymentDate: cycleDate(anchor, 3),
      chargedOn: dayOfGmt7(Date.now()),
      frequency: 'MONTHLY',
    });
    if (paid.outcome !== 'succeeded')
      throw new Error(`floor charge ${i}: ${paid.resultCode} ${paid.message}`);
  });
  const floorSeconds = (performance.now() - floorStarted) / 1000;

  const rate = COUNT / seconds;
  const floorRate = COUNT / floorSeconds;
  console.log(
    `  subscription/pay calls at the sandbox: first to last ${chargeSpan.toFixed(1)} s, at most ${mostWithin(cycleOne, 1000)} in one second`,
  );
  console.log(
    `  floor (the charge activity alone, ${IN_FLIGHT} at once, no Temporal, after the window): ${floorSeconds.toFixed(1)} s (${floorRate.toFixed(1)} charges/s)`,
  );
  console.log(`  ratio floor / billing day: ${(floorRate / rate).toFixed(1)}×`);
  const history = await stack.history(subscriptionWorkflowId(ids[0]!));
  const activities = Object.entries(history.activities)
    .map(([name, times]) => `${name} ×${times}`)
    .join(', ');
  console.log(
    `  one subscription's history to its first charge: ${history.events} events, ${history.workflowTasks} workflow tasks, activities: ${activities}`,
  );
  await printBillingRunCost(stack, firstDate, COUNT);
  for (const line of peakRssLines(stack.processes())) console.log(line);
  const ledger = (await stack.gateway.ledger()).filter((entry) => entry.orderId.startsWith(`${tag}-`));
  const paid = ledger.filter((entry) => entry.outcome === 'succeeded');
  const distinct = new Set(paid.map((entry) => entry.orderId)).size;
  console.log(
    `  sandbox ledger: ${paid.length} charges, ${distinct} distinct orders (each paid at most once: ${distinct === paid.length}; expected ${2 * COUNT})`,
  );
}

/**
 * The billing run's own writes, shared by the charges it made (its latest execution of the day; a day
 * whose run closed and started again for late hand-overs counts only the last). None on the previous design.
 */
export async function printBillingRunCost(stack: BenchStack, day: string, charges: number) {
  const runId = billingRunWorkflowId(day, billingRunQueueOf(stack));
  const run = await stack.history(runId).catch(() => undefined);
  if (!run) {
    console.log('  billing run: none (each subscription charged its own cycle)');
    return;
  }
  const activities = Object.values(run.activities).reduce((sum, times) => sum + times, 0);
  console.log(
    `  billing run ${runId}: ${run.events} events, ${run.workflowTasks} workflow tasks, ` +
      `${activities} activities; per charge ${(run.events / charges).toFixed(2)} events, ` +
      `${(run.workflowTasks / charges).toFixed(3)} workflow tasks, ${(activities / charges).toFixed(3)} activities`,
  );
}

/** The task queue of the stack's workers, which names its billing runs. */
export const billingRunQueueOf = (stack: BenchStack) =>
  stack.shape === 'dev' ? BENCH_TASK_QUEUE : loadConfig({}).TEMPORAL_TASK_QUEUE;
