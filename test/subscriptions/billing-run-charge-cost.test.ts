/**
 * What one charge of a billing run's chunk costs the payrun database, the figure a billing day is made of:
 * the claim and the gateway's answer, one transaction each, each reading the subscription row once, under
 * its lock. No other test sees a statement added here; the benchmarks would, as a slower day. The gateway
 * is a stand-in that answers subscription/pay; the database is this file's own (the chunk reads the holds).
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingRunActivities } from '../../activities/subscriptions/billing-runs';
import { sealToken } from '../../activities/subscriptions/subscriptions';
import { billingRunWorkflowId, type ChargeChunk } from '../../contracts/subscriptions';
import { getCharge, insertSubscription, requireSubscription } from '../../db/subscriptions/subscriptions';
import { classifyResult, type GatewayClient } from '../../gateway';
import { statementsSentBy, subscriptionRecord, useScratchDatabase } from '../support/database';
import { connectDevServer, testCodecKeyring } from '../support/temporal';

const scratch = useScratchDatabase('billing_run_charge_cost');
// No worker polls this queue: the next cycle's run, started by the success, only shows that it was started.
const taskQueue = `run-charge-cost-${randomUUID()}`;
let temporal: TestWorkflowEnvironment;
beforeAll(async () => {
  temporal = await connectDevServer();
});
afterAll(() => temporal?.teardown());

/** Answers every subscription/pay with success, and keeps what was sent. */
function payingGateway(sent: string[]): GatewayClient {
  return {
    call: async (operation, fields) => {
      sent.push(`${operation} ${(fields as unknown as { orderId: string }).orderId}`);
      return {
        resultCode: 0,
        message: 'Successful.',
        classification: classifyResult(operation, 0),
        body: { resultCode: 0, transId: 4_100_000 + sent.length },
      } as never;
    },
    prepare: () => {
      throw new Error('nothing is prepared here');
    },
  };
}

/** An active monthly subscription whose cycle 1, due on `day`, is handed over to the run. */
async function handedOver(day: string): Promise<string> {
  const id = `rc${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await insertSubscription(scratch.db, subscriptionRecord(id));
  await scratch
    .db('subscriptions')
    .where({ subscription_id: id })
    .update({
      token_ciphertext: sealToken({ value: `token-${id}`, initialOrderId: id }, testCodecKeyring, id),
      anchor_date: day,
      anchor_cycle: 1,
      next_cycle: 1,
      next_payment_date: day,
      run_scope: taskQueue,
      run_cycle: 1,
      run_amount: 30_000,
      run_due_date: day,
    });
  return id;
}

describe("a billing run's charge", () => {
  it('is two transactions, the claim and the answer, each reading the subscription once, under its lock', async () => {
    const day = '2031-03-10';
    const id = await handedOver(day);
    const sent: string[] = [];
    const activities = createBillingRunActivities({
      db: scratch.db,
      gateway: payingGateway(sent),
      subscriptionIpnUrl: 'http://unused.invalid/ipn/subscription',
      secrets: { merchantSecretKey: 'unused', keyring: testCodecKeyring },
    });
    const chunk: ChargeChunk = {
      day,
      runId: billingRunWorkflowId(day, taskQueue),
      chunk: 1,
      cycles: [{ subscriptionId: id, cycle: 1, amount: 30_000, dueDate: day }],
      concurrency: 1,
    };
    const env = new MockActivityEnvironment({ taskQueue }, { client: temporal.client });
    let outcome: unknown;
    const statements = await statementsSentBy(scratch.db, async () => {
      outcome = await env.run(activities.chargeHandedChunk, chunk);
    });

    expect(outcome).toEqual({ charged: 1, skipped: 0, held: false });
    expect(sent).toEqual([`subscription.pay ${id}-c1`]);
    expect(await getCharge(scratch.db, `${id}-c1`)).toMatchObject({
      status: 'succeeded',
      billing_run_id: chunk.runId,
      next_payment_date_sent: '2031-04-10',
    });
    expect(await requireSubscription(scratch.db, id)).toMatchObject({ next_cycle: 2, run_cycle: 2 });
    const nextRun = await temporal.client.workflow
      .getHandle(billingRunWorkflowId('2031-04-10', taskQueue))
      .describe();
    expect(nextRun.status.name).toBe('RUNNING');

    console.log(statements.join('\n'));
    const about = statements.filter((sql) => !/"holds"/.test(sql));
    expect(about.filter((sql) => /^begin/i.test(sql))).toHaveLength(2);
    expect(about.filter((sql) => /^select \* from "subscriptions"/.test(sql))).toEqual([
      expect.stringMatching(/for update$/),
      expect.stringMatching(/for update$/),
    ]);
    expect(about.filter((sql) => /^select .* from "subscription_charges"/.test(sql))).toHaveLength(2);
    expect(about.length).toBeLessThanOrEqual(13);
  });
});
