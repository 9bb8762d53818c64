/**
 * Recurring payout schedules (migration 0029) and the runs their occurrences made.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import type { RecurringCalendar, RecurringRow } from '../../contracts/payouts';

export type ScheduleStatus = 'active' | 'paused' | 'deleted';

export interface PayoutScheduleRow {
  schedule_id: string;
  name: string;
  calendar: RecurringCalendar;
  rows: RecurringRow[];
  row_count: number;
  total_amount: string;
  status: ScheduleStatus;
  created_by_key: string;
  created_by: string;
  /** What the approval policy asked of a run of this total when the schedule was saved. */
  required_approvers: number;
  approver_roles: string[];
  created_at: Date;
  updated_at: Date;
}

export type NewPayoutSchedule = Omit<
  PayoutScheduleRow,
  'created_at' | 'updated_at' | 'total_amount' | 'status'
> & {
  total_amount: number;
};

export async function insertSchedule(db: Db | Knex.Transaction, schedule: NewPayoutSchedule): Promise<void> {
  await db('payout_schedules').insert({
    ...schedule,
    calendar: JSON.stringify(schedule.calendar),
    rows: JSON.stringify(schedule.rows),
  });
}

export async function getSchedule(
  db: Db | Knex.Transaction,
  scheduleId: string,
): Promise<PayoutScheduleRow | undefined> {
  return (await db('payout_schedules').where({ schedule_id: scheduleId }).first()) as
    PayoutScheduleRow | undefined;
}

/** Schedules not deleted, newest first, without their rows (a list shows counts and totals). */
export async function listSchedules(db: Db): Promise<Array<Omit<PayoutScheduleRow, 'rows'>>> {
  return (await db('payout_schedules')
    .whereNot({ status: 'deleted' })
    .orderBy('created_at', 'desc')
    .select(
      'schedule_id',
      'name',
      'calendar',
      'row_count',
      'total_amount',
      'status',
      'created_by_key',
      'created_by',
      'required_approvers',
      'approver_roles',
      'created_at',
      'updated_at',
    )) as Array<Omit<PayoutScheduleRow, 'rows'>>;
}

export async function setScheduleStatus(db: Db, scheduleId: string, status: ScheduleStatus): Promise<void> {
  await db('payout_schedules').where({ schedule_id: scheduleId }).update({ status, updated_at: db.fn.now() });
}

/** The run an occurrence already made, if it made one. */
export async function runOfOccurrence(
  db: Db | Knex.Transaction,
  scheduleId: string,
  occurrenceAt: Date,
): Promise<{ run_id: string; status: string; status_reason: string | null } | undefined> {
  return (await db('payout_runs')
    .where({ schedule_id: scheduleId, occurrence_at: occurrenceAt })
    .first('run_id', 'status', 'status_reason')) as
    { run_id: string; status: string; status_reason: string | null } | undefined;
}

/** The runs a schedule's occurrences made, newest occurrence first. */
export async function runsOfSchedule(db: Db, scheduleId: string, limit = 24) {
  return (await db('payout_runs')
    .where({ schedule_id: scheduleId })
    .orderBy('occurrence_at', 'desc')
    .limit(limit)
    .select('run_id', 'status', 'occurrence_at', 'total_amount', 'row_count')) as Array<{
    run_id: string;
    status: string;
    occurrence_at: Date;
    total_amount: string;
    row_count: number;
  }>;
}

/** Active schedules with their totals, for the balance forecast. */
export async function activeScheduleTotals(db: Db) {
  return (await db('payout_schedules')
    .where({ status: 'active' })
    .select('schedule_id', 'calendar', 'total_amount')) as Array<
    Pick<PayoutScheduleRow, 'schedule_id' | 'calendar' | 'total_amount'>
  >;
}
