/**
 * Scheduled payout runs end to end on the time-skipping server, against the sandbox over real HTTP: an
 * approval naming `executeAt` pays then and not before, a cancelled scheduled run pays nothing, and the check
 * ahead of the time warns when the balance is short or a receiver is refused. Time jumps only where a test
 * sleeps the server explicitly.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { apiCall, payoutFile, waitForRunStatus } from '../support/payout-stack';
import { testPayoutSettings } from '../support/settings';
import { useStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { freshId } from '../support/ids';
import { captureHistory } from '../support/history-capture';
import { merchantBalanceWorkflowId, payoutRunWorkflowId } from '../../contracts/payouts';

const HOUR = 3600_000;
const taskQueue = `scheduled-runs-${randomUUID()}`;
/** How long ahead of its time a run checks (PAYOUT_SCHEDULE_CHECK_AHEAD), shorter than the default to show it applies. */
const CHECK_AHEAD_HOURS = 6;
const stack = useStack(createTimeSkippingEnv, {
  taskQueue,
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
    viewerKey: { name: 'viewer', roles: ['viewer'] },
  },
  workerTuning: { maxCachedWorkflows: 0 },
  // The API waits on workflows (an approval's update, the forecast's balance read): with a client of its own
  // that does not skip time, only this file's sleeps move the clock.
  plainApiClient: true,
  app: {
    payouts: {
      ...testPayoutSettings(taskQueue),
      // The approval deadline must outlast the days this file skips.
      approvalTtlHours: 30 * 24,
      scheduleCheckAhead: `${CHECK_AHEAD_HOURS}h`,
    },
  },
});
const fixture = {
  get env() {
    return stack.env;
  },
  get db() {
    return stack.db;
  },
  stack,
};

/** Every movement the sandbox made for this run's batches. */
const movementsOf = (runId: string) =>
  fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));

const eventsOf = async (runId: string) =>
  (await fixture
    .db('events')
    .where({ object_id: runId })
    .orderBy('position')
    .select('type', 'snapshot')) as Array<{
    type: string;
    snapshot: Record<string, unknown>;
  }>;

async function upload(csv: string): Promise<string> {
  const { stack } = fixture;
  const uploaded = await apiCall(
    stack,
    stack.makerKey,
    'POST',
    '/v1/payout-runs?fileName=scheduled.csv',
    csv,
    'text/csv',
  );
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  return uploaded.body.runId as string;
}

/** An approval naming when to pay, written in GMT+7 as the console sends it. */
async function approveAt(runId: string, executeAtMs: number) {
  const gmt7 = new Date(executeAtMs + 7 * HOUR).toISOString().replace('Z', '+07:00');
  return apiCall(
    fixture.stack,
    fixture.stack.approverKey,
    'POST',
    `/v1/payout-runs/${runId}/approve`,
    JSON.stringify({ executeAt: gmt7 }),
  );
}

const runRow = (runId: string) => fixture.db('payout_runs').where({ run_id: runId }).first();

describe('scheduled payout runs', () => {
  it('refuses executeAt in the past or beyond 370 days (422 naming the rule), and one without an offset (400)', async () => {
    const runId = await upload(payoutFile(freshId('when'), 1));
    const now = Date.now();
    const past = await approveAt(runId, now - HOUR);
    expect(past.status).toBe(422);
    expect(past.body.error).toMatchObject({
      code: 'invalid_request',
      problems: [{ field: 'body.executeAt', rule: 'execute_at_in_future' }],
    });
    const far = await approveAt(runId, now + 371 * 24 * HOUR);
    expect(far.status).toBe(422);
    expect(far.body.error.problems).toEqual([
      expect.objectContaining({ rule: 'execute_at_within_370_days' }),
    ]);
    const local = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      JSON.stringify({ executeAt: '2026-12-25T09:00:00' }),
    );
    expect(local.status).toBe(400);
    expect(local.body.error.problems).toEqual([expect.objectContaining({ field: 'body.executeAt' })]);
    // Nothing changed: the run still waits for its approval.
    expect((await runRow(runId)).status).toBe('awaiting_approval');
    const notScheduled = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/cancel`,
      '{}',
    );
    expect(notScheduled.status).toBe(409);
    expect(notScheduled.body.error.code).toBe('run_not_scheduled');
  });
  it('the balance forecast: the next days of scheduled runs by GMT+7 day, adding up, against the balance', async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setBalance('VND', 123_456_789);
    // Before any test skips time: the server's clock is still the API's. The forecast counts from the API's clock (today in GMT+7); these runs pay 24, 25 and 72 hours from now.
    const now = Date.now();
    const plan = [24, 25, 72].map((hours) => now + hours * HOUR);
    const runs: Array<{ runId: string; date: string; total: number }> = [];
    for (const [index, at] of plan.entries()) {
      const runId = await upload(payoutFile(freshId(`fc${index}`), index + 1));
      const approved = await approveAt(runId, at);
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      runs.push({ runId, date: gmt7Date(at), total: approved.body.totalAmount as number });
    }

    const forecast = await apiCall(
      fixture.stack,
      fixture.stack.viewerKey,
      'GET',
      '/v1/balance-forecast?days=5',
    );
    expect(forecast.status, JSON.stringify(forecast.body)).toBe(200);
    expect(forecast.body).toMatchObject({ currency: 'VND', balance: 123_456_789, balanceError: null });
    // The balance read the forecast makes, once more under a known id: its history is a replay fixture.
    const readId = merchantBalanceWorkflowId(randomUUID());
    const read = await fixture.env.client.workflow.execute('merchantBalance', {
      taskQueue,
      workflowId: readId,
      args: [{}],
    });
    expect(read.balance).toBe(123_456_789);
    await captureHistory(fixture.env.client, readId, 'read');
    const days = forecast.body.days as Array<{
      date: string;
      outgoing: number;
      runs: Array<{ runId: string; total: number; status: string }>;
    }>;
    expect(days.map((day) => day.date)).toEqual([0, 1, 2, 3, 4].map((n) => gmt7Date(now + n * 24 * HOUR)));
    for (const day of days) {
      // Each day's outgoing is the sum of its runs; ours are on the days they pay, with their totals.
      expect(day.outgoing).toBe(day.runs.reduce((sum, run) => sum + run.total, 0));
      const ours = runs.filter((run) => run.date === day.date);
      expect(day.runs.filter((run) => ours.some((mine) => mine.runId === run.runId))).toEqual(
        ours.map((run) => ({ runId: run.runId, total: run.total, status: 'scheduled' })),
      );
    }
    const default14 = await apiCall(fixture.stack, fixture.stack.viewerKey, 'GET', '/v1/balance-forecast');
    expect(default14.body.days).toHaveLength(14);
    for (const days of ['0', '32', 'two'])
      expect(
        (await apiCall(fixture.stack, fixture.stack.viewerKey, 'GET', `/v1/balance-forecast?days=${days}`))
          .status,
      ).toBe(400);

    // Cancelled, they leave the forecast.
    for (const run of runs)
      expect(
        (
          await apiCall(
            fixture.stack,
            fixture.stack.approverKey,
            'POST',
            `/v1/payout-runs/${run.runId}/cancel`,
            '{}',
          )
        ).status,
      ).toBe(200);
    const after = await apiCall(fixture.stack, fixture.stack.viewerKey, 'GET', '/v1/balance-forecast?days=5');
    const listed = (after.body.days as Array<{ runs: Array<{ runId: string }> }>).flatMap((day) => day.runs);
    expect(listed.filter((run) => runs.some((mine) => mine.runId === run.runId))).toEqual([]);
  });
  it('waits as scheduled, pays at executeAt and not before, one movement per row', async () => {
    fixture.stack.sandbox.admin.reset();
    const rows = 3;
    const runId = await upload(payoutFile(freshId('sched'), rows));
    const executeAt = (await fixture.env.currentTimeMs()) + 30 * HOUR;
    const approved = await approveAt(runId, executeAt);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'scheduled',
      executeAt: new Date(executeAt).toISOString(),
    });

    // A minute before its time: still scheduled, nothing moved.
    await fixture.env.sleep(30 * HOUR - 60_000);
    expect((await runRow(runId)).status).toBe('scheduled');
    expect(movementsOf(runId)).toEqual([]);

    await fixture.env.sleep('2 minutes');
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => fixture.env.sleep('2 seconds'),
    });
    expect(run.status, String(run.status_reason)).toBe('reconciled');
    const movements = movementsOf(runId);
    expect(movements.filter((entry) => entry.itemId !== undefined)).toHaveLength(rows);
    expect(new Set(movements.map((entry) => `${entry.orderId}/${entry.itemId}`)).size).toBe(movements.length);
    expect((await eventsOf(runId)).map((event) => event.type)).toEqual([
      'payout_run.awaiting_approval',
      'payout_run.scheduled',
      'payout_run.reconciled',
    ]);
    await captureHistory(fixture.env.client, payoutRunWorkflowId(runId), 'scheduled-then-paid');
  });

  it('a cancelled scheduled run pays nothing, frees its payout ids, and cannot be cancelled twice', async () => {
    fixture.stack.sandbox.admin.reset();
    const file = payoutFile(freshId('cancel'), 2);
    const runId = await upload(file);
    const approved = await approveAt(runId, (await fixture.env.currentTimeMs()) + 2 * HOUR);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const cancelled = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/cancel`,
      JSON.stringify({ note: 'wrong month' }),
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });

    // Past the time it would have paid: nothing moved, every row cancelled.
    await fixture.env.sleep(3 * HOUR);
    expect(movementsOf(runId)).toEqual([]);
    const states = await fixture.db('payout_items').where({ run_id: runId }).pluck('state');
    expect(states).toEqual(['CANCELLED', 'CANCELLED']);
    expect((await eventsOf(runId)).map((event) => event.type)).toEqual([
      'payout_run.awaiting_approval',
      'payout_run.scheduled',
      'payout_run.cancelled',
    ]);

    const again = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/cancel`,
      '{}',
    );
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('run_not_scheduled');
    await captureHistory(fixture.env.client, payoutRunWorkflowId(runId), 'scheduled-then-cancelled');
    // Its payout ids are free: the same file is accepted as a new run.
    await upload(file);
  });

  it('ahead of its time, a short balance and a refused receiver warn (once each) and the run still pays at its time', async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setBalance('VND', 15_000);
    // The third receiver's wallet ends in 1007: the sandbox's wallet check refuses it (inactive account).
    const runId = await upload(
      payoutFile(freshId('short'), 3, (index) => (index === 2 ? '0912341007' : '0912345678')),
    );
    const executeAt = (await fixture.env.currentTimeMs()) + 26 * HOUR;
    expect((await approveAt(runId, executeAt)).status).toBe(200);

    // Before the check (CHECK_AHEAD_HOURS ahead): no warning yet.
    await fixture.env.sleep((26 - CHECK_AHEAD_HOURS) * HOUR - 60_000);
    expect((await eventsOf(runId)).map((event) => event.type)).toEqual([
      'payout_run.awaiting_approval',
      'payout_run.scheduled',
    ]);

    await fixture.env.sleep('2 minutes');
    const warnings = await eventually(async () => {
      const types = (await eventsOf(runId)).filter((event) => event.type !== 'payout_run.awaiting_approval');
      expect(types.map((event) => event.type)).toEqual([
        'payout_run.scheduled',
        'payout_run.funds_short',
        'payout_run.scheduled_check_failed',
      ]);
      return types;
    });
    // Needed: this run's total and every run scheduled to pay before it (in this shared database, whatever they are).
    const short = warnings[1]!.snapshot as { balance: number; needed: number; scheduledBefore: number };
    expect(short).toMatchObject({
      balance: 15_000,
      needed: 10_000 + 10_001 + 10_002 + short.scheduledBefore,
    });
    expect(warnings[2]!.snapshot).toMatchObject({
      receiversChecked: 3,
      receiversRefused: 1,
      // The file's line 4 (the header is line 1), its wallet masked.
      refused: [{ row: 4, wallet: '…1007', resultCode: 1007 }],
    });
    // A warning, not a cancellation: still scheduled, nothing moved, the console sees the warning.
    const view = await apiCall(fixture.stack, fixture.stack.approverKey, 'GET', `/v1/payout-runs/${runId}`);
    expect(view.body).toMatchObject({
      status: 'scheduled',
      scheduleWarnings: { fundsShort: { balance: 15_000 }, receivers: { receiversRefused: 1 } },
    });
    expect(movementsOf(runId)).toEqual([]);

    // Topped up before the time: it pays the two valid rows at its time.
    fixture.stack.sandbox.admin.setBalance('VND', 10_000_000);
    await fixture.env.sleep(CHECK_AHEAD_HOURS * HOUR);
    await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => fixture.env.sleep('2 seconds'),
    });
    expect(movementsOf(runId).filter((entry) => entry.outcome === 'succeeded')).toHaveLength(2);
  });
});

/** The GMT+7 calendar day of an instant. */
const gmt7Date = (ms: number) => new Date(ms + 7 * HOUR).toISOString().slice(0, 10);
