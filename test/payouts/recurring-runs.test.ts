/**
 * Recurring payout runs (docs/payout-runs.md, "Recurring runs"): an occurrence of a schedule makes one ordinary
 * run awaiting its own approval, with the schedule's rows under this occurrence's payout ids; the same
 * occurrence started again finds that run; an approved occurrence pays each row once; the next month's
 * occurrence is a run of its own that cannot touch the first one's rows.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { apiCall, waitForRunStatus } from '../support/payout-stack';
import { useStack } from '../support/stack';
import { createTimeSkippingEnv, testDataConverter } from '../support/temporal';
import { freshId } from '../support/ids';
import { captureHistory } from '../support/history-capture';
import { testPayoutSettings } from '../support/settings';
import { insertSchedule } from '../../db/payouts/schedules';
import { recurringPayoutOccurrenceWorkflowId, type RecurringOccurrenceResult } from '../../contracts/payouts';

const taskQueue = `recurring-runs-${randomUUID()}`;
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
  const scheduleId = freshId('sch');
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
    created_by: 'maker',
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
});
