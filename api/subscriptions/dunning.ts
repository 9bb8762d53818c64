/**
 * Dunning stories: create and read schedules, put a subscription on one (its workflow hears it by a
 * signal and follows it from the next failure), set where and in which language its notices go, and read
 * the notices it was sent.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_DUNNING_SCHEDULE_ID,
  dunningScheduleSignal,
  FINAL_SUBSCRIPTION_STATUSES,
  type DunningSchedule,
  type NoticeLang,
} from '../../contracts/subscriptions';
import { durationMs } from '../../contracts/shared';
import type { Db } from '../../db/shared/knex';
import {
  getDunningSchedule,
  insertDunningSchedule,
  listDunningSchedules,
  setSubscriptionDunningSchedule,
  dunningScheduleIdOf,
} from '../../db/subscriptions/dunning-schedules';
import { noticesOf, setNoticeContact, noticeContactOf } from '../../db/subscriptions/notices';
import { getSubscription } from '../../db/subscriptions/subscriptions';
import { ApiError, conflict, notFound } from '../http/errors';
import type { SubscriptionDeps } from './subscriptions';
import { workflowOfSubscription } from './subscription-desk';

/**
 * The schedule of every subscription that has none: one retry after SUBSCRIPTION_RETRY_DELAY_HOURS, no
 * notices, nothing after the pause. The workflow takes exactly today's path for it (no schedule in its
 * state), so subscriptions that were running before schedules existed bill as they always did.
 */
export function defaultDunningSchedule(deps: SubscriptionDeps): DunningSchedule & { isDefault: true } {
  const hours = durationMs(deps.settings.timing.insufficientFundsRetryDelay) / 3_600_000;
  return {
    dunningScheduleId: DEFAULT_DUNNING_SCHEDULE_ID,
    name: 'Default',
    retry: { afterHours: hours },
    noticeBeforeAttemptHours: 0,
    afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 0 },
    isDefault: true,
  };
}

export async function createDunningSchedule(
  db: Db,
  body: Omit<DunningSchedule, 'dunningScheduleId'>,
  by: string,
) {
  const schedule = { ...body, dunningScheduleId: `dun_${randomBytes(8).toString('hex')}` };
  return { ...(await insertDunningSchedule(db, schedule, by)), isDefault: false };
}

export async function dunningSchedules(deps: SubscriptionDeps) {
  const stored = await listDunningSchedules(deps.db);
  return [defaultDunningSchedule(deps), ...stored.map((schedule) => ({ ...schedule, isDefault: false }))];
}

export async function dunningScheduleView(deps: SubscriptionDeps, id: string) {
  if (id === DEFAULT_DUNNING_SCHEDULE_ID) return defaultDunningSchedule(deps);
  const schedule = await getDunningSchedule(deps.db, id);
  if (!schedule) throw notFound(`Dunning schedule ${id}`);
  return { ...schedule, isDefault: false };
}

/** A finished subscription has nothing to follow a schedule with: refused, nothing changed. */
async function requireRunning(deps: SubscriptionDeps, subscriptionId: string) {
  const row = await getSubscription(deps.db, subscriptionId);
  if (!row) throw notFound(`Subscription ${subscriptionId}`);
  if (FINAL_SUBSCRIPTION_STATUSES.includes(row.status))
    throw conflict(
      'subscription_finished',
      `Subscription ${subscriptionId} is ${row.status}; nothing changes it.`,
    );
  return row;
}

/**
 * The stored schedule an id names; null for `default` (the workflow's own path). An unknown id is 422
 * naming the field, before anything is written.
 */
export async function knownDunningSchedule(db: Db, scheduleId: string): Promise<DunningSchedule | null> {
  if (scheduleId === DEFAULT_DUNNING_SCHEDULE_ID) return null;
  const schedule = await getDunningSchedule(db, scheduleId);
  if (schedule === undefined)
    throw new ApiError('invalid_request', `Dunning schedule ${scheduleId} does not exist.`, {
      status: 422,
      problems: [
        {
          field: 'body.dunningScheduleId',
          rule: 'unknown_schedule',
          message: 'no dunning schedule has this id',
        },
      ],
    });
  return schedule;
}

/** What the workflow is signalled: the schedule alone, without who stored it and when. */
export const dunningScheduleSent = (schedule: DunningSchedule | null): DunningSchedule | null =>
  schedule && {
    dunningScheduleId: schedule.dunningScheduleId,
    name: schedule.name,
    retry: schedule.retry,
    noticeBeforeAttemptHours: schedule.noticeBeforeAttemptHours,
    afterPause: schedule.afterPause,
  };

/**
 * The record first, then the signal: should the signal fail (the workflow ended meanwhile), the answer is
 * 409 and the record is put back, so the record never shows a schedule the workflow does not follow.
 */
export async function assignDunningSchedule(
  deps: SubscriptionDeps,
  subscriptionId: string,
  scheduleId: string,
) {
  const row = await requireRunning(deps, subscriptionId);
  const schedule = await knownDunningSchedule(deps.db, scheduleId);
  const before = await dunningScheduleIdOf(deps.db, subscriptionId);
  await setSubscriptionDunningSchedule(deps.db, subscriptionId, schedule ? scheduleId : null);
  try {
    const handle = await workflowOfSubscription(deps.temporal, deps.db, row);
    await handle.signal(dunningScheduleSignal, dunningScheduleSent(schedule));
  } catch (error) {
    await setSubscriptionDunningSchedule(deps.db, subscriptionId, before);
    if ((error as Error).name === 'WorkflowNotFoundError')
      throw conflict('subscription_finished', 'This subscription has ended; it cannot be changed.');
    throw error;
  }
  return { subscriptionId, dunningScheduleId: scheduleId };
}

export async function assignNoticeContact(
  deps: SubscriptionDeps,
  subscriptionId: string,
  contact: { email: string | null; lang: NoticeLang },
) {
  if (!(await setNoticeContact(deps.db, subscriptionId, contact)))
    throw notFound(`Subscription ${subscriptionId}`);
  return { subscriptionId, ...contact };
}

/** What the subscription's customer was told, for its detail page (never the address itself to viewers). */
export async function noticesView(db: Db, subscriptionId: string) {
  const contact = await noticeContactOf(db, subscriptionId);
  if (!contact) throw notFound(`Subscription ${subscriptionId}`);
  const notices = await noticesOf(db, subscriptionId);
  return {
    subscriptionId,
    lang: contact.lang,
    hasEmail: contact.email !== null,
    dunningScheduleId: (await dunningScheduleIdOf(db, subscriptionId)) ?? DEFAULT_DUNNING_SCHEDULE_ID,
    notices: notices.map((row) => ({
      noticeKey: row.notice_key,
      kind: row.kind,
      lang: row.lang,
      status: row.status,
      subject: row.subject,
      detail: row.detail,
      attempts: row.attempts,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
  };
}
