/** Dunning schedules, and which one a subscription follows (null: the default). */
import type { Db } from '../shared/knex';
import type { DunningSchedule } from '../../contracts/subscriptions';

interface DunningScheduleRow {
  dunning_schedule_id: string;
  name: string;
  retry_after_hours: number | null;
  retry_on_day_of_month: number | null;
  retry_at_hour: number | null;
  notice_before_attempt_hours: number;
  send_reactivation_link: boolean;
  remind_every_days: number;
  cancel_after_days: number;
  created_by: string;
  created_at: Date;
}

export type StoredDunningSchedule = DunningSchedule & { createdBy: string; createdAt: Date };

const scheduleOf = (row: DunningScheduleRow): StoredDunningSchedule => ({
  dunningScheduleId: row.dunning_schedule_id,
  name: row.name,
  retry:
    row.retry_after_hours !== null
      ? { afterHours: row.retry_after_hours }
      : { onDayOfMonth: row.retry_on_day_of_month!, atHour: row.retry_at_hour! },
  noticeBeforeAttemptHours: row.notice_before_attempt_hours,
  afterPause: {
    sendReactivationLink: row.send_reactivation_link,
    remindEveryDays: row.remind_every_days,
    cancelAfterDays: row.cancel_after_days,
  },
  createdBy: row.created_by,
  createdAt: row.created_at,
});

export async function insertDunningSchedule(
  db: Db,
  schedule: DunningSchedule,
  createdBy: string,
): Promise<StoredDunningSchedule> {
  const { retry, afterPause } = schedule;
  const [row] = await db('dunning_schedules')
    .insert({
      dunning_schedule_id: schedule.dunningScheduleId,
      name: schedule.name,
      retry_after_hours: 'afterHours' in retry ? retry.afterHours : null,
      retry_on_day_of_month: 'onDayOfMonth' in retry ? retry.onDayOfMonth : null,
      retry_at_hour: 'onDayOfMonth' in retry ? retry.atHour : null,
      notice_before_attempt_hours: schedule.noticeBeforeAttemptHours,
      send_reactivation_link: afterPause.sendReactivationLink,
      remind_every_days: afterPause.remindEveryDays,
      cancel_after_days: afterPause.cancelAfterDays,
      created_by: createdBy,
    })
    .returning('*');
  return scheduleOf(row as DunningScheduleRow);
}

export async function getDunningSchedule(db: Db, id: string): Promise<StoredDunningSchedule | undefined> {
  const row = await db('dunning_schedules').where({ dunning_schedule_id: id }).first();
  return row && scheduleOf(row as DunningScheduleRow);
}

export async function listDunningSchedules(db: Db): Promise<StoredDunningSchedule[]> {
  const rows = await db('dunning_schedules').orderBy('created_at', 'desc').limit(500);
  return (rows as DunningScheduleRow[]).map(scheduleOf);
}

/** null: back to the default schedule. False when the subscription does not exist. */
export async function setSubscriptionDunningSchedule(
  db: Db,
  subscriptionId: string,
  dunningScheduleId: string | null,
): Promise<boolean> {
  const changed = await db('subscriptions')
    .where({ subscription_id: subscriptionId })
    .update({ dunning_schedule_id: dunningScheduleId, updated_at: db.fn.now() });
  return changed > 0;
}

export async function dunningScheduleIdOf(db: Db, subscriptionId: string): Promise<string | null> {
  const row = await db('subscriptions')
    .where({ subscription_id: subscriptionId })
    .first('dunning_schedule_id');
  return row?.dunning_schedule_id ?? null;
}
