/**
 * Recurring payout schedules through the API on the dev server (real Temporal Schedules): bad input is refused
 * naming the field and creates nothing; a saved schedule is a Temporal Schedule in Asia/Ho_Chi_Minh that skips
 * overlaps; triggering it makes a run awaiting approval with the schedule on it; the balance forecast counts the
 * next occurrence; pause, resume and delete reach the Schedule.
 */
import { describe, expect, it } from 'vitest';
import { apiCall, PAYOUT_HEADER, usePayoutStack } from '../support/payout-stack';
import { connectDevServer } from '../support/temporal';
import { freshId } from '../support/ids';
import { newKey } from '../support/api';
import { eventually } from '../support/wait';
import { dayOfGmt7 } from '../../contracts/subscriptions';
import { payoutScheduleTemporalId } from '../../contracts/payouts';
import { ScheduleOverlapPolicy } from '@temporalio/client';

const fixture = usePayoutStack(connectDevServer);
const DAY = 86_400_000;

const call = (method: string, path: string, body?: unknown, key = fixture.stack.makerKey) =>
  apiCall(fixture.stack, key, method, path, body === undefined ? undefined : JSON.stringify(body));

const rowsCsv = (prefix: string) =>
  [
    PAYOUT_HEADER,
    `${prefix}-1,0912345678,Receiver 1,,10000,Salary 1,`,
    `${prefix}-2,0912345678,Receiver 2,,25000,Salary 2,`,
  ].join('\n');

const schedulesNamed = (name: string) => fixture.db('payout_schedules').where({ name });

describe('recurring payout schedules', () => {
  it('refuses a bad calendar (400) and bad rows (422 naming the row), creating nothing', async () => {
    const name = freshId('bad');
    const day31 = await call('POST', '/v1/payout-schedules', {
      name,
      calendar: { dayOfMonth: 31, hour: 9, minute: 0 },
      rows: rowsCsv(freshId('p')),
    });
    expect(day31.status).toBe(400);
    expect(day31.body.error.problems).toEqual([
      expect.objectContaining({ field: 'body.calendar.dayOfMonth' }),
    ]);
    const badRow = await call('POST', '/v1/payout-schedules', {
      name,
      calendar: { dayOfMonth: 25, hour: 9, minute: 0 },
      rows: `${PAYOUT_HEADER}\n${freshId('p')}-1,0912345678,Receiver 1,,0,Salary,`,
    });
    expect(badRow.status).toBe(422);
    expect(badRow.body.error.code).toBe('invalid_payout_file');
    expect(badRow.body.error.problems).toEqual([
      expect.objectContaining({ field: 'body.rows row 2.amount' }),
    ]);
    expect(await schedulesNamed(name)).toHaveLength(0);
  });

  it('a saved schedule is a Temporal Schedule; triggered, it makes a run awaiting approval; the forecast counts it; pause, resume, delete', async () => {
    const name = freshId('salaries');
    // Two days ahead in GMT+7 (or the 1st, past the 28th): the next occurrence falls inside the 14-day forecast.
    const ahead = Number(dayOfGmt7(Date.now() + 2 * DAY).slice(8, 10));
    const dayOfMonth = ahead > 28 ? 1 : ahead;
    const created = await call('POST', '/v1/payout-schedules', {
      name,
      calendar: { dayOfMonth, hour: 9, minute: 30 },
      rows: rowsCsv(freshId('p')),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const scheduleId = created.body.scheduleId as string;
    expect(created.body).toMatchObject({ status: 'active', rowCount: 2, totalAmount: 35_000 });
    const next = created.body.nextOccurrences[0] as string;
    expect(new Date(Date.parse(next) + 7 * 3600_000).toISOString().slice(8, 16)).toBe(
      `${String(dayOfMonth).padStart(2, '0')}T09:30`,
    );

    const handle = fixture.env.client.schedule.getHandle(payoutScheduleTemporalId(scheduleId));
    const described = await handle.describe();
    expect(described.spec.timezone).toBe('Asia/Ho_Chi_Minh');
    expect(described.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(described.info.nextActionTimes[0]?.toISOString()).toBe(next);

    const forecast = await call('GET', '/v1/balance-forecast?days=14', undefined, fixture.stack.approverKey);
    expect(forecast.status).toBe(200);
    const day = (forecast.body.days as Array<{ date: string; outgoing: number; runs: unknown[] }>).find(
      (entry) => entry.date === dayOfGmt7(Date.parse(next)),
    );
    expect(day?.runs).toContainEqual({ scheduleId, total: 35_000, status: 'recurring' });

    await handle.trigger();
    const run = await eventually(async () => {
      const found = await fixture.db('payout_runs').where({ schedule_id: scheduleId }).first();
      if (!found) throw new Error('no run yet');
      return found;
    });
    expect(run).toMatchObject({ status: 'awaiting_approval', row_count: 2, total_amount: '35000' });
    const shown = await call('GET', `/v1/payout-schedules/${scheduleId}`);
    expect(shown.body.runs).toEqual([
      expect.objectContaining({ runId: run.run_id, status: 'awaiting_approval' }),
    ]);
    expect(shown.body.rows[0]).toMatchObject({ walletId: '0912345678', walletName: 'Receiver 1' });
    // A viewer reads the schedule's receivers as a run's items show them: masked.
    const viewerKey = await newKey(fixture.db, ['viewer']);
    const asViewer = await call('GET', `/v1/payout-schedules/${scheduleId}`, undefined, viewerKey);
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.rows[0].walletId).toBe('****5678');
    expect(JSON.stringify(asViewer.body)).not.toContain('Receiver 1');

    const paused = await call('POST', `/v1/payout-schedules/${scheduleId}/pause`, {});
    expect(paused.body).toMatchObject({ status: 'paused', nextOccurrences: [] });
    expect((await handle.describe()).state.paused).toBe(true);
    const resumed = await call('POST', `/v1/payout-schedules/${scheduleId}/resume`, {});
    expect(resumed.body.status).toBe('active');
    expect((await handle.describe()).state.paused).toBe(false);
    const deleted = await call('POST', `/v1/payout-schedules/${scheduleId}/delete`, {});
    expect(deleted.status).toBe(200);
    expect((await call('POST', `/v1/payout-schedules/${scheduleId}/pause`, {})).body.error.code).toBe(
      'schedule_deleted',
    );
    expect((await call('GET', `/v1/payout-schedules/${scheduleId}`)).status).toBe(404);
    await expect(handle.describe()).rejects.toThrow();
  });
});
