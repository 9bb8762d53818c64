import { z } from 'zod';
import {
  inRange,
  parseRedirectQuery,
  PAYMENT_AMOUNT_RANGES,
  rangeText,
  REFUND_AMOUNT_RANGE,
  type SigningKeys,
} from '../../gateway';
import { findPaymentByOrderId } from '../../db/payments/payments';
import { paymentReturnPath } from '../../platform/ipn-paths';
import { ApiError, beyondSchema } from '../http/errors';
import { listQueryFields } from '../http/list-query';
import { defineRoute, type AnyRoute } from '../http/routes';
import {
  confirmPayment,
  createPayment,
  getPayment,
  listPayments,
  listRefunds,
  refundPayment,
  settleTerminal,
  type PaymentDeps,
} from './payments';
import { renderReturnPage } from './return-page';
import { userIdField } from '../order-ids';

const WRITERS = ['payments'] as const;
// payouts-approver approves refunds under the default policy, so it reads payments too (masked, as a viewer).
const READERS = ['viewer', 'payments', 'payouts-approver'] as const;

/** The payment id is the gateway orderId (its refunds' too, with `-r<seq>`): gateway/ids.ts. */
const paymentId = userIdField('payment');

const item = z.strictObject({
  id: z.string().max(100).optional(),
  name: z.string().max(255),
  description: z.string().max(1000).optional(),
  category: z.string().max(100).optional(),
  imageUrl: z.url().optional(),
  manufacturer: z.string().max(255).optional(),
  price: z.number().int().min(0),
  currency: z.literal('VND').optional(),
  quantity: z.number().int().min(1),
  unit: z.string().max(50).optional(),
  totalPrice: z.number().int().min(0),
  taxAmount: z.number().int().min(0).optional(),
});
const methodItem = z.strictObject({
  image: z.string().optional(),
  name: z.string().max(255),
  quantity: z.number().int().min(1),
  amount: z.number().int().min(0),
});
const userInfo = z.strictObject({
  name: z.string().max(255).optional(),
  phoneNumber: z.string().max(20).optional(),
  email: z.email().optional(),
});
const userInfoWithEmail = userInfo.extend({ email: z.email() });
const deliveryInfo = z.strictObject({
  deliveryAddress: z.string().optional(),
  deliveryFee: z.string().optional(),
  quantity: z.string().optional(),
  inStorePickup: z.boolean().optional(),
});
/** Key/value pairs; sent as Base64 JSON (document 1), at most 1000 characters encoded. */
const extraData = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const common = {
  paymentId,
  amount: z.number().int(),
  orderInfo: z.string().max(255).default(''),
  extraData: extraData.optional(),
  items: z.array(item).max(50).optional(),
  deliveryInfo: deliveryInfo.optional(),
  userInfo: userInfo.optional(),
  referenceId: z.string().max(200).optional(),
  autoCapture: z.boolean().default(true),
  lang: z.enum(['vi', 'en']).default('vi'),
};

/** The amount of one requestType: checked by `checkAmountAndExtra` (one message), stated for the OpenAPI. */
const amountOf = (requestType: keyof typeof PAYMENT_AMOUNT_RANGES) =>
  z.number().int().meta({
    minimum: PAYMENT_AMOUNT_RANGES[requestType][0],
    maximum: PAYMENT_AMOUNT_RANGES[requestType][1],
  });

const createBody = z
  .discriminatedUnion('requestType', [
    z.strictObject({ requestType: z.literal('captureWallet'), ...common, amount: amountOf('captureWallet') }),
    z.strictObject({
      requestType: z.literal('payWithCC'),
      ...common,
      amount: amountOf('payWithCC'),
      userInfo: userInfoWithEmail,
    }),
    z.strictObject({
      requestType: z.literal('payWithPlatformPayA'),
      ...common,
      amount: amountOf('payWithPlatformPayA'),
      userInfo: userInfoWithEmail,
    }),
    z.strictObject({
      requestType: z.literal('payWithPlatformPayB'),
      ...common,
      amount: amountOf('payWithPlatformPayB'),
      userInfo: userInfoWithEmail,
    }),
    z.strictObject({ requestType: z.literal('onDelivery'), ...common, amount: amountOf('onDelivery') }),
    z.strictObject({ requestType: z.literal('payWithVTS'), ...common, amount: amountOf('payWithVTS') }),
    z.strictObject({
      requestType: z.literal('payWithEdc'),
      ...common,
      amount: amountOf('payWithEdc'),
      storeId: z.string().min(1).max(50),
      serialNumber: z.string().min(1).max(100).optional(),
      instrumentType: z.enum(['QR', 'CARD', '']).default(''),
    }),
    z.strictObject({
      requestType: z.literal('payWithMethod'),
      ...common,
      amount: amountOf('payWithMethod'),
      items: z.array(methodItem).max(50).optional(),
      orderExpireTime: z.number().int().min(0).optional(),
    }),
  ])
  .superRefine((body, context) => checkAmountAndExtra(body.requestType, body, context));

const posBody = z
  .strictObject({
    paymentId,
    storeId: z.string().min(1).max(50),
    storeName: z.string().max(255).optional(),
    amount: amountOf('pos'),
    /** The code scanned from the customer's app; payrun's gateway client RSA-encrypts it. */
    paymentCode: z.string().min(1).max(200),
    orderInfo: z.string().max(255).default(''),
    extraData: extraData.optional(),
    items: z.array(item).max(50).optional(),
    userInfo: userInfo.optional(),
    autoCapture: z.boolean().default(true),
    lang: z.enum(['vi', 'en']).default('vi'),
  })
  .superRefine((body, context) => checkAmountAndExtra('pos', body, context));

function encodeExtraData(value: Record<string, unknown> | undefined): string {
  return value ? Buffer.from(JSON.stringify(value), 'utf8').toString('base64') : '';
}

function checkAmountAndExtra(
  requestType: keyof typeof PAYMENT_AMOUNT_RANGES,
  body: { amount: number; extraData?: Record<string, unknown> },
  context: z.RefinementCtx,
) {
  const range = PAYMENT_AMOUNT_RANGES[requestType];
  if (!inRange(body.amount, range)) {
    context.addIssue({
      code: 'custom',
      path: ['amount'],
      message: `for ${requestType} the amount must be ${rangeText(range)} VND`,
    });
  }
  if (encodeExtraData(body.extraData).length > 1000) {
    context.addIssue({
      code: 'custom',
      path: ['extraData'],
      message: 'at most 1000 characters as Base64 JSON',
    });
  }
}

const refundBody = z
  .strictObject({
    amount: z.number().int().min(REFUND_AMOUNT_RANGE[0]).max(REFUND_AMOUNT_RANGE[1]),
    description: z.string().max(255).default(''),
    /** Per-item refund (buy-now-pay-later transGroup): the item amounts add up to `amount`. */
    items: z
      .array(z.strictObject({ itemId: z.string().min(1).max(100), amount: z.number().int().min(1) }))
      .max(50)
      .default([]),
  })
  .superRefine((body, context) => {
    const sum = body.items.reduce((total, entry) => total + entry.amount, 0);
    if (body.items.length > 0 && sum !== body.amount) {
      context.addIssue({
        code: 'custom',
        path: ['items'],
        message: `items add up to ${sum}, not ${body.amount}`,
        params: beyondSchema('sum_of_items'),
      });
    }
    if (new Set(body.items.map((entry) => entry.itemId)).size !== body.items.length) {
      context.addIssue({
        code: 'custom',
        path: ['items'],
        message: 'item ids must be unique',
        params: beyondSchema('unique_item_ids'),
      });
    }
  });

export function paymentRoutes(deps: PaymentDeps, merchant: SigningKeys): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payments',
      summary:
        'Create a one-time payment of any document-1 requestType; answers the links the customer pays with.',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'payment.create', target: 'payment' },
      idempotent: true,
      body: createBody,
      handler: async ({ body, principal, create }) => {
        const { paymentId: id, requestType, amount, orderInfo, autoCapture } = body;
        const {
          extraData: extra,
          paymentId: _p,
          requestType: _r,
          amount: _a,
          orderInfo: _o,
          autoCapture: _c,
          ...rest
        } = body;
        const { storeId, serialNumber, instrumentType, ...details } = rest as typeof rest & {
          storeId?: string;
          serialNumber?: string;
          instrumentType?: string;
        };
        return createPayment(deps, {
          paymentId: id,
          requestType,
          amount,
          orderInfo,
          extraData: encodeExtraData(extra),
          autoCapture,
          details,
          principal,
          create,
          ...(storeId !== undefined ? { storeId } : {}),
          ...(serialNumber !== undefined ? { serialNumber } : {}),
          ...(instrumentType !== undefined ? { instrumentType } : {}),
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/pos-payments',
      summary: 'POS quick pay: charge the payment code the cashier scanned from the customer app.',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'payment.create_pos', target: 'payment' },
      idempotent: true,
      body: posBody,
      handler: async ({ body, principal, create }) => {
        const {
          paymentId: id,
          amount,
          orderInfo,
          autoCapture,
          paymentCode,
          storeId,
          extraData: extra,
          ...details
        } = body;
        return createPayment(deps, {
          paymentId: id,
          requestType: 'pos',
          amount,
          orderInfo,
          extraData: encodeExtraData(extra),
          autoCapture,
          storeId,
          details,
          paymentCode,
          principal,
          create,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payments',
      summary: 'One-time payments, newest first.',
      tag: 'payments',
      access: { roles: READERS },
      query: z.object({ ...listQueryFields, requestType: z.string().max(40).optional() }),
      handler: async ({ query }) => {
        const page = await listPayments(deps.db, query);
        return { body: { payments: page.rows, nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payments/:paymentId',
      summary: 'A payment: status, links, transId, payType, promotions, refunded and refundable amounts.',
      tag: 'payments',
      access: { roles: READERS },
      params: z.object({ paymentId: z.string().max(64) }),
      handler: async ({ params }) => ({ body: await getPayment(deps.db, params.paymentId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payments/:paymentId/refunds',
      summary:
        'Refund all or part of a succeeded payment (optionally per item); never more than what is left to refund. Idempotency-Key required (payrun numbers refunds itself).',
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'payment.refund', target: 'payment' },
      idempotent: 'required',
      params: z.object({ paymentId: z.string().max(64) }),
      body: refundBody,
      handler: async ({ params, body, principal, create }) => ({
        status: 201,
        body: await refundPayment(deps, { paymentId: params.paymentId, ...body, principal, create }),
      }),
    }),
    ...(['capture', 'cancel'] as const).map((action) =>
      defineRoute({
        method: 'post',
        path: `/v1/payments/:paymentId/${action}`,
        summary:
          action === 'capture'
            ? 'Capture an authorized payment (autoCapture false): the whole authorized amount, once, within the hold.'
            : 'Cancel an authorized payment (autoCapture false): the held money goes back to the customer.',
        tag: 'payments',
        access: { roles: WRITERS },
        audit: { action: `payment.${action}`, target: 'payment' },
        params: z.object({ paymentId: z.string().max(64) }),
        body: z.strictObject({}),
        responseStatus: 200,
        handler: async ({ params, principal }) => ({
          body: await confirmPayment(deps, { paymentId: params.paymentId, action, principal }),
        }),
      }),
    ),
    defineRoute({
      method: 'get',
      path: '/v1/payments/:paymentId/refunds',
      summary: 'The refunds of a payment, in order, with per-item states.',
      tag: 'payments',
      access: { roles: READERS },
      params: z.object({ paymentId: z.string().max(64) }),
      handler: async ({ params }) => ({ body: { refunds: await listRefunds(deps.db, params.paymentId) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/terminals/settle',
      summary:
        "Settle a card terminal's card transactions (card/settle); payrun then refuses API refunds of them.",
      tag: 'payments',
      access: { roles: WRITERS },
      audit: { action: 'terminal.settle', target: 'terminal' },
      idempotent: true,
      body: z.object({ storeId: z.string().min(1).max(50), serialNumber: z.string().min(1).max(100) }),
      handler: async ({ body, principal }) => ({
        status: 201,
        body: await settleTerminal(deps, { ...body, principal }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: paymentReturnPath,
      summary:
        "Where the customer's browser lands after paying: verifies the signature and shows the result. Changes nothing.",
      tag: 'payments',
      access: {
        public: 'the customer presents no key; the parameters are signed by the gateway and verified',
      },
      produces: { types: ['text/html'], errors: true },
      handler: async ({ req }) => {
        const query = req.query as Record<string, string | string[] | undefined>;
        const orderId = typeof query.orderId === 'string' ? query.orderId : '';
        const payment = orderId ? await findPaymentByOrderId(deps.db, orderId) : undefined;
        let page: { status: number; html: string };
        try {
          if (!payment) throw new ApiError('unknown_order', 'unknown order');
          const kind = payment.request_type === 'payWithCC' ? 'payment.resultB' : 'payment.resultA';
          const verified = parseRedirectQuery(kind, query, merchant);
          const fields = verified.fields as Record<string, unknown>;
          if (Number(fields.amount) !== Number(payment.amount)) throw new ApiError('amount', 'amount');
          page = {
            status: 200,
            html: renderReturnPage({
              verified: true,
              orderId,
              amount: Number(payment.amount),
              resultCode: Number(fields.resultCode),
              message: String(fields.message ?? ''),
              recordedStatus: payment.status,
            }),
          };
        } catch {
          page = { status: 400, html: renderReturnPage({ verified: false }) };
        }
        return {
          status: page.status,
          body: page.html,
          contentType: 'text/html; charset=utf-8',
          headers: { 'cache-control': 'no-store' },
        };
      },
    }),
  ];
}
