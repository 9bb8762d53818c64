/**
 * Recurring payout schedules (docs/payout-runs.md, "Recurring runs"): saving a payee list with fixed amounts and
 * a monthly GMT+7 calendar as a Temporal Schedule, pausing, resuming and deleting it, and reading it with its next
 * occurrences and the runs it made. A schedule never pays: each occurrence makes a run that waits for approval.
 */
import { randomBytes } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type CalendarSpec } from '@temporalio/client';
import {
  nextOccurrences,
  payoutScheduleTemporalId,
  recurringPayoutOccurrenceWorkflowId,
  RECURRING_TIMEZONE,
  type RecurringCalendar,
  type RecurringOccurrenceInput,
  type RecurringRow,
} from '../../contracts/payouts';
import { requirementIn } from '../../contracts/approvals';
import {
  getSchedule,
  insertSchedule,
  listSchedules,
  runsOfSchedule,
  setScheduleStatus,
  type PayoutScheduleRow,
} from '../../db/payouts/schedules';
import { payeesByIds } from '../../db/payees/payees';
import type { Principal } from '../auth/roles';
import type { AuditTrail } from '../http/audit-trail';
import { ApiError, conflict, notFound } from '../http/errors';
import { maskName, maskNumber, seesReceiversInFull } from '../http/masking';
import { parsePayoutFile } from './payout-file';
import { payeeIdsOf, resolvePayees } from './payout-payees';
import { actorOf, type PayoutDeps } from './payout-runs';

/** Occurrences shown with a schedule. */
const OCCURRENCES_SHOWN = 3;
/**
 * Occurrences missed while Temporal was down are still taken within this window; later than that, the month's
 * salaries need a person anyway (a run paid days late is a decision, not a catch-up).
 */
const CATCHUP_WINDOW = '1 day';
const MONTHS = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
] as const;

export const newScheduleId = () => `sch-${randomBytes(5).toString('hex')}`;

/** The Temporal calendars of a payrun calendar; 'last' needs one per month length (February: the 28th). */
export function temporalCalendars(calendar: RecurringCalendar): CalendarSpec[] {
  const at = { hour: calendar.hour, minute: calendar.minute };
  if (calendar.dayOfMonth !== 'last') return [{ ...at, dayOfMonth: calendar.dayOfMonth }];
  const monthsOf = (numbers: number[]) => numbers.map((number) => MONTHS[number - 1]!);
  return [
    { ...at, dayOfMonth: 31, month: monthsOf([1, 3, 5, 7, 8, 10, 12]) },
    { ...at, dayOfMonth: 30, month: monthsOf([4, 6, 9, 11]) },
    { ...at, dayOfMonth: 28, month: monthsOf([2]) },
  ];
}

export async function createSchedule(
  deps: PayoutDeps,
  input: { name: string; calendar: RecurringCalendar; rows: string; principal: Principal; audit: AuditTrail },
) {
  // The rows are read and checked exactly as an uploaded file's are (columns, rules, directory payees).
  const read = await parsePayoutFile(input.rows, { maxRows: deps.settings.maxRows });
  const report =
    read.fileErrors.length || read.rows.length === 0
      ? read
      : resolvePayees(read, await payeesByIds(deps.db, payeeIdsOf(read)));
  if (report.fileErrors.length || report.rowErrors.length || report.rows.length === 0)
    throw new ApiError('invalid_payout_file', 'The rows were not accepted; nothing was created.', {
      problems: [
        ...report.fileErrors.map((error) => ({
          field: 'body.rows',
          rule: error.rule,
          message: error.message,
        })),
        ...report.rowErrors.map((error) => ({
          field: `body.rows row ${error.row}${error.column ? `.${error.column}` : ''}`,
          rule: error.rule,
          message: error.message,
        })),
      ],
    });
  const rows: RecurringRow[] = report.rows.map(({ rowNumber: _rowNumber, ...row }) => row);
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  const requirement = requirementIn((await deps.approvalPolicies.policyAt(new Date())).payoutRun, total);
  const actor = actorOf(input.principal);
  const scheduleId = newScheduleId();
  await insertSchedule(deps.db, {
    schedule_id: scheduleId,
    name: input.name,
    calendar: input.calendar,
    rows,
    row_count: rows.length,
    total_amount: total,
    created_by_key: actor.keyId,
    created_by: actor.name,
    required_approvers: requirement.approvers,
    approver_roles: requirement.roles,
  });
  const occurrence: RecurringOccurrenceInput = {
    scheduleId,
    parallelBatches: deps.settings.parallelBatches,
    timing: deps.settings.timing,
    batchSize: deps.settings.batchSize,
    approvalTtlHours: deps.settings.approvalTtlHours,
    ...(deps.settings.scheduleCheckAhead !== undefined && {
      scheduleCheckAhead: deps.settings.scheduleCheckAhead as RecurringOccurrenceInput['scheduleCheckAhead'],
    }),
  };
  try {
    await deps.temporal.schedule.create({
      scheduleId: payoutScheduleTemporalId(scheduleId),
      spec: { calendars: temporalCalendars(input.calendar), timezone: RECURRING_TIMEZONE },
      action: {
        type: 'startWorkflow',
        workflowType: 'recurringPayoutOccurrence',
        workflowId: recurringPayoutOccurrenceWorkflowId(scheduleId),
        taskQueue: deps.settings.taskQueue,
        args: [occurrence],
      },
      // One occurrence at a time; an occurrence still running when the next is due is a sign of trouble, and
      // the next one waits for a person rather than piling up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW },
    });
  } catch (error) {
    // Without its Temporal Schedule the record would promise runs nobody makes: it goes.
    await setScheduleStatus(deps.db, scheduleId, 'deleted');
    throw error;
  }
  input.audit.note({ targetId: scheduleId, details: { rowCount: rows.length, totalAmount: total } });
  return scheduleView(deps, scheduleId, input.principal);
}

function summaryOf(row: Omit<PayoutScheduleRow, 'rows'>, now = Date.now()) {
  return {
    scheduleId: row.schedule_id,
    name: row.name,
    calendar: row.calendar,
    timezone: RECURRING_TIMEZONE,
    status: row.status,
    rowCount: row.row_count,
    totalAmount: Number(row.total_amount),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
    nextOccurrences: row.status === 'active' ? nextOccurrences(row.calendar, now, OCCURRENCES_SHOWN) : [],
  };
}

export async function schedulesView(deps: Pick<PayoutDeps, 'db'>) {
  return { schedules: (await listSchedules(deps.db)).map((row) => summaryOf(row)) };
}

/** A schedule's rows as a run's items are shown: receivers masked unless the reader sees them in full. */
const rowView = (row: RecurringRow, full: boolean): RecurringRow =>
  full
    ? row
    : {
        ...row,
        walletId: maskNumber(row.walletId),
        walletName: maskName(row.walletName),
        personalId: row.personalId === null ? null : maskNumber(row.personalId),
      };

export async function scheduleView(deps: Pick<PayoutDeps, 'db'>, scheduleId: string, reader: Principal) {
  const row = await getSchedule(deps.db, scheduleId);
  if (!row || row.status === 'deleted') throw notFound(`Payout schedule ${scheduleId}`);
  const runs = await runsOfSchedule(deps.db, scheduleId);
  return {
    ...summaryOf(row),
    rows: row.rows.map((recurring) => rowView(recurring, seesReceiversInFull(reader))),
    runs: runs.map((run) => ({
      runId: run.run_id,
      status: run.status,
      occurrenceAt: new Date(run.occurrence_at).toISOString(),
      totalAmount: Number(run.total_amount),
      rowCount: run.row_count,
    })),
  };
}

/**
 * Pause, resume or delete: the Temporal Schedule first, then the record. The occurrence reads the record too,
 * so a paused or deleted schedule makes no run even if its Schedule fired just before the change.
 */
export async function changeSchedule(
  deps: Pick<PayoutDeps, 'db' | 'temporal'>,
  scheduleId: string,
  action: 'pause' | 'resume' | 'delete',
  audit: AuditTrail,
  principal: Principal,
) {
  const row = await getSchedule(deps.db, scheduleId);
  if (!row) throw notFound(`Payout schedule ${scheduleId}`);
  if (row.status === 'deleted')
    throw conflict('schedule_deleted', `Payout schedule ${scheduleId} was deleted; it changes no more.`);
  const handle = deps.temporal.schedule.getHandle(payoutScheduleTemporalId(scheduleId));
  try {
    if (action === 'pause') await handle.pause('paused in payrun');
    else if (action === 'resume') await handle.unpause('resumed in payrun');
    else await handle.delete();
  } catch (error) {
    // Deleting a Schedule already gone (an earlier attempt that failed after Temporal's answer) is done.
    if (!(action === 'delete' && error instanceof ScheduleNotFoundError)) throw error;
  }
  const status = action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'deleted';
  await setScheduleStatus(deps.db, scheduleId, status);
  audit.note({ targetId: scheduleId, details: { status } });
  if (status === 'deleted') return { scheduleId, status };
  return scheduleView(deps, scheduleId, principal);
}
