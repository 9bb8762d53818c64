/** Subscription billing through the API, on the time-skipping server, against the sandbox over HTTP. */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../contracts/subscriptions';
import { captureHistory } from '../support/history-capture';
import { createTimeSkippingEnv } from '../support/temporal';
import { fixedMonthly, subscriptionSteps } from './steps';
import { call, useSubscriptionStack } from './stack';

// A test below restarts the worker on the time-skipping server: no sticky queue for it to hold.
const t = useSubscriptionStack(createTimeSkippingEnv, { workerCache: 0 });
const { today, skipTo, view, until, subscribe, ledgerOf } = subscriptionSteps(t);

describe('subscriptions', () => {
  it('bills a year of MONTHLY cycles from Jan 31 (leap year), with continue-as-new, then expires', async () => {
    const { subscriptionId } = await subscribe({
      amount: 0,
      subscriptionInfo: {
        type: 'FIXED',
        recurringAmount: 99_000,
        frequency: 'MONTHLY',
        nextPaymentDate: '2028-01-31',
        expiryDate: '2029-01-15',
      },
    });
    expect((await view(subscriptionId)).nextPaymentDate).toBe('2028-01-31');
    // Cycle 1's charge moves the next payment date on (written with the charge, since the patch).
    await skipTo('2028-02-01');
    await until(subscriptionId, (s) => s.nextPaymentDate === '2028-02-29', 'the next payment date moved on');
    await skipTo('2029-01-20');
    const done = await until(subscriptionId, (s) => s.status === 'expired', 'expired');
    expect(done.charges.map((c: { dueDate: string }) => c.dueDate)).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
      '2028-05-31',
      '2028-06-30',
      '2028-07-31',
      '2028-08-31',
      '2028-09-30',
      '2028-10-31',
      '2028-11-30',
      '2028-12-31',
    ]);
    expect(done.charges.every((c: { status: string }) => c.status === 'succeeded')).toBe(true);
    expect(done.charges[1]).toMatchObject({ cycle: 2, amount: 99_000, nextPaymentDateSent: '2028-03-31' });
    expect(done.charges[1].transId).toBeTruthy();
    const ledger = ledgerOf(subscriptionId);
    expect(ledger).toHaveLength(12);
    expect(new Set(ledger.map((entry) => entry.orderId)).size).toBe(12);
    // cyclesPerRun is 4 in tests: the workflow continued as new three times.
    const described = await t.env.client.workflow.getHandle(done.workflowId).describe();
    expect(described.runId).not.toBe(described.raw.workflowExecutionInfo?.firstRunId);
    await captureHistory(t.env.client, done.workflowId, 'monthly-year-continued-as-new', { everyRun: true });
  });

  it('free trial then VARIABLE cycles: the reported amount, never above recurringAmount; no amount → skipped', async () => {
    const start = await today();
    const { subscriptionId } = await subscribe({
      amount: 0,
      subscriptionInfo: {
        type: 'VARIABLE',
        recurringAmount: 50_000,
        frequency: 'WEEKLY',
        nextPaymentDate: addDays(start, 3),
        expiryDate: addDays(start, 12),
      },
    });
    const over = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/cycle-amount`, {
      amount: 60_000,
    });
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(/1000\.\.50000/);
    const ok = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/cycle-amount`, { amount: 42_000 });
    expect(ok.body).toMatchObject({ cycle: 1, amount: 42_000 });
    // The record shows it as the next charge's amount (the console reads it there).
    const reported = await call(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(reported.body).toMatchObject({ nextCycle: 1, nextChargeAmount: 42_000 });
    expect(ledgerOf(subscriptionId)).toEqual([]); // the trial charged nothing
    await skipTo(addDays(start, 14));
    const done = await until(subscriptionId, (s) => s.status === 'expired', 'expired');
    expect(
      done.charges.map((c: { cycle: number; amount: number; status: string }) => [
        c.cycle,
        c.amount,
        c.status,
      ]),
    ).toEqual([
      [1, 42_000, 'succeeded'],
      [2, 0, 'skipped'],
    ]);
    expect(ledgerOf(subscriptionId).map((entry) => entry.amount)).toEqual([42_000]);
    await captureHistory(t.env.client, done.workflowId, 'variable-amount-reported');
  });

  it('insufficient funds twice → paused with the reason; reactivated by the customer → billing resumes', async () => {
    const start = await today();
    const { subscriptionId, partnerClientId } = await subscribe(fixedMonthly(addDays(start, 2)));
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);
    await skipTo(addDays(start, 2));
    await until(subscriptionId, (s) => s.status === 'retrying', 'retrying after the first 1001');
    await skipTo(addDays(start, 4));
    const paused = await until(subscriptionId, (s) => s.status === 'paused', 'paused');
    expect(paused.statusReason).toMatch(/Insufficient funds twice/);
    expect(
      paused.charges.map((c: { orderId: string; resultCode: number }) => [c.orderId, c.resultCode]),
    ).toEqual([
      [`${subscriptionId}-c1`, 1001],
      [`${subscriptionId}-c1-r1`, 1001],
    ]);
    expect(t.sandbox.admin.subscription(subscriptionId)).toMatchObject({ status: 'paused' });
    const listed = await call(t, 'GET', '/v1/subscriptions?status=paused', undefined, t.viewerKey);
    expect(listed.body.subscriptions).toContainEqual(
      expect.objectContaining({ subscriptionId, statusReason: paused.statusReason }),
    );
    // No pay request while paused.
    await skipTo(addDays(start, 20));
    expect(ledgerOf(subscriptionId)).toHaveLength(2);

    t.sandbox.admin.setCustomerFunds(partnerClientId, null);
    const asked = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/reactivate`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body).toMatchObject({ status: 'reactivating', payUrl: expect.stringContaining('/pay/') });
    const again = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/reactivate`, {});
    expect(again.status).toBe(409);
    t.sandbox.admin.approvePayment(`${subscriptionId}-m1`);
    await until(subscriptionId, (s) => s.status === 'active', 'active again');
    await skipTo(addDays(start, 40));
    const resumed = await until(subscriptionId, (s) => s.charges.length === 3, 'cycle 2 charged');
    expect(resumed.charges[2]).toMatchObject({ cycle: 2, status: 'succeeded', amount: 30_000 });
    await captureHistory(t.env.client, resumed.workflowId, 'insufficient-funds-paused-reactivated', {
      stillOpen: true,
    });
  });

  it('paused by an operator: no charge while paused; reactivated by the customer → the next cycle is charged', async () => {
    const start = await today();
    const { subscriptionId } = await subscribe({
      amount: 0,
      subscriptionInfo: {
        type: 'FIXED',
        recurringAmount: 40_000,
        frequency: 'WEEKLY',
        nextPaymentDate: addDays(start, 2),
      },
    });
    await skipTo(addDays(start, 2));
    await until(subscriptionId, (s) => s.charges.length === 1, 'cycle 1 charged');
    const paused = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/pause`, { reason: 'holiday' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    await until(subscriptionId, (s) => s.status === 'paused', 'paused');
    await skipTo(addDays(start, 17));
    expect(ledgerOf(subscriptionId)).toHaveLength(1);

    const asked = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/reactivate`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    // The pause was a manage order of its own: approve whichever reactivation order waits.
    const waiting = t.sandbox.admin
      .awaitingCustomer()
      .filter((o) => o.orderId.startsWith(`${subscriptionId}-m`));
    expect(waiting).toHaveLength(1);
    t.sandbox.admin.approvePayment(waiting[0]!.orderId);
    await until(subscriptionId, (s) => s.status === 'active', 'active again');
    await skipTo(addDays(start, 30));
    const resumed = await until(subscriptionId, (s) => s.charges.length >= 2, 'charged after reactivation');
    expect(resumed.charges[1]).toMatchObject({ status: 'succeeded', amount: 40_000 });
    expect(ledgerOf(subscriptionId).length).toBe(resumed.charges.length);
    await captureHistory(t.env.client, resumed.workflowId, 'paused-by-operator-reactivated', {
      stillOpen: true,
    });
  });

  it('cancel is permanent: nothing is charged afterwards and nothing else is accepted', async () => {
    const start = await today();
    const { subscriptionId } = await subscribe({
      amount: 20_000,
      subscriptionInfo: { type: 'FIXED', recurringAmount: 20_000, frequency: 'DAILY' },
    });
    const charged = await view(subscriptionId);
    expect(charged.charges).toEqual([
      expect.objectContaining({ cycle: 0, amount: 20_000, status: 'succeeded' }),
    ]);
    const cancelled = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/cancel`, {
      reason: 'moved away',
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(t.sandbox.admin.subscription(subscriptionId)).toMatchObject({ status: 'cancelled' });
    await skipTo(addDays(start, 5));
    expect((await view(subscriptionId)).charges).toHaveLength(1);
    expect((await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/pause`, {})).status).toBe(409);
    expect((await call(t, 'POST', '/v1/subscriptions', { subscriptionId }, t.viewerKey)).status).toBe(403);
    await captureHistory(t.env.client, `subscription/${subscriptionId}`, 'cancelled');
  });

  it('a worker restarted in the middle of a charge: one charge per cycle in the sandbox ledger', async () => {
    const start = await today();
    const { subscriptionId } = await subscribe({
      amount: 0,
      subscriptionInfo: {
        type: 'FIXED',
        recurringAmount: 25_000,
        frequency: 'DAILY',
        nextPaymentDate: addDays(start, 1),
        expiryDate: addDays(start, 4),
      },
    });
    t.sandbox.admin.setFaults({
      operation: 'subscription.pay',
      latencyMs: 400,
      dropResponse: true,
      times: 1,
    });
    const skipping = skipTo(addDays(start, 5));
    await until(
      subscriptionId,
      (s) => s.charges.some((c: { status: string }) => c.status === 'submitted'),
      'charging',
    );
    await t.stopWorker();
    await t.startWorker();
    await skipping;
    const done = await until(subscriptionId, (s) => s.status === 'expired', 'expired');
    t.sandbox.admin.clearFaults();
    expect(done.charges.map((c: { cycle: number; status: string }) => [c.cycle, c.status])).toEqual([
      [1, 'succeeded'],
      [2, 'succeeded'],
      [3, 'succeeded'],
    ]);
    const ledger = ledgerOf(subscriptionId);
    expect(ledger.map((entry) => entry.orderId).sort()).toEqual(
      [1, 2, 3].map((c) => `${subscriptionId}-c${c}`),
    );
  });

  it('refuses a free trial without nextPaymentDate, naming the field', async () => {
    const answer = await call(t, 'POST', '/v1/subscriptions', {
      subscriptionId: 'trial-without-date',
      partnerClientId: 'member1',
      amount: 0,
      subscriptionInfo: { name: 'Gym', type: 'FIXED', recurringAmount: 10_000, frequency: 'WEEKLY' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.problems[0].field).toBe('body.subscriptionInfo.nextPaymentDate');
  });
});
