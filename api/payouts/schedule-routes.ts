/**
 * The recurring payout schedules' routes (docs/payout-runs.md, "Recurring runs"). Thin: the stories are in
 * payout-schedules.ts.
 */
import { z } from 'zod';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import { changeSchedule, createSchedule, scheduleView, schedulesView } from './payout-schedules';
import type { PayoutDeps } from './payout-runs';

const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;
const MAKERS = ['payouts-maker'] as const;
const scheduleParams = z.object({
  scheduleId: z.string().regex(/^sch-[0-9a-f]{10}$/, 'a schedule id like sch-0123456789'),
});
/** A monthly wall-clock time in GMT+7; days past the 28th exist only as 'last' (every month has one). */
const calendarBody = z
  .object({
    dayOfMonth: z.union([z.number().int().min(1).max(28), z.literal('last')]),
    hour: z.number().int().min(0).max(23),
    minute: z.number().int().min(0).max(59),
  })
  .strict();
const createBody = z
  .object({
    name: z.string().trim().min(1).max(200).meta(NOT_BLANK),
    calendar: calendarBody,
    rows: z
      .string()
      .min(1)
      .max(5_000_000)
      .meta({ description: "The payee list as a payout file's CSV (header row first); amounts are fixed." }),
  })
  .strict();
const auditOf = (action: string) => ({
  action: `payout_schedule.${action}`,
  target: 'payout_schedule',
  targetOf: (params: Record<string, string>) => params.scheduleId ?? '',
});

export function payoutScheduleRoutes(deps: PayoutDeps): AnyRoute[] {
  const change = (action: 'pause' | 'resume' | 'delete', summary: string) =>
    defineRoute({
      method: 'post',
      path: `/v1/payout-schedules/:scheduleId/${action}`,
      summary,
      tag: 'payouts',
      access: { roles: MAKERS },
      audit: auditOf(action),
      params: scheduleParams,
      responseStatus: 200,
      handler: async ({ params, audit, principal }) => ({
        body: await changeSchedule(deps, params.scheduleId, action, audit, principal),
      }),
    });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payout-schedules',
      summary:
        'Save a recurring payout run: a name, a monthly GMT+7 calendar (dayOfMonth 1–28 or last, hour, minute) and the payee rows as payout-file CSV (checked as an upload is; 422 invalid_payout_file names each row). Each occurrence makes an ordinary run awaiting approval.',
      tag: 'payouts',
      access: { roles: MAKERS },
      audit: { action: 'payout_schedule.create', target: 'payout_schedule' },
      body: createBody,
      handler: async ({ body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        return { body: await createSchedule(deps, { ...body, principal, audit }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-schedules',
      summary: 'Recurring payout schedules (not deleted), newest first, each with its next occurrences.',
      tag: 'payouts',
      access: { roles: READERS },
      handler: async () => ({ body: await schedulesView(deps) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-schedules/:scheduleId',
      summary: 'One recurring payout schedule: its rows, next occurrences and the runs its occurrences made.',
      tag: 'payouts',
      access: { roles: READERS },
      params: scheduleParams,
      handler: async ({ params, principal }) => ({
        body: await scheduleView(deps, params.scheduleId, principal),
      }),
    }),
    change('pause', 'Pause a recurring payout schedule: no occurrence makes a run until it is resumed.'),
    change('resume', 'Resume a paused recurring payout schedule.'),
    change('delete', 'Delete a recurring payout schedule; runs it already made are left as they are.'),
  ];
}
