/**
 * A billing run's chunks side by side (BILLING_RUN_PARALLEL_CHUNKS): each round's chunks are scheduled in one
 * workflow task, hold no cycle twice, and every cycle is charged once; a charge hold stops a chunk's next claim;
 * the setting reaches the runs the workers start. (That they skip eager dispatch is not in the history; the benchmark's CPU per worker shows it.)
 */
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import {
  addDays,
  billingRunWorkflowId,
  DEFAULT_SUBSCRIPTION_TIMING,
  instantOf,
  subscriptionWorkflowId,
  type BillingRunInput,
} from '../../contracts/subscriptions';
import { createTimeSkippingEnv, testDataConverter } from '../support/temporal';
import { captureHistory } from '../support/history-capture';
import { useSubscriptionStack } from './stack';
import { eventually } from '../support/wait';
import { holdsOverview, proposeOrConfirmHold } from '../../db/holds/holds';
import { fixedMonthly, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv, {
  environment: { SUBSCRIPTION_BILLING_PATH: 'run', BILLING_RUN_PARALLEL_CHUNKS: '3' },
  // The hold below stops charges for every row of its database: a database of this file's own.
  scratchDatabase: 'parallel_chunks',
});
const { today, skipTo, until, subscribe, ledgerOf } = subscriptionSteps(t);

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

async function runHistory(day: string): Promise<HistoryEvent[]> {
  const history = await t.env.client.workflow
    .getHandle(billingRunWorkflowId(day, t.taskQueue))
    .fetchHistory();
  return history.events ?? [];
}

/** The run's input, opened as the Temporal UI's codec server opens it. */
async function runInput(day: string): Promise<BillingRunInput> {
  const [started] = await runHistory(day);
  const [codec] = testDataConverter.payloadCodecs!;
  const [payload] = await codec!.decode(started!.workflowExecutionStartedEventAttributes!.input!.payloads!);
  return defaultPayloadConverter.fromPayload<BillingRunInput>(payload!);
}

/**
 * The day's run, started before any hand-over with its own sizes, to begin at the cycle's hour; the
 * hand-overs then find it started and leave it as it is.
 */
async function startRunAtItsHour(day: string, sizes: Omit<BillingRunInput, 'day'>) {
  return t.env.client.workflow.start('billingRun', {
    workflowId: billingRunWorkflowId(day, t.taskQueue),
    taskQueue: t.taskQueue,
    args: [{ day, ...sizes } satisfies BillingRunInput],
    startDelay: instantOf(day, DEFAULT_SUBSCRIPTION_TIMING.billingHourGmt7) - (await t.env.currentTimeMs()),
  });
}

const chunkSchedules = (events: HistoryEvent[]) =>
  events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    return scheduled?.activityType?.name === 'chargeHandedChunk' ? [scheduled] : [];
  });

describe('a billing run charges its chunks side by side', () => {
  it('schedules a round of chunks in one task, each cycle in one chunk and charged once', async () => {
    const due = addDays(await today(), 2);
    // Chunks of 2, so 5 cycles are 3 chunks, 2 at once.
    await startRunAtItsHour(due, { chunkSize: 2, concurrency: 1, parallelChunks: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await subscribe(fixedMonthly(due))).subscriptionId);
    await skipTo(due);
    for (const id of ids) await until(id, (s) => s.nextCycle === 2, `${id}: cycle 1 charged`);

    for (const id of ids) expect(ledgerOf(id).map((entry) => entry.orderId)).toEqual([`${id}-c1`]);
    const charges = await t
      .db('subscription_charges')
      .whereIn('subscription_id', ids)
      .select('order_id', 'billing_run_id', 'billing_chunk');
    expect(charges).toHaveLength(5);
    expect(new Set(charges.map((charge) => charge.billing_run_id))).toEqual(
      new Set([billingRunWorkflowId(due, t.taskQueue)]),
    );
    const perChunk = new Map<number, number>();
    for (const charge of charges)
      perChunk.set(charge.billing_chunk, (perChunk.get(charge.billing_chunk) ?? 0) + 1);
    expect(Object.fromEntries(perChunk)).toEqual({ 1: 2, 2: 2, 3: 1 });

    const scheduled = chunkSchedules(await runHistory(due));
    expect(scheduled.length).toBeGreaterThanOrEqual(3);
    // Chunks 1 and 2 went out together, decided by one workflow task.
    expect(String(scheduled[0]!.workflowTaskCompletedEventId)).toBe(
      String(scheduled[1]!.workflowTaskCompletedEventId),
    );
    expect(String(scheduled[2]!.workflowTaskCompletedEventId)).not.toBe(
      String(scheduled[0]!.workflowTaskCompletedEventId),
    );
    await captureHistory(t.env.client, billingRunWorkflowId(due, t.taskQueue), 'parallel-chunks');
  });

  it('the workers start each day’s run with BILLING_RUN_PARALLEL_CHUNKS chunks side by side', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged');
    expect(await runInput(due)).toMatchObject({ day: due, chunkSize: 200, parallelChunks: 3 });
  });

  // Last in the file: the hold stays on (in this file's own database).
  it('a charge hold confirmed while a chunk charges stops its next claims, not only the next chunk', async () => {
    const due = addDays(await today(), 2);
    const run = await startRunAtItsHour(due, { chunkSize: 4, concurrency: 1, parallelChunks: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await subscribe(fixedMonthly(due))).subscriptionId);
    // The chunk's first charge takes 3 s at the gateway: the hold is confirmed while it is in flight.
    t.sandbox.admin.setFaults({ operation: 'subscription.pay', latencyMs: 3000, times: 1 });
    const skipping = skipTo(due);
    const claimed = () =>
      t.db('subscription_charges').whereIn('subscription_id', ids).where({ billing_run_id: run.workflowId });
    await eventually(async () => expect(await claimed()).toHaveLength(1));
    await proposeOrConfirmHold(t.db, { kind: 'charge', reason: 'test', by: { keyId: 'admin-a', name: 'A' } });
    await proposeOrConfirmHold(t.db, { kind: 'charge', reason: 'test', by: { keyId: 'admin-b', name: 'B' } });
    await skipping;
    // The charge in flight went on; no other cycle was claimed: those go to their workflows' own hold checks.
    expect(await run.result()).toMatchObject({ chunks: 1, charged: 1 });
    expect(await claimed()).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(ids.flatMap((id) => ledgerOf(id))).toHaveLength(1);

    // The run told the other three at once: each stopped at the hold itself and is listed there with its
    // amount, before its grace after the billing hour (three hours) could have ended its wait.
    const [paid] = await claimed();
    const others = ids.filter((id) => id !== paid!.subscription_id);
    const listed = await eventually(async () => {
      const items = await t.db('held_items').whereIn('workflow_id', others.map(subscriptionWorkflowId));
      expect(items).toHaveLength(3);
      return items;
    });
    const graceEnds = instantOf(due, DEFAULT_SUBSCRIPTION_TIMING.billingHourGmt7) + 3 * 3_600_000;
    expect(await t.env.currentTimeMs()).toBeLessThan(graceEnds);
    expect(listed.map((item) => Number(item.amount_vnd))).toEqual([30_000, 30_000, 30_000]);
    expect((await holdsOverview(t.db)).find((hold) => hold.kind === 'charge')!.held).toEqual({
      count: 3,
      totalVnd: 90_000,
    });
    // Nothing of theirs was sent, and their hand-overs were taken back: no run charges them behind the hold.
    expect(ids.flatMap((id) => ledgerOf(id))).toHaveLength(1);
    const handed = await t.db('subscriptions').whereIn('subscription_id', others).whereNotNull('run_cycle');
    expect(handed).toEqual([]);
    await captureHistory(t.env.client, run.workflowId, 'held-round');
    await captureHistory(t.env.client, subscriptionWorkflowId(others[0]!), 'billing-run-held-told-at-once', {
      stillOpen: true,
    });
  });
});
