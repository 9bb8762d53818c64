/**
 * When a hand-over starts the day's billing run (activities/subscriptions/billing-runs.ts, billing_run_days):
 * not while the run will search again, which finds the hand-over itself; again once its last search found
 * nothing, or its last round was held or charged nothing. Real Temporal (the dev server, a queue no worker
 * polls, runs far in the future so that a started run only waits) and a database of this file's own.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingRunActivities } from '../../activities/subscriptions/billing-runs';
import {
  billingRunWorkflowId,
  subscriptionWorkflowId,
  type HandedCycle,
  type HandOver,
} from '../../contracts/subscriptions';
import { proposeOrConfirmHold } from '../../db/holds/holds';
import { insertSubscription } from '../../db/subscriptions/subscriptions';
import { handOver } from '../../db/subscriptions/billing-runs';
import { eventually } from '../support/wait';
import { subscriptionRecord, useScratchDatabase } from '../support/database';
import { connectDevServer, testCodecKeyring } from '../support/temporal';

const scratch = useScratchDatabase('billing_run_start');
const taskQueue = `billing-run-start-${randomUUID()}`;
let temporal: TestWorkflowEnvironment;
let env: MockActivityEnvironment;
beforeAll(async () => {
  temporal = await connectDevServer();
  env = new MockActivityEnvironment({ taskQueue }, { client: temporal.client });
});
afterAll(() => temporal?.teardown());

const activities = () =>
  createBillingRunActivities({
    db: scratch.db,
    gateway: undefined as never,
    subscriptionIpnUrl: 'http://unused.invalid/ipn/subscription',
    secrets: { merchantSecretKey: 'unused', keyring: testCodecKeyring },
  });

const day = '2031-06-10';
const runOf = () => temporal.client.workflow.getHandle(billingRunWorkflowId(day, taskQueue));
const runStatus = async () => (await runOf().describe()).status.name;

/** An active subscription whose cycle 1 is due on `day`, handed over by its workflow's activity. */
async function handedOver(): Promise<string> {
  const id = `rs${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await insertSubscription(scratch.db, subscriptionRecord(id));
  await scratch.db('subscriptions').where({ subscription_id: id }).update({ next_cycle: 1 });
  const handOver: HandOver = {
    subscriptionId: id,
    cycle: 1,
    amount: 30_000,
    dueDate: day,
    runStartsInMs: 365 * 24 * 3_600_000,
  };
  await env.run(activities().handOverCycle, handOver);
  return id;
}

const search = async (): Promise<HandedCycle[]> =>
  env.run(activities().findHandedCycles, { day, limit: 100 });
const takeBack = (subscriptionId: string) =>
  env.run(activities().takeBackCycle, { subscriptionId, cycle: 1 });

describe("a hand-over and the day's billing run", () => {
  it('starts no run while the run will search again, and starts it once the run has stopped searching', async () => {
    const first = await handedOver();
    expect(await runStatus()).toBe('RUNNING');
    // The run is ended by hand, so that a start made by a later hand-over shows as a new run.
    await runOf().terminate('the test ends it');

    // The run's search found a cycle: it searches again after charging it, and will find this one too.
    expect((await search()).map((cycle) => cycle.subscriptionId)).toEqual([first]);
    const second = await handedOver();
    expect(await runStatus()).toBe('TERMINATED');
    expect((await search()).map((cycle) => cycle.subscriptionId).sort()).toEqual([first, second].sort());

    // Its last search found nothing: the next hand-over starts the run.
    await takeBack(first);
    await takeBack(second);
    expect(await search()).toEqual([]);
    const third = await handedOver();
    expect(await runStatus()).toBe('RUNNING');
    await runOf().terminate('the test ends it');

    // A round that charged nothing is the run's last as well.
    expect((await search()).map((cycle) => cycle.subscriptionId)).toEqual([third]);
    await takeBack(third);
    const round = { day, runId: billingRunWorkflowId(day, taskQueue), chunk: 1, concurrency: 1 };
    const outcome = await env.run(activities().chargeHandedChunk, {
      ...round,
      cycles: [{ subscriptionId: third, cycle: 1, amount: 30_000, dueDate: day }],
    });
    expect(outcome).toEqual({ charged: 0, skipped: 1, held: false });
    await handedOver();
    expect(await runStatus()).toBe('RUNNING');
    await runOf().terminate('the test ends it');
  });

  it('a hand-over made while a search holds the day waits for it, and starts the run when that search found nothing', async () => {
    const id = `rw${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await insertSubscription(scratch.db, subscriptionRecord(id));
    const scope = `lock-${randomUUID()}`;
    const lockDay = '2031-07-10';
    const searching = {
      run_scope: scope,
      day: lockDay,
      searching_until: scratch.db.raw("now() + interval '5 minutes'"),
    };
    await scratch.db('billing_run_days').insert(searching);
    // A search in flight: it holds the day's row, and will find nothing and let the row go.
    const search = await scratch.db.transaction();
    try {
      await search('billing_run_days').where({ run_scope: scope, day: lockDay }).forUpdate().first();
      const handing = handOver(
        scratch.db,
        { subscriptionId: id, cycle: 1, amount: 30_000, dueDate: lockDay },
        scope,
      );
      await eventually(async () => {
        const waiting = await scratch
          .db('pg_stat_activity')
          .where({ datname: scratch.db.raw('current_database()'), wait_event_type: 'Lock' })
          .count<{ count: string }[]>('* as count');
        expect(Number(waiting[0]!.count)).toBe(1);
      });
      await search('billing_run_days').where({ run_scope: scope, day: lockDay }).delete();
      await search.commit();
      // The row read before the search ended would have said "searching", and the hand-over would wait for its grace.
      expect(await handing).toBe(false);
    } finally {
      if (!search.isCompleted()) await search.rollback();
    }
  });

  // Last in the file: the hold stays on (in this file's own database).
  it("tells a cycle's workflow at once when it is handed over due while charges are held, and not one due later", async () => {
    await proposeOrConfirmHold(scratch.db, { kind: 'charge', reason: 'test', by: { keyId: 'a', name: 'A' } });
    await proposeOrConfirmHold(scratch.db, { kind: 'charge', reason: 'test', by: { keyId: 'b', name: 'B' } });
    const due = await waitingSubscription();
    // The worker's view of holds may be up to a second old.
    await eventually(async () => {
      await env.run(activities().handOverCycle, handOverOf(due.id, 0));
      expect(await signalsOf(due.workflowId)).toContain('billingRunHeld');
    });

    const later = await waitingSubscription();
    await env.run(activities().handOverCycle, handOverOf(later.id, 3_600_000));
    expect(await signalsOf(later.workflowId)).toEqual([]);
    await runOf().terminate('the test ends it');
  });

  it('a held run looks again once every worker holds the hold, and tells a hand-over made in between', async () => {
    const early = await waitingSubscription();
    const late = await waitingSubscription();
    await handOver(scratch.db, handedCycleOf(early.id), taskQueue);
    const round = { day, runId: billingRunWorkflowId(day, taskQueue), chunk: 1, concurrency: 1 };
    const chunk = env.run(activities().chargeHandedChunk, { ...round, cycles: [handedCycleOf(early.id)] });
    await eventually(async () => expect(await signalsOf(early.workflowId)).toContain('billingRunHeld'));
    // Written as a hand-over whose worker's view did not hold the hold yet: it tells no workflow itself.
    await handOver(scratch.db, handedCycleOf(late.id), taskQueue);
    expect(await chunk).toEqual({ charged: 0, skipped: 0, held: true });
    expect(await signalsOf(late.workflowId)).toEqual(['billingRunHeld']);
    expect(await signalsOf(early.workflowId)).toEqual(['billingRunHeld']);
  });
});

const handedCycleOf = (subscriptionId: string): HandedCycle => ({
  subscriptionId,
  cycle: 1,
  amount: 30_000,
  dueDate: day,
});

/** An active subscription at cycle 1 and its workflow, on a queue no worker polls: the signals it is sent stay in its history. */
async function waitingSubscription(): Promise<{ id: string; workflowId: string }> {
  const id = `rh${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await insertSubscription(scratch.db, subscriptionRecord(id));
  await scratch.db('subscriptions').where({ subscription_id: id }).update({ next_cycle: 1 });
  const workflow = await temporal.client.workflow.start('subscription', {
    workflowId: subscriptionWorkflowId(id),
    taskQueue,
    args: [],
  });
  return { id, workflowId: workflow.workflowId };
}

const handOverOf = (subscriptionId: string, runStartsInMs: number): HandOver => ({
  subscriptionId,
  cycle: 1,
  amount: 30_000,
  dueDate: day,
  runStartsInMs,
});

async function signalsOf(workflowId: string): Promise<string[]> {
  const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const name = event.workflowExecutionSignaledEventAttributes?.signalName;
    return name ? [name] : [];
  });
}
