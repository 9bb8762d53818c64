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
import { billingRunWorkflowId, type HandedCycle, type HandOver } from '../../contracts/subscriptions';
import { insertSubscription } from '../../db/subscriptions/subscriptions';
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
});
