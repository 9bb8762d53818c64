import { z } from 'zod';
import { NOT_BLANK } from '../http/openapi';
import { DISBURSEMENT_AMOUNT_RANGES, inRange, rangeText } from '../../gateway/limits';
import { listQuery } from '../http/list-query';
import { defineRoute, type AnyRoute } from '../http/routes';
import { userIdField } from '../order-ids';
import {
  createDisbursement,
  disbursementView,
  listDisbursements,
  type DisbursementDeps,
} from './disbursements';

const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;

const wallet = z.strictObject({
  walletId: z.string().regex(/^0[0-9]+$/, 'a wallet number: 0 then digits'),
  walletName: z.string().trim().min(1).meta(NOT_BLANK),
  personalId: z
    .string()
    .regex(/^[0-9]{1,12}$/, 'up to 12 digits')
    .nullable()
    .default(null),
});
const bank = z
  .strictObject({
    bankAccountNo: z
      .string()
      .regex(/^[0-9]{4,30}$/, 'digits')
      .optional(),
    bankCardNo: z
      .string()
      .regex(/^[0-9]{12,19}$/, 'a card number of 12 to 19 digits')
      .optional(),
    bankAccountHolderName: z.string().trim().min(1).meta(NOT_BLANK),
    bankCode: z.string().trim().min(1).meta(NOT_BLANK).max(20),
  })
  .refine((value) => Boolean(value.bankAccountNo) !== Boolean(value.bankCardNo), {
    message: 'give exactly one of bankAccountNo or bankCardNo',
    path: ['bankAccountNo'],
  })
  // The same rule, stated in the OpenAPI document.
  .meta({ oneOf: exactlyOneOf('bankAccountNo', 'bankCardNo') });

/** JSON Schema for "exactly one of these two properties". */
function exactlyOneOf(first: string, second: string) {
  return [
    { required: [first], not: { required: [second] } },
    { required: [second], not: { required: [first] } },
  ];
}

const amountRange = (range: readonly [number, number]) => ({ minimum: range[0], maximum: range[1] });

const createBody = z
  .object({
    disbursementId: userIdField('disbursement'),
    amount: z.number().int(),
    description: z.string().max(255).default(''),
    wallet: wallet.optional(),
    bank: bank.optional(),
  })
  .superRefine((body, context) => {
    if (Boolean(body.wallet) === Boolean(body.bank)) {
      context.addIssue({
        code: 'custom',
        path: ['wallet'],
        message: 'give exactly one receiver: wallet or bank',
      });
      return;
    }
    const range = DISBURSEMENT_AMOUNT_RANGES[body.wallet ? 'disburseToWallet' : 'disburseToBank'];
    if (!inRange(body.amount, range)) {
      context.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `to a ${body.wallet ? 'wallet' : 'bank'} the amount must be ${rangeText(range)} VND`,
      });
    }
  })
  // The cross-field rules above, stated in the OpenAPI document: one receiver, and its amount range.
  .meta({
    oneOf: [
      {
        required: ['wallet'],
        not: { required: ['bank'] },
        properties: { amount: amountRange(DISBURSEMENT_AMOUNT_RANGES.disburseToWallet) },
      },
      {
        required: ['bank'],
        not: { required: ['wallet'] },
        properties: { amount: amountRange(DISBURSEMENT_AMOUNT_RANGES.disburseToBank) },
      },
    ],
  });

export function disbursementRoutes(deps: DisbursementDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/disbursements',
      summary:
        'Pay one receiver now: a wallet (check wallet → balance → pay) or a bank account or card (pay).',
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'disbursement.create', target: 'disbursement' },
      idempotent: true,
      body: createBody,
      handler: async ({ body, principal, create }) => ({
        body: await createDisbursement(deps, {
          disbursementId: body.disbursementId,
          amount: body.amount,
          description: body.description,
          receiver: body.wallet ? { kind: 'wallet', ...body.wallet } : { kind: 'bank', ...body.bank! },
          principal,
          create,
        }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/disbursements',
      summary: 'Single disbursements, newest first.',
      tag: 'payouts',
      access: { roles: READERS },
      query: listQuery,
      handler: async ({ query }) => {
        const page = await listDisbursements(deps.db, query);
        return { body: { disbursements: page.rows, nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/disbursements/:disbursementId',
      summary: 'A single disbursement: status, result code, transId.',
      tag: 'payouts',
      access: { roles: READERS },
      params: z.object({ disbursementId: z.string().max(50) }),
      handler: async ({ params }) => ({ body: await disbursementView(deps.db, params.disbursementId) }),
    }),
  ];
}
