import { z } from 'zod';
import { BINDING_AMOUNT_RANGES, inRange, rangeText } from '../../gateway/limits';
import { LINK_WALLET_CLIENT_ID_PATTERN } from '../../gateway/operations/shared';
import { listQueryFields } from '../http/list-query';
import { maskCustomer, seesInFull } from '../http/masking';
import { defineRoute, type AnyRoute } from '../http/routes';
import { userIdField } from '../order-ids';
import {
  bindingDetails,
  createSavedMethodPayment,
  deleteMethod,
  listMethods,
  listSavedMethodPayments,
  startBinding,
  submitOtp,
  savedMethodPaymentDetails,
  type SavedMethodDeps,
} from './saved-methods';

const WRITERS = ['payments'] as const;
const READERS = ['viewer', 'payments'] as const;

const bindingBody = z
  .object({
    kind: z.enum(['card', 'domestic', 'wallet']),
    partnerClientId: z.string().min(1).max(40),
    amount: z.number().int().default(0),
    orderInfo: z.string().max(200).default('Save payment method'),
    redirectUrl: z.url().max(200).optional(),
    userInfo: z
      .strictObject({
        name: z.string().max(100).optional(),
        email: z.email().optional(),
        phoneNumber: z
          .string()
          .regex(/^(0|\+84)[0-9]{8,11}$/, 'a phone number')
          .optional(),
        partnerClientAlias: z.string().max(100).optional(),
      })
      .default({}),
  })
  .superRefine((body, context) => {
    const range = BINDING_AMOUNT_RANGES[body.kind];
    if (body.amount !== 0 && !inRange(body.amount, range)) {
      context.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `${body.kind} binding: 0 (bind only) or ${rangeText(range)} VND (bind and pay)`,
      });
    }
    if (body.kind !== 'wallet' && !body.userInfo.email) {
      context.addIssue({
        code: 'custom',
        path: ['userInfo', 'email'],
        message: 'card binding needs the email',
      });
    }
    if (body.kind !== 'wallet' && body.userInfo.partnerClientAlias) {
      context.addIssue({
        code: 'custom',
        path: ['userInfo', 'partnerClientAlias'],
        message: 'wallet binding only',
      });
    }
    if (body.kind === 'wallet' && (body.userInfo.name || body.userInfo.email)) {
      context.addIssue({
        code: 'custom',
        path: ['userInfo'],
        message: 'wallet binding takes phoneNumber and partnerClientAlias',
      });
    }
    if (!LINK_WALLET_CLIENT_ID_PATTERN.test(body.partnerClientId)) {
      context.addIssue({
        code: 'custom',
        path: ['partnerClientId'],
        message: 'letters and digits, joined by - _ . or @',
      });
    }
  })
  // The rules above, stated in the OpenAPI document, one branch per kind.
  .meta({
    oneOf: (['card', 'domestic', 'wallet'] as const).map((kind) => ({
      properties: {
        kind: { const: kind },
        partnerClientId: { pattern: LINK_WALLET_CLIENT_ID_PATTERN.source },
        amount: {
          anyOf: [
            { const: 0 },
            {
              minimum: BINDING_AMOUNT_RANGES[kind][0],
              // An open range (no maximum) has none to state.
              ...(Number.isFinite(BINDING_AMOUNT_RANGES[kind][1])
                ? { maximum: BINDING_AMOUNT_RANGES[kind][1] }
                : {}),
            },
          ],
        },
        userInfo:
          kind === 'wallet'
            ? { not: { anyOf: [{ required: ['name'] }, { required: ['email'] }] } }
            : { required: ['email'], not: { required: ['partnerClientAlias'] } },
      },
      ...(kind === 'wallet' ? {} : { required: ['userInfo'] }),
    })),
  });

const paymentBody = z.object({
  paymentId: userIdField('saved_method_payment'),
  methodId: z.string().max(60),
  amount: z.number().int().positive(),
  description: z.string().max(200).default(''),
});

export function savedMethodRoutes(deps: SavedMethodDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/saved-method-bindings',
      formerPath: '/v1/bindings',
      summary:
        'Start saving a card (payWithCC), a domestic card (payWithATM) or binding a wallet (linkWallet); answers the customer links.',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'binding.create', target: 'binding' },
      idempotent: true,
      body: bindingBody,
      handler: async ({ body, principal, create }) => ({
        body: await startBinding(deps, {
          kind: body.kind,
          partnerClientId: body.partnerClientId,
          amount: body.amount,
          orderInfo: body.orderInfo,
          userInfo: Object.fromEntries(
            Object.entries(body.userInfo).filter(([, value]) => value !== undefined),
          ) as Record<string, string>,
          redirectUrl: body.redirectUrl,
          principal,
          create,
        }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/saved-method-bindings/:bindingId',
      formerPath: '/v1/bindings/:bindingId',
      summary: 'A binding: status, links, the saved method it produced.',
      tag: 'payments',
      access: { roles: READERS },
      params: z.object({ bindingId: z.string().max(60) }),
      handler: async ({ params, principal }) => ({
        body: maskCustomer(await bindingDetails(deps.db, params.bindingId), seesInFull(principal, WRITERS)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/customers/:partnerClientId/saved-methods',
      formerPath: '/v1/customers/:partnerClientId/methods',
      summary:
        "A customer's saved methods (display fields only; never the token). Only for roles that see customers in full (payments, admin): any other role is refused 403 whatever the id, so it cannot learn whether an id is a customer.",
      tag: 'payments',
      // Even a masked or empty list would tell a viewer whether the id it typed is a customer.
      access: { roles: WRITERS },
      params: z.object({ partnerClientId: z.string().max(60) }),
      query: z.object({ all: z.enum(['true', 'false']).default('false') }),
      handler: async ({ params, query, principal }) => {
        const methods = await listMethods(deps.db, params.partnerClientId, query.all === 'true');
        const full = seesInFull(principal, WRITERS);
        return { body: { methods: methods.map((method) => maskCustomer(method, full)) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/saved-methods/:methodId',
      formerPath: '/v1/methods/:methodId',
      summary: 'Delete a saved method (tokenization/delete); it is never used again.',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'saved_method.revoke', target: 'saved_method' },
      params: z.object({ methodId: z.string().max(60) }),
      handler: async ({ params }) => ({ body: await deleteMethod(deps, params.methodId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/saved-method-payments',
      formerPath: '/v1/token-payments',
      summary: 'Pay with a saved method; answers the first outcome (payUrl to redirect, or awaiting_otp).',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'token_payment.create', target: 'token_payment' },
      idempotent: true,
      body: paymentBody,
      handler: async ({ body, principal, create }) => ({
        body: await createSavedMethodPayment(deps, { ...body, principal, create }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/saved-method-payments',
      formerPath: '/v1/token-payments',
      summary: 'Saved-method payments, newest first (e.g. ?state=awaiting_otp).',
      tag: 'payments',
      access: { roles: READERS },
      query: z.object({ ...listQueryFields, state: z.string().max(40).optional() }),
      handler: async ({ query, principal }) => {
        const page = await listSavedMethodPayments(deps.db, {
          ...query,
          status: query.state ?? query.status,
        });
        const full = seesInFull(principal, WRITERS);
        return {
          body: { payments: page.rows.map((row) => maskCustomer(row, full)), nextOffset: page.nextOffset },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/saved-method-payments/:paymentId',
      formerPath: '/v1/token-payments/:paymentId',
      summary: 'A saved-method payment: state, result, OTP attempts (never the codes).',
      tag: 'payments',
      access: { roles: READERS },
      params: z.object({ paymentId: z.string().max(60) }),
      handler: async ({ params, principal }) => ({
        body: maskCustomer(
          await savedMethodPaymentDetails(deps.db, params.paymentId),
          seesInFull(principal, WRITERS),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/saved-method-payments/:paymentId/otp',
      formerPath: '/v1/token-payments/:paymentId/otp',
      summary:
        "The customer's two-factor code after 8200; answers the verification (422 wrong, 423 locked, 410 expired, 429 too soon).",
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'token_payment.submit_otp', target: 'token_payment' },
      params: z.object({ paymentId: z.string().max(60) }),
      body: z.object({ code: z.string().regex(/^[0-9]{4,8}$/, '4 to 8 digits') }),
      responseStatus: 200,
      handler: async ({ params, body }) => ({ body: await submitOtp(deps, params.paymentId, body.code) }),
    }),
  ];
}
