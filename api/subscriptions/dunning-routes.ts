import { z } from 'zod';
import { DUNNING_LIMITS, NOTICE_LANGS } from '../../contracts/subscriptions';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import {
  assignDunningSchedule,
  assignNoticeContact,
  createDunningSchedule,
  dunningSchedules,
  dunningScheduleView,
  noticesView,
} from './dunning';
import type { SubscriptionDeps } from './subscriptions';

const WRITERS = ['billing'] as const;
const READERS = ['viewer', 'billing'] as const;

const whole = (limits: { min: number; max: number }) => z.number().int().min(limits.min).max(limits.max);

/** Exactly one way to time the retry: hours after the failure, or the next payday at an hour (GMT+7). */
const retry = z.union([
  z.strictObject({ afterHours: whole(DUNNING_LIMITS.afterHours) }),
  z.strictObject({
    onDayOfMonth: whole(DUNNING_LIMITS.onDayOfMonth),
    atHour: whole(DUNNING_LIMITS.atHour).default(9),
  }),
]);

const createBody = z.strictObject({
  name: z.string().trim().min(1).meta(NOT_BLANK).max(100),
  retry,
  noticeBeforeAttemptHours: whole(DUNNING_LIMITS.noticeBeforeAttemptHours).default(0),
  afterPause: z
    .strictObject({
      sendReactivationLink: z.boolean().default(false),
      remindEveryDays: whole(DUNNING_LIMITS.remindEveryDays).default(0),
      cancelAfterDays: whole(DUNNING_LIMITS.cancelAfterDays).default(0),
    })
    .default({ sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 0 }),
});

const scheduleParams = z.object({ dunningScheduleId: z.string().min(1).max(60) });
const subscriptionParams = z.object({ subscriptionId: z.string().max(50) });

export function dunningRoutes(deps: SubscriptionDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/dunning-schedules',
      summary:
        'Create a dunning schedule: when the one retry after insufficient funds runs (afterHours, or onDayOfMonth at atHour GMT+7), a notice noticeBeforeAttemptHours before each attempt, and what follows the pause (reactivation link, reminders every remindEveryDays, cancellation after cancelAfterDays; 0: none).',
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'dunning_schedule.create', target: 'dunning_schedule' },
      body: createBody,
      handler: async ({ body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const schedule = await createDunningSchedule(deps.db, body, principal.name);
        audit.note({ targetId: schedule.dunningScheduleId });
        return { body: schedule };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dunning-schedules',
      summary:
        'Dunning schedules, the default first (isDefault: one retry after SUBSCRIPTION_RETRY_DELAY_HOURS, no notices), then the newest.',
      tag: 'subscriptions',
      access: { roles: READERS },
      handler: async () => ({ body: { dunningSchedules: await dunningSchedules(deps) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dunning-schedules/:dunningScheduleId',
      summary: 'One dunning schedule (`default`: the schedule of subscriptions that have none).',
      tag: 'subscriptions',
      access: { roles: READERS },
      params: scheduleParams,
      handler: async ({ params }) => ({ body: await dunningScheduleView(deps, params.dunningScheduleId) }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/subscriptions/:subscriptionId/dunning-schedule',
      summary:
        "Put a subscription on a dunning schedule (`default` to go back); it applies from the subscription's next failure or notice. 422 for an unknown schedule, 409 once the subscription has ended.",
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'subscription.set_dunning_schedule', target: 'subscription' },
      params: subscriptionParams,
      body: z.strictObject({ dunningScheduleId: z.string().min(1).max(60) }),
      responseStatus: 200,
      handler: async ({ params, body, req }) => {
        refuseMissingBody(req, 'a JSON object');
        return { body: await assignDunningSchedule(deps, params.subscriptionId, body.dunningScheduleId) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/subscriptions/:subscriptionId/notice-contact',
      summary:
        "Where the subscriber's notices go (email; null: none are sent, each is recorded skipped) and their language (vi or en; vi by default).",
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'subscription.set_notice_contact', target: 'subscription' },
      params: subscriptionParams,
      body: z.strictObject({
        email: z.email().max(254).nullable(),
        lang: z.enum(NOTICE_LANGS as ['vi', 'en']).default('vi'),
      }),
      responseStatus: 200,
      handler: async ({ params, body, req }) => {
        refuseMissingBody(req, 'a JSON object');
        return { body: await assignNoticeContact(deps, params.subscriptionId, body) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions/:subscriptionId/notices',
      summary:
        "The notices sent to the subscriber, oldest first (kind, language, sent / failed / skipped, the mail server's answer), with the language and schedule they follow.",
      tag: 'subscriptions',
      access: { roles: READERS },
      params: subscriptionParams,
      handler: async ({ params }) => ({ body: await noticesView(deps.db, params.subscriptionId) }),
    }),
  ];
}
