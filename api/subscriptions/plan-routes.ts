import { z } from 'zod';
import { SUBSCRIPTION_FREQUENCIES, SUBSCRIPTION_MIN_AMOUNT } from '../../gateway/limits';
import { dayOfGmt7, IF_NOT_REAUTHORIZED } from '../../contracts/subscriptions';
import { calendarDay } from '../http/dates';
import { beyondSchema } from '../http/errors';
import { refuseMissingBody } from '../http/missing-body';
import { NOT_BLANK } from '../http/openapi';
import { defineRoute, type AnyRoute } from '../http/routes';
import { userIdField } from '../order-ids';
import {
  archive,
  assignPlanDunningSchedule,
  createPlan,
  planView,
  requirePlan,
  subscribeToPlan,
} from './plans';
import { plansWithCounts } from './plan-overview';
import {
  planPriceChangeOf,
  previewPriceChange,
  priceChangesView,
  schedulePriceChange,
  startPlanPriceChange,
} from './price-changes';
import { revenueView } from './revenue';
import type { SubscriptionDeps } from './subscriptions';

const WRITERS = ['billing'] as const;
const READERS = ['viewer', 'billing'] as const;

const planCode = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'letters, digits, - and _');
const planParams = z.object({ planId: z.string().max(40) });
const subscriptionParams = z.object({ subscriptionId: z.string().max(50) });
const day = calendarDay('a real date written YYYY-MM-DD');
/** At most ten years of months in one answer. */
const revenueQuery = z
  .object({ period: z.enum(['month']).default('month'), from: day, to: day })
  .superRefine((query, context) => {
    if (query.to < query.from)
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: 'must not be before from',
        params: beyondSchema('not_before_from'),
      });
    if (Number(query.to.slice(0, 4)) - Number(query.from.slice(0, 4)) > 10)
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: 'at most ten years after from',
        params: beyondSchema('at_most_ten_years'),
      });
  });
const planName = z.string().trim().min(1).meta(NOT_BLANK).max(100);

const createPlanBody = z.strictObject({
  code: planCode,
  name: z.strictObject({ en: planName, vi: planName }),
  amount: z.number().int().min(SUBSCRIPTION_MIN_AMOUNT),
  currency: z.literal('VND'),
  frequency: z.enum(SUBSCRIPTION_FREQUENCIES),
  type: z.enum(['FIXED', 'VARIABLE']),
  trialDays: z.number().int().min(1).max(365).optional(),
  dunningScheduleId: z.string().min(1).max(60).optional(),
});

/** effectiveCycle must be a future day: a rule the document cannot state, so 422 when only it is broken. */
const priceChangeBody = (now: () => number) =>
  z
    .strictObject({
      newAmount: z.number().int().min(SUBSCRIPTION_MIN_AMOUNT),
      effectiveCycle: calendarDay('a real date written YYYY-MM-DD'),
      ifNotReauthorized: z.enum(IF_NOT_REAUTHORIZED),
    })
    .superRefine((body, context) => {
      if (body.effectiveCycle <= dayOfGmt7(now()))
        context.addIssue({
          code: 'custom',
          path: ['effectiveCycle'],
          message: 'must be a future day (GMT+7)',
          params: beyondSchema('future_date'),
        });
    });

const planSubscriptionBody = z.strictObject({
  subscriptionId: userIdField('subscription'),
  partnerClientId: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[0-9a-zA-Z]([-_.@]*[0-9a-zA-Z]+)*$/, 'letters and digits'),
  orderInfo: z.string().max(200).default(''),
  partnerSubsId: z.string().max(100).optional(),
  subsOwner: z.string().max(100).optional(),
  expiryDate: calendarDay('a real date written YYYY-MM-DD').optional(),
});

export function planRoutes(deps: SubscriptionDeps & { now?: () => number }): AnyRoute[] {
  const now = deps.now ?? Date.now;
  const body = priceChangeBody(now);
  const priceChangeRoutes = (scope: 'plan' | 'subscription') => {
    const base = scope === 'plan' ? '/v1/plans/:planId' : '/v1/subscriptions/:subscriptionId';
    const params = scope === 'plan' ? planParams : subscriptionParams;
    const scopeOf = (path: Record<string, string>) =>
      scope === 'plan' ? { planId: path.planId! } : { subscriptionId: path.subscriptionId! };
    const reached =
      scope === 'plan' ? "the plan's FIXED subscriptions still billed then" : 'this FIXED subscription';
    return [
      defineRoute({
        method: 'post',
        path: `${base}/price-changes/preview`,
        summary: `Who a price change reaches (${reached}) and what each is charged on its first cycle on or after effectiveCycle; changes nothing.`,
        tag: 'subscriptions',
        access: { roles: WRITERS },
        params,
        body,
        responseStatus: 200,
        handler: async ({ params: path, body: request, req }) => {
          refuseMissingBody(req, 'a JSON object');
          return { body: await previewPriceChange(deps, scopeOf(path), request) };
        },
      }),
      scope === 'plan'
        ? defineRoute({
            method: 'post',
            path: `${base}/price-changes`,
            summary:
              "Change a plan's price from a cycle (its FIXED subscriptions still billed then, and new subscriptions from now on): recorded and handed to a workflow that applies it to each subscription as a one-subscription change would be (a rise or a fall above or below the authorized recurringAmount asks the customer to authorize again; without it, ifNotReauthorized). Answers 202 with the change's id and progress (total, applied, failed, waiting); GET it to follow. An Idempotency-Key is required: its retry starts nothing twice. 409 plan_price_change_running while another change of the plan is being applied.",
            tag: 'subscriptions',
            access: { roles: WRITERS },
            audit: {
              action: 'plan.price_change',
              target: 'plan',
              targetOf: (path: Record<string, string>) => path.planId ?? '',
            },
            idempotent: 'required',
            params: planParams,
            body,
            responseStatus: 202,
            handler: async ({ params: path, body: request, principal, audit, req, create }) => {
              refuseMissingBody(req, 'a JSON object');
              const started = await startPlanPriceChange(deps, path.planId, request, principal, create!);
              audit.note({
                details: {
                  planPriceChangeId: started.planPriceChangeId,
                  newAmount: request.newAmount,
                  effectiveCycle: request.effectiveCycle,
                  subscriptions: started.total,
                },
              });
              return { body: started };
            },
          })
        : defineRoute({
            method: 'post',
            path: `${base}/price-changes`,
            summary: `Schedule a price change for ${reached}: a decrease (or a rise within the authorized recurringAmount) applies from its cycle; a rise above it asks the customer to authorize again (link, notice, reminders), and without it charges the old amount or flags the subscription (ifNotReauthorized).`,
            tag: 'subscriptions',
            access: { roles: WRITERS },
            audit: {
              action: 'subscription.price_change',
              target: 'subscription',
              targetOf: (path: Record<string, string>) => path.subscriptionId ?? '',
            },
            params: subscriptionParams,
            body,
            responseStatus: 201,
            handler: async ({ params: path, body: request, principal, audit, req }) => {
              refuseMissingBody(req, 'a JSON object');
              const scheduled = await schedulePriceChange(
                deps,
                { subscriptionId: path.subscriptionId },
                request,
                principal,
              );
              audit.note({
                details: {
                  newAmount: request.newAmount,
                  effectiveCycle: request.effectiveCycle,
                  subscriptions: scheduled.subscriptions.length,
                },
              });
              return { body: scheduled };
            },
          }),
    ];
  };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/plans',
      summary:
        'Create a plan (code, names in English and Vietnamese, amount in VND, frequency, FIXED or VARIABLE, optional trialDays, optional dunningScheduleId its subscriptions follow) that new subscriptions reference. 422 for an unknown schedule.',
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'plan.create', target: 'plan' },
      body: createPlanBody,
      handler: async ({ body: plan, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        audit.note({ targetId: plan.code });
        return { body: await createPlan(deps, { ...plan, principal }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/plans',
      summary:
        'Every plan, active first, with subscriptionCount: total (every subscription created from it) and billing (those not ended).',
      tag: 'subscriptions',
      access: { roles: READERS },
      handler: async () => ({ body: await plansWithCounts(deps) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/plans/:planId',
      summary: 'One plan.',
      tag: 'subscriptions',
      access: { roles: READERS },
      params: planParams,
      handler: async ({ params: path }) => ({ body: planView(await requirePlan(deps, path.planId)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/plans/:planId/archive',
      summary: 'Archive a plan: it takes no new subscriptions; its subscriptions go on billing.',
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'plan.archive', target: 'plan' },
      params: planParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params: path, req }) => {
        refuseMissingBody(req, 'a JSON object');
        return { body: await archive(deps, path.planId) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/plans/:planId/dunning-schedule',
      summary:
        "The dunning schedule the plan's new subscriptions follow (`default` to go back); its existing subscriptions keep theirs. 422 for an unknown schedule.",
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'plan.set_dunning_schedule', target: 'plan' },
      params: planParams,
      body: z.strictObject({ dunningScheduleId: z.string().min(1).max(60) }),
      responseStatus: 200,
      handler: async ({ params: path, body: request, req }) => {
        refuseMissingBody(req, 'a JSON object');
        return { body: await assignPlanDunningSchedule(deps, path.planId, request.dunningScheduleId) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/plans/:planId/subscriptions',
      summary:
        "Subscribe a customer to a plan: amount, frequency and type come from the plan, and the customer's authorization carries its amount as recurringAmount; a trial (or a VARIABLE plan) starts billing after it. Answers the customer's links.",
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: {
        action: 'subscription.create',
        target: 'subscription',
        targetOf: () => '',
      },
      idempotent: true,
      params: planParams,
      body: planSubscriptionBody,
      handler: async ({ params: path, body: request, principal, create, audit }) => {
        audit.note({ targetId: request.subscriptionId, details: { planId: path.planId } });
        return {
          body: await subscribeToPlan(deps, path.planId, { ...request, principal, create }, now()),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/revenue',
      summary:
        'Revenue figures, in total and per plan: MRR in VND (FIXED subscriptions billing now, each cycle amount normalised to a month: DAILY × 365/12, WEEKLY × 52/12, BI_WEEKLY × 26/12, MONTHLY × 1, BI_MONTHLY ÷ 2, QUARTERLY ÷ 3, SEMI_ANNUALLY ÷ 6), subscriptions active / paused / cancelled, and per GMT+7 month from..to: new and churned subscriptions, cycles charged, VND collected, failed cycles and the share a later attempt recovered.',
      tag: 'subscriptions',
      access: { roles: READERS },
      query: revenueQuery,
      handler: async ({ query }) => ({ body: await revenueView(deps.db, query) }),
    }),
    ...priceChangeRoutes('plan'),
    defineRoute({
      method: 'get',
      path: '/v1/plans/:planId/price-changes/:planPriceChangeId/progress',
      summary:
        "One price change of a plan and how far it got: total subscriptions it reaches, applied (taken by the subscription's workflow), failed (refused by it), waiting; status applying, then done.",
      tag: 'subscriptions',
      access: { roles: READERS },
      params: z.object({ planId: z.string().max(40), planPriceChangeId: z.string().max(60) }),
      handler: async ({ params: path }) => ({
        body: await planPriceChangeOf(deps, path.planId, path.planPriceChangeId),
      }),
    }),
    ...priceChangeRoutes('subscription'),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions/:subscriptionId/price-changes',
      summary:
        "A subscription's price changes (status: scheduled, awaiting_authorization, authorized, applied, charged_old, flagged, superseded, refused) and the notices it was sent.",
      tag: 'subscriptions',
      access: { roles: READERS },
      params: subscriptionParams,
      handler: async ({ params: path }) => ({ body: await priceChangesView(deps, path.subscriptionId) }),
    }),
  ];
}
