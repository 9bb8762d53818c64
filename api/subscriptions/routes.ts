import { z } from 'zod';
import { NOT_BLANK } from '../http/openapi';
import { beyondSchema } from '../http/errors';
import { SUBSCRIPTION_FREQUENCIES, SUBSCRIPTION_MIN_AMOUNT } from '../../gateway/limits';
import { calendarDay } from '../http/dates';
import { listQuery } from '../http/list-query';
import { maskCustomer, seesInFull } from '../http/masking';
import { defineRoute, type AnyRoute } from '../http/routes';
import { userIdField } from '../order-ids';
import {
  createSubscription,
  listSubscriptionSummaries,
  manageSubscription,
  reportCycleAmount,
  subscriptionView,
  type SubscriptionDeps,
} from './subscriptions';

const WRITERS = ['billing'] as const;
const READERS = ['viewer', 'billing'] as const;

const date = calendarDay('a real date written YYYY-MM-DD');
/** The initial orderId; its charges (`-c<cycle>`, `-c<cycle>-r<n>`) and manage calls (`-m<n>`) fit 50 too. */
const subscriptionId = userIdField('subscription');

/** Document 2: subscriptionInfo and the creation amount (0, or ≥ 1000 which also charges now). */
const createBody = z
  .object({
    subscriptionId,
    partnerClientId: z
      .string()
      .min(1)
      .max(50)
      .regex(/^[0-9a-zA-Z]([-_.@]*[0-9a-zA-Z]+)*$/, 'letters and digits'),
    amount: z
      .number()
      .int()
      .min(0)
      .meta({ anyOf: [{ const: 0 }, { minimum: SUBSCRIPTION_MIN_AMOUNT }] }),
    orderInfo: z.string().max(200).default(''),
    subscriptionInfo: z.strictObject({
      name: z.string().trim().min(1).meta(NOT_BLANK).max(100),
      partnerSubsId: z.string().max(100).optional(),
      subsOwner: z.string().max(100).optional(),
      type: z.enum(['FIXED', 'VARIABLE']),
      recurringAmount: z.number().int().min(SUBSCRIPTION_MIN_AMOUNT),
      frequency: z.enum(SUBSCRIPTION_FREQUENCIES),
      nextPaymentDate: date.optional(),
      expiryDate: date.optional(),
    }),
  })
  .superRefine((body, context) => {
    const info = body.subscriptionInfo;
    if (body.amount > 0 && body.amount < SUBSCRIPTION_MIN_AMOUNT)
      context.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `0 (free trial or later start) or at least ${SUBSCRIPTION_MIN_AMOUNT}`,
      });
    if (body.amount === 0 && !info.nextPaymentDate)
      context.addIssue({
        code: 'custom',
        path: ['subscriptionInfo', 'nextPaymentDate'],
        message: 'required for a free trial or a later start (amount 0)',
      });
    if (info.type === 'FIXED' && body.amount > 0 && body.amount !== info.recurringAmount)
      context.addIssue({
        code: 'custom',
        path: ['amount'],
        message: 'a FIXED subscription charges its recurringAmount',
        params: beyondSchema('fixed_amount'),
      });
    if (info.nextPaymentDate && info.expiryDate && info.expiryDate <= info.nextPaymentDate)
      context.addIssue({
        code: 'custom',
        path: ['subscriptionInfo', 'expiryDate'],
        message: 'must be after nextPaymentDate',
        params: beyondSchema('after_next_payment_date'),
      });
  })
  // The rules above that JSON Schema can state: amount 0 or at least the minimum, and a first payment date
  // when nothing is charged now (the FIXED amount and the date order answer 422 when broken).
  .meta({
    anyOf: [
      { properties: { amount: { minimum: 1 } } },
      { properties: { subscriptionInfo: { required: ['nextPaymentDate'] } } },
    ],
  });

const manageBody = z.object({ reason: z.string().max(200).optional() });
const params = z.object({ subscriptionId: z.string().max(50) });

export function subscriptionRoutes(deps: SubscriptionDeps): AnyRoute[] {
  const manage = (action: 'pause' | 'cancel' | 'reactivate', summary: string) =>
    defineRoute({
      method: 'post',
      path: `/v1/subscriptions/:subscriptionId/${action}`,
      summary,
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: `subscription.${action}`, target: 'subscription' },
      params,
      body: manageBody,
      responseStatus: 200,
      handler: async ({ params: path, body, principal }) => ({
        body: await manageSubscription(deps, path.subscriptionId, action, {
          by: principal.name,
          ...(body.reason ? { reason: body.reason } : {}),
        }),
      }),
    });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/subscriptions',
      summary:
        'Create a subscription; answers the customer authorization links (payUrl, deeplink, qrCodeUrl).',
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'subscription.create', target: 'subscription' },
      idempotent: true,
      body: createBody,
      handler: async ({ body, principal, create }) => ({
        body: await createSubscription(deps, { ...body, principal, create }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions',
      summary: 'Subscriptions, newest first, with status and the reason when paused or stopped.',
      tag: 'subscriptions',
      access: { roles: READERS },
      query: listQuery,
      handler: async ({ query, principal }) => {
        const page = await listSubscriptionSummaries(deps.db, query);
        const full = seesInFull(principal, WRITERS);
        return {
          body: {
            subscriptions: page.rows.map((row) => maskCustomer(row, full)),
            nextOffset: page.nextOffset,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions/:subscriptionId',
      summary:
        'A subscription with the amount of its next charge (nextChargeAmount: null when a VARIABLE cycle has none reported, or billing has ended) and every charge (cycle, date, amount, result code, transId, and who charged it: chargedBy `billing_run` with billingRunId, billingChunk and billingRunWorkflowId, the Temporal workflow id of the run, or `subscription` with those null).',
      tag: 'subscriptions',
      access: { roles: READERS },
      params,
      handler: async ({ params: path, principal }) => ({
        body: maskCustomer(
          await subscriptionView(deps.db, path.subscriptionId),
          seesInFull(principal, WRITERS),
        ),
      }),
    }),
    manage('pause', 'Pause an active subscription (subscription/manage pause).'),
    manage('cancel', 'Cancel a subscription permanently (subscription/manage cancel).'),
    manage('reactivate', 'Reactivate a paused subscription: answers the payUrl the customer confirms at.'),
    defineRoute({
      method: 'post',
      path: '/v1/subscriptions/:subscriptionId/cycle-amount',
      summary: 'VARIABLE: the amount of the next (or a given) cycle, 1000..recurringAmount, before its date.',
      tag: 'subscriptions',
      access: { roles: WRITERS },
      audit: { action: 'subscription.set_amount', target: 'subscription' },
      params,
      body: z.object({ amount: z.number().int(), cycle: z.number().int().min(1).optional() }),
      responseStatus: 200,
      handler: async ({ params: path, body }) => ({
        body: await reportCycleAmount(deps, path.subscriptionId, body),
      }),
    }),
  ];
}
