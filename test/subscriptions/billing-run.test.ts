/**
 * A billing day through the billing run (SUBSCRIPTION_BILLING_PATH=run, the default;
 * SUBSCRIPTION_RUN_GRACE_MINUTES sets the workflow's fallback): a plain cycle is charged once by
 * the day's run, named on its charge row; its workflow reads a success from that row when its grace ends and
 * hears a failure by one signal, keeping the retry and the gateway's pause; a paused subscription is not
 * charged by the run.
 */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  billingRunWorkflowId,
  instantOf,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { defaultPayloadConverter } from '@temporalio/common';
import { createTimeSkippingEnv, testDataConverter } from '../support/temporal';
import { eventually } from '../support/wait';
import { captureHistory } from '../support/history-capture';
import { call, useSubscriptionStack } from './stack';
import { handOver } from '../../db/subscriptions/billing-runs';
import { localActivityName, localActivityResult } from '../../platform/local-activity-markers';
import { fixedMonthly, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv, {
  environment: { SUBSCRIPTION_BILLING_PATH: 'run', SUBSCRIPTION_RUN_GRACE_MINUTES: '120' },
});
const { today, skipTo, view, until, subscribe, ledgerOf, activitiesOf } = subscriptionSteps(t);

async function signalsOf(workflowId: string) {
  const history = await t.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const name = event.workflowExecutionSignaledEventAttributes?.signalName;
    return name ? [name] : [];
  });
}

/**
 * What the workflow read of the run's success at the end of its grace (settleHandedCycle's result in its
 * history), opened as the Temporal UI's codec server opens it.
 */
async function runSuccessesReadBy(workflowId: string) {
  const history = await t.env.client.workflow.getHandle(workflowId).fetchHistory();
  const [codec] = testDataConverter.payloadCodecs!;
  const settles = new Set<string>();
  const results = [];
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'settleHandedCycle')
      settles.add(String(event.eventId));
    // Queued (runs from before patch run-word-read-in-workflow-task), or local: its marker carries the result.
    const completed = event.activityTaskCompletedEventAttributes;
    const result =
      localActivityName(event) === 'settleHandedCycle'
        ? localActivityResult(event)
        : completed && settles.has(String(completed.scheduledEventId))
          ? completed.result?.payloads
          : undefined;
    if (!result?.length) continue;
    const [payload] = await codec!.decode(result);
    const read = defaultPayloadConverter.fromPayload<
      { billingRunId: string; chunk: number; outcome: string } | undefined
    >(payload!);
    if (read) results.push(read);
  }
  return results;
}

/** Past the cycle's hour (09:00) and the workflow's grace (120 minutes), when it reads what the run did. */
async function pastTheGrace(due: string) {
  await t.env.sleep(instantOf(due, 11) + 60_000 - (await t.env.currentTimeMs()));
}

describe('a billing day through the billing run', () => {
  it('charges a plain cycle once from the run, named on the charge row; the workflow reads the success at its grace, no signal', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    const after = await until(
      subscriptionId,
      (s) => s.nextCycle === 2 && s.charges.some((c: { status: string }) => c.status === 'succeeded'),
      'cycle 1 charged and the next cycle recorded',
    );
    expect(after.status).toBe('active');
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);

    const charge = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c1` })
      .first();
    expect(charge).toMatchObject({
      status: 'succeeded',
      billing_run_id: billingRunWorkflowId(due, t.taskQueue),
    });
    expect(charge.billing_chunk).toBeGreaterThanOrEqual(1);
    // Findable from the subscription (issue 35): the API's charge names the run, its chunk and its workflow id.
    const viewed = (await view(subscriptionId)).charges.find(
      (c: { orderId: string }) => c.orderId === `${subscriptionId}-c1`,
    );
    expect(viewed).toMatchObject({
      chargedBy: 'billing_run',
      billingRunId: billingRunWorkflowId(due, t.taskQueue),
      billingChunk: charge.billing_chunk,
      billingRunWorkflowId: `billing-run/${t.taskQueue}/${due}`,
    });
    // The next cycle is handed over in the same write as the success: nothing left for the workflow to do.
    const row = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
    expect(row).toMatchObject({ run_cycle: 2, next_cycle: 2 });

    const workflowId = subscriptionWorkflowId(subscriptionId);
    // The billing window costs the workflow nothing: the run told it nothing, and it has not woken.
    expect(await signalsOf(workflowId)).not.toContain('billingRunCharge');
    expect(await runSuccessesReadBy(workflowId)).toEqual([]);
    await pastTheGrace(due);
    // At its grace it reads the success from the rows; its history names the run and the chunk (no search
    // attribute needed), and it never charged the cycle itself.
    await eventually(async () =>
      expect(await runSuccessesReadBy(workflowId)).toEqual([
        expect.objectContaining({
          outcome: 'succeeded',
          billingRunId: billingRunWorkflowId(due, t.taskQueue),
          chunk: charge.billing_chunk,
        }),
      ]),
    );
    expect(await activitiesOf(workflowId)).not.toContain('chargeSubscriptionCycle');
    expect(await signalsOf(workflowId)).not.toContain('billingRunCharge');
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    // Cycle 2 is still with the run: the workflow did not take it back.
    expect(await t.db('subscriptions').where({ subscription_id: subscriptionId }).first()).toMatchObject({
      run_cycle: 2,
      next_cycle: 2,
    });
    await captureHistory(t.env.client, billingRunWorkflowId(due, t.taskQueue), 'one-chunk');
    await captureHistory(t.env.client, workflowId, 'billing-run-success-read', { stillOpen: true });
    // The same since the hand-over is written in the task that decides it (patch hand-over-in-workflow-task).
    await captureHistory(t.env.client, workflowId, 'handed-over-in-workflow-task', { stillOpen: true });
    // The same since the activation and the first hand-over are one local activity (patch activation-in-one-step).
    await captureHistory(t.env.client, workflowId, 'activated-in-one-step', { stillOpen: true });
  });

  it('the next cycle, handed over by the run’s success, is charged by its own day’s run, not by the fallback', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    const first = await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged');
    const secondDue = first.nextPaymentDate as string;
    // Past the second day's hour and the workflow's grace (120 minutes): whoever charges cycle 2 has by now.
    await t.env.sleep(instantOf(secondDue, 11) + 60_000 - (await t.env.currentTimeMs()));
    await until(subscriptionId, (s) => s.nextCycle === 3, 'cycle 2 charged');
    const second = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c2` })
      .first();
    expect(second).toMatchObject({
      status: 'succeeded',
      billing_run_id: billingRunWorkflowId(secondDue, t.taskQueue),
    });
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([
      `${subscriptionId}-c1`,
      `${subscriptionId}-c2`,
    ]);
    expect(await activitiesOf(subscriptionWorkflowId(subscriptionId))).not.toContain(
      'chargeSubscriptionCycle',
    );
    await captureHistory(t.env.client, billingRunWorkflowId(secondDue, t.taskQueue), 'next-day-run-untold');
    await captureHistory(
      t.env.client,
      subscriptionWorkflowId(subscriptionId),
      'billing-run-next-cycle-read',
      {
        stillOpen: true,
      },
    );
  });

  it('a hand-over retried after the run charged its cycle changes nothing: the next cycle stays handed over', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    const charged = await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged');
    // As when the hand-over activity's first attempt wrote, then timed out while the day's run was started,
    // and its retry came after the run's success.
    await handOver(t.db, { subscriptionId, cycle: 1, amount: 30_000, dueDate: due }, t.taskQueue);
    const row = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
    expect(row).toMatchObject({ run_cycle: 2, run_due_date: charged.nextPaymentDate, next_cycle: 2 });
  });

  it('paused after the run charged but before the grace: the workflow learns the cycle was paid, and charges nothing more', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    const charged = await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged by the run');
    const paused = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/pause`, { reason: 'holiday' });
    expect(paused.status).toBe(200);
    const workflowId = subscriptionWorkflowId(subscriptionId);
    // The pause ended the workflow's wait before its grace: it read the run's success then.
    await eventually(async () =>
      expect(await runSuccessesReadBy(workflowId)).toEqual([
        expect.objectContaining({ outcome: 'succeeded' }),
      ]),
    );
    // Its pause recorded the cycle it knew then (1); the success it read moves the record to cycle 2.
    const after = await until(
      subscriptionId,
      (s) => s.status === 'paused' && s.nextCycle === 2,
      'paused, with cycle 1 paid',
    );
    expect(after.nextPaymentDate).toBe(charged.nextPaymentDate);
    // Past cycle 2's date: nothing more is charged on a paused subscription, and cycle 1 stays paid once.
    await skipTo(addDays(charged.nextPaymentDate as string, 1));
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    expect(await activitiesOf(workflowId)).not.toContain('chargeSubscriptionCycle');
    // Cycle 2 stays handed over, but the run charges only active subscriptions (findHanded).
    const charges = await t.db('subscription_charges').where({ subscription_id: subscriptionId });
    expect(charges.map((c: { order_id: string }) => c.order_id)).toEqual([`${subscriptionId}-c1`]);
    const row = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
    expect(row).toMatchObject({ status: 'paused', next_cycle: 2 });
    await captureHistory(t.env.client, workflowId, 'billing-run-paused-before-grace', { stillOpen: true });
  });

  it('insufficient funds from the run: the workflow retries as -r1, and the second failure pauses', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId, partnerClientId } = await subscribe(fixedMonthly(due));
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);
    await skipTo(due);
    await until(subscriptionId, (s) => s.status === 'retrying', 'retrying after the run’s 1001');
    await skipTo(addDays(due, 2));
    const paused = await until(subscriptionId, (s) => s.status === 'paused', 'paused after the retry');
    expect(paused.statusReason).toContain('Insufficient funds twice');
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([
      `${subscriptionId}-c1`,
      `${subscriptionId}-c1-r1`,
    ]);
    const first = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c1` })
      .first();
    expect(first.billing_run_id).toBe(billingRunWorkflowId(due, t.taskQueue));
    await captureHistory(
      t.env.client,
      subscriptionWorkflowId(subscriptionId),
      'billing-run-insufficient-funds-paused',
      { stillOpen: true },
    );
  });

  it('the run loses the gateway’s answer: its retried chunk sends the same order, settles it by query, charges once', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    t.sandbox.admin.setFaults({
      operation: 'subscription.pay',
      orderIdPrefix: `${subscriptionId}-c1`,
      latencyMs: 400,
      dropResponse: true,
      times: 1,
    });
    try {
      await skipTo(due);
      await until(
        subscriptionId,
        (s) => s.nextCycle === 2 && s.charges.some((c: { status: string }) => c.status === 'succeeded'),
        'cycle 1 charged once the chunk was retried',
      );
    } finally {
      t.sandbox.admin.clearFaults();
    }
    const paid = ledgerOf(subscriptionId).filter((entry) => entry.outcome === 'succeeded');
    expect(paid.map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    const charge = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c1` })
      .first();
    expect(charge).toMatchObject({
      status: 'succeeded',
      billing_run_id: billingRunWorkflowId(due, t.taskQueue),
    });
    expect(await activitiesOf(subscriptionWorkflowId(subscriptionId))).not.toContain(
      'chargeSubscriptionCycle',
    );
  });

  it('a cycle the run never charges is charged by its workflow after the grace, once, as the same order', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await eventually(async () => {
      const handed = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
      expect(handed).toMatchObject({ run_cycle: 1 });
    });
    // The run misses it (as if it had stopped): nothing is handed over any more.
    await t.db('subscriptions').where({ subscription_id: subscriptionId }).update({ run_cycle: null });
    await skipTo(due);
    expect(ledgerOf(subscriptionId)).toEqual([]);
    // 09:00 + 120 minutes of grace: the workflow takes the cycle back and charges it itself.
    const ms = instantOf(due, 11) + 60_000 - (await t.env.currentTimeMs());
    await t.env.sleep(ms);
    await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged by the workflow');
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    const charge = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c1` })
      .first();
    expect(charge).toMatchObject({ status: 'succeeded', billing_run_id: null });
    const viewed = (await view(subscriptionId)).charges.find(
      (c: { orderId: string }) => c.orderId === `${subscriptionId}-c1`,
    );
    expect(viewed).toMatchObject({
      chargedBy: 'subscription',
      billingRunId: null,
      billingChunk: null,
      billingRunWorkflowId: null,
    });
    expect(await activitiesOf(subscriptionWorkflowId(subscriptionId))).toContain('chargeSubscriptionCycle');
    // It read the rows first (no success there) and took the cycle back in the same activity.
    expect(await runSuccessesReadBy(subscriptionWorkflowId(subscriptionId))).toEqual([]);
    await captureHistory(t.env.client, subscriptionWorkflowId(subscriptionId), 'billing-run-fallback-read', {
      stillOpen: true,
    });
  });

  it('a subscription paused before its date is not charged by the run, and its hand-over is taken back', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await eventually(async () => {
      const handed = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
      expect(handed).toMatchObject({ run_cycle: 1, run_due_date: due });
    });
    const paused = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/pause`, { reason: 'holiday' });
    expect(paused.status).toBe(200);
    const other = await subscribe(fixedMonthly(due));
    await skipTo(addDays(due, 1));
    // Another subscription due the same day is charged by the run: the run did come.
    await until(other.subscriptionId, (s) => s.nextCycle === 2, 'the other one charged');
    expect(ledgerOf(subscriptionId)).toEqual([]);
    expect(await t.db('subscription_charges').where({ subscription_id: subscriptionId })).toEqual([]);
    const row = await t.db('subscriptions').where({ subscription_id: subscriptionId }).first();
    expect(row).toMatchObject({ status: 'paused', run_cycle: null });
  });
});
