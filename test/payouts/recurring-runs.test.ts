/**
 * Recurring payout runs (docs/payout-runs.md, "Recurring runs"): an occurrence of a schedule makes one ordinary
 * run awaiting its own approval, with the schedule's rows under this occurrence's payout ids; the same
 * occurrence started again finds that run; an approved occurrence pays each row once; the next month's
 * occurrence is a run of its own that cannot touch the first one's rows; an occurrence over a daily cap of the
 * approval policy is recorded refused, with its event, and is never started or paid.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { apiCall, waitForRunStatus } from '../support/payout-stack';
import { useStack } from '../support/stack';
import { createTimeSkippingEnv, testDataConverter } from '../support/temporal';
import { freshId } from '../support/ids';
import { captureHistory } from '../support/history-capture';
import { testPayoutSettings } from '../support/settings';
import { insertSchedule } from '../../db/payouts/schedules';
import { recurringPayoutOccurrenceWorkflowId, type RecurringOccurrenceResult } from '../../contracts/payouts';
import { DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from '../../contracts/approvals';

const taskQueue = `recurring-runs-${randomUUID()}`;
/**
 * The workers' APPROVAL_POLICY: 150,000 VND of runs per maker a day. Every schedule here has a maker of its own,
 * so only what a test asks for counts against its cap.
 */
const MAKER_DAILY_CAP = 150_000;
const workerPolicy: ApprovalPolicy = {
  ...DEFAULT_APPROVAL_POLICY,
  payoutRun: { ...DEFAULT_APPROVAL_POLICY.payoutRun, perMakerDailyVnd: MAKER_DAILY_CAP },
};
// Only plain clients (the API's and this file's): nothing here may let the time-skipping server jump to a run's
// approval deadline while a test waits.
const stack = useStack(createTimeSkippingEnv, {
  taskQueue,
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
  },
  workerTuning: { maxCachedWorkflows: 0 },
  activities: { approvalPolicy: workerPolicy },
  plainApiClient: true,
  app: { payouts: testPayoutSettings(taskQueue) },
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
const plainClient = () =>
  new Client({ connection: fixture.env.connection, dataConverter: testDataConverter });

async function savedSchedule(prefix: string, amounts: number[]) {
  // The API's form of a schedule id, so the schedule's page can be read.
  const scheduleId = `sch-${randomBytes(5).toString('hex')}`;
  await insertSchedule(fixture.db, {
    schedule_id: scheduleId,
    name: `salaries ${prefix}`,
    calendar: { dayOfMonth: 25, hour: 9, minute: 0 },
    rows: amounts.map((amount, index) => ({
      payoutId: `${prefix}-${index + 1}`,
      walletId: '0912345678',
      walletName: `Receiver ${index + 1}`,
      personalId: null,
      amount,
      description: `Salary ${index + 1}`,
      storeId: null,
    })),
    row_count: amounts.length,
    total_amount: amounts.reduce((sum, amount) => sum + amount, 0),
    created_by_key: 'maker-key',
    created_by: `maker ${prefix}`,
    required_approvers: 1,
    approver_roles: ['payouts-approver'],
  });
  return scheduleId;
}

/** The occurrence workflow as the Schedule starts it, with the occurrence's time given. */
function occurrence(
  scheduleId: string,
  occurrenceAt: string,
  attempt = 'a',
): Promise<RecurringOccurrenceResult> {
  const settings = testPayoutSettings(fixture.stack.taskQueue);
  return plainClient().workflow.execute('recurringPayoutOccurrence', {
    taskQueue: fixture.stack.taskQueue,
    workflowId: `${recurringPayoutOccurrenceWorkflowId(scheduleId)}-${occurrenceAt}-${attempt}`,
    args: [
      {
        scheduleId,
        occurrenceAt,
        parallelBatches: settings.parallelBatches,
        timing: settings.timing,
        batchSize: settings.batchSize,
        approvalTtlHours: settings.approvalTtlHours,
      },
    ],
  });
}

const runsOf = (scheduleId: string) =>
  fixture.db('payout_runs').where({ schedule_id: scheduleId }).select('run_id', 'status', 'occurrence_at');
const itemsOf = (runId: string) =>
  fixture
    .db('payout_items')
    .where({ run_id: runId })
    .orderBy('row_number')
    .select('payout_id', 'amount', 'state');

describe('recurring payout runs', () => {
  it('an occurrence makes one run awaiting approval, the same occurrence again finds it, and it pays each row once', async () => {
    const prefix = freshId('sal');
    const scheduleId = await savedSchedule(prefix, [10_000, 20_000, 30_000]);
    // The 25th at 09:00 in GMT+7.
    const december = '2026-12-25T02:00:00.000Z';

    const first = await occurrence(scheduleId, december);
    expect(first).toMatchObject({ created: true });
    const runId = first.runId!;
    const run = await waitForRunStatus(fixture.db, runId, ['awaiting_approval']);
    expect(run).toMatchObject({ schedule_id: scheduleId, row_count: 3, total_amount: '60000' });
    expect(await itemsOf(runId)).toEqual([
      { payout_id: `${prefix}-1-202612`, amount: '10000', state: 'QUEUED' },
      { payout_id: `${prefix}-2-202612`, amount: '20000', state: 'QUEUED' },
      { payout_id: `${prefix}-3-202612`, amount: '30000', state: 'QUEUED' },
    ]);

    // The same occurrence started again (a retried or re-triggered start): the run it already made.
    expect(await occurrence(scheduleId, december, 'b')).toEqual({ runId, created: false });
    expect(await runsOf(scheduleId)).toHaveLength(1);
    for (const [attempt, name] of [
      ['a', 'made-its-run'],
      ['b', 'found-its-run'],
    ] as const)
      await captureHistory(
        plainClient(),
        `${recurringPayoutOccurrenceWorkflowId(scheduleId)}-${december}-${attempt}`,
        name,
      );

    // Nothing is paid until someone other than the schedule's maker approves the run.
    expect(
      fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId)),
    ).toHaveLength(0);
    const approved = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await waitForRunStatus(fixture.db, runId, ['reconciled']);
    const paid = fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));
    expect(paid.map((entry) => entry.itemId).sort()).toEqual([
      `${prefix}-1-202612`,
      `${prefix}-2-202612`,
      `${prefix}-3-202612`,
    ]);

    // January's occurrence is a run of its own, with January's payout ids.
    const january = await occurrence(scheduleId, '2027-01-25T02:00:00.000Z');
    expect(january).toMatchObject({ created: true });
    expect(january.runId).not.toBe(runId);
    expect((await itemsOf(january.runId!)).map((item) => item.payout_id)).toEqual([
      `${prefix}-1-202701`,
      `${prefix}-2-202701`,
      `${prefix}-3-202701`,
    ]);
    expect(await runsOf(scheduleId)).toHaveLength(2);
  });

  it('an occurrence of a paused schedule makes no run', async () => {
    const scheduleId = await savedSchedule(freshId('paused'), [10_000]);
    await fixture.db('payout_schedules').where({ schedule_id: scheduleId }).update({ status: 'paused' });
    expect(await occurrence(scheduleId, '2026-12-25T02:00:00.000Z')).toMatchObject({
      runId: null,
      skipped: 'schedule_not_active',
    });
    expect(await runsOf(scheduleId)).toHaveLength(0);
  });

  it('an occurrence over a daily cap is recorded refused with its event, never started, never paid, and stays refused', async () => {
    const prefix = freshId('cap');
    const scheduleId = await savedSchedule(prefix, [40_000, 60_000]);

    // 100,000 VND fits the maker's 150,000 a day; the next occurrence recorded today would take 200,000.
    const december = await occurrence(scheduleId, '2026-12-25T02:00:00.000Z');
    expect(december).toMatchObject({ created: true });
    const january = '2027-01-25T02:00:00.000Z';
    const refused = await occurrence(scheduleId, january);
    expect(refused).toMatchObject({ runId: null, skipped: 'daily_cap_exceeded' });
    const refusedRunId = (refused as { refusedRunId: string }).refusedRunId;

    // The missed occurrence shows: a run of the schedule, refused, naming the cap; the schedule lists it.
    const view = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'GET',
      `/v1/payout-runs/${refusedRunId}`,
    );
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      status: 'refused',
      scheduleId,
      occurrenceAt: january,
      totalAmount: 100_000,
      counts: {},
      batches: [],
    });
    expect(view.body.statusReason).toContain('approvalPolicy.payoutRun.perMakerDailyVnd');
    const schedule = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'GET',
      `/v1/payout-schedules/${scheduleId}`,
    );
    expect(schedule.body.runs).toContainEqual(
      expect.objectContaining({ runId: refusedRunId, status: 'refused' }),
    );
    const events = await fixture.db('events').where({ object_id: refusedRunId }).select('type', 'snapshot');
    expect(events).toEqual([
      expect.objectContaining({
        type: 'payout_run.refused',
        snapshot: expect.objectContaining({ status: 'refused', totalAmount: 100_000 }),
      }),
    ]);

    // Started again it is the same refused run, still without a workflow; an approver cannot bring it to life.
    expect(await occurrence(scheduleId, january, 'b')).toMatchObject({
      skipped: 'daily_cap_exceeded',
      refusedRunId,
    });
    expect(await runsOf(scheduleId)).toHaveLength(2);
    const approve = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${refusedRunId}/approve`,
      '{}',
    );
    expect(approve.status).toBe(409);
    expect(approve.body.error.code).toBe('run_not_awaiting_approval');
    expect(await itemsOf(refusedRunId)).toEqual([]);
    expect(
      fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(refusedRunId)),
    ).toHaveLength(0);
  });
});
