import { z } from 'zod';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import type { PayeeDetails } from '../../contracts/payees';
import {
  createPayee,
  decidePayeeChange,
  payeeDetail,
  payeeList,
  proposePayeeArchive,
  proposePayeeChange,
  type PayeeDeps,
} from './payees';

const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;
/** Makers save and propose; either payout duty may decide, as long as it is another person. */
const MAKERS = ['payouts-maker'] as const;
const DECIDERS = ['payouts-maker', 'payouts-approver'] as const;

const wallet = z.strictObject({
  walletId: z.string().regex(/^0[0-9]{8,14}$/, 'a wallet number: 0 then 8 to 14 digits'),
  personalId: z
    .string()
    .regex(/^[0-9]{1,12}$/, 'up to 12 digits')
    .nullable()
    .default(null),
});
const bank = z
  .strictObject({
    bankCode: z.string().trim().min(1).max(20).meta(NOT_BLANK),
    bankAccountNo: z
      .string()
      .regex(/^[0-9]{4,30}$/, 'digits')
      .optional(),
    bankCardNo: z
      .string()
      .regex(/^[0-9]{12,19}$/, 'a card number of 12 to 19 digits')
      .optional(),
  })
  .refine((value) => Boolean(value.bankAccountNo) !== Boolean(value.bankCardNo), {
    message: 'give exactly one of bankAccountNo or bankCardNo',
    path: ['bankAccountNo'],
  })
  .meta({
    oneOf: [
      { required: ['bankAccountNo'], not: { required: ['bankCardNo'] } },
      { required: ['bankCardNo'], not: { required: ['bankAccountNo'] } },
    ],
  });

/** A payee's whole details: a proposal replaces all of them, so the approver sees exactly what will hold. */
const detailsBody = z
  .object({
    name: z.string().trim().min(1).max(100).meta(NOT_BLANK),
    wallet: wallet.optional(),
    bank: bank.optional(),
    reference: z.string().trim().max(100).nullable().default(null),
  })
  .refine((body) => Boolean(body.wallet) !== Boolean(body.bank), {
    message: 'give exactly one of wallet or bank',
    path: ['wallet'],
  })
  .meta({
    oneOf: [
      { required: ['wallet'], not: { required: ['bank'] } },
      { required: ['bank'], not: { required: ['wallet'] } },
    ],
  });

const detailsOf = (body: z.infer<typeof detailsBody>): PayeeDetails => ({
  name: body.name,
  ...(body.wallet && { wallet: body.wallet }),
  ...(body.bank && { bank: body.bank }),
  reference: body.reference || null,
});

const payeeParams = z.object({ payeeId: z.string().min(1).max(40) });
const changeParams = z.object({ payeeId: z.string().min(1).max(40), changeId: z.string().min(1).max(40) });

export function payeeRoutes(deps: PayeeDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payees',
      summary:
        'Save a payee (a wallet, or a bank account or card). A wallet is checked through the gateway at once and the name compared with the registered one (nameCheck match, mismatch or unchecked); a bank payee is unchecked: the gateway offers no bank check.',
      tag: 'payees',
      access: { roles: MAKERS },
      audit: { action: 'payee.create', target: 'payee' },
      body: detailsBody,
      responseStatus: 201,
      handler: async ({ body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const payee = await createPayee(deps, { details: detailsOf(body), principal });
        audit.note({ targetId: payee.payeeId, details: { kind: payee.kind, nameCheck: payee.nameCheck } });
        return { body: payee };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payees',
      summary:
        'Payees, newest first; q searches name, id, wallet, account and reference; status active or archived.',
      tag: 'payees',
      access: { roles: READERS },
      query: z.object({
        q: z.string().trim().min(1).max(100).meta(NOT_BLANK).optional(),
        status: z.enum(['active', 'archived']).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
      }),
      handler: async ({ query, principal }) => ({ body: await payeeList(deps.db, query, principal) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payees/:payeeId',
      summary: 'One payee with every version of its details (who proposed, who approved) and every change.',
      tag: 'payees',
      access: { roles: READERS },
      params: payeeParams,
      handler: async ({ params, principal }) => ({
        body: await payeeDetail(deps.db, params.payeeId, principal),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payees/:payeeId/changes',
      summary:
        'Propose new details for a payee (all of them), checked again through the gateway; nothing changes until another person approves. One open proposal per payee.',
      tag: 'payees',
      access: { roles: MAKERS },
      audit: { action: 'payee.propose_change', target: 'payee' },
      params: payeeParams,
      body: detailsBody,
      responseStatus: 201,
      handler: async ({ params, body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const change = await proposePayeeChange(deps, {
          payeeId: params.payeeId,
          details: detailsOf(body),
          principal,
        });
        audit.note({ details: { changeId: change.changeId } });
        return { body: change };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payees/:payeeId/archive',
      summary:
        'Propose archiving a payee (files can no longer name it); like any change, it holds only once another person approves it.',
      tag: 'payees',
      access: { roles: MAKERS },
      audit: { action: 'payee.propose_archive', target: 'payee' },
      params: payeeParams,
      body: z.object({ reason: z.string().trim().min(1).max(500).meta(NOT_BLANK) }),
      responseStatus: 201,
      handler: async ({ params, body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const change = await proposePayeeArchive(deps, {
          payeeId: params.payeeId,
          reason: body.reason,
          principal,
        });
        audit.note({ details: { changeId: change.changeId } });
        return { body: change };
      },
    }),
    ...(
      [
        [
          'approve',
          'Approve a proposed change of a payee (not your own proposal): the details (or the archive) hold from now, as a new version.',
        ],
        [
          'reject',
          'Reject a proposed change (the proposer may withdraw their own); the payee stays as it is.',
        ],
      ] as const
    ).map(([decision, summary]) =>
      defineRoute({
        method: 'post',
        path: `/v1/payees/:payeeId/changes/:changeId/${decision}`,
        summary,
        tag: 'payees',
        access: { roles: DECIDERS },
        audit: { action: `payee.${decision}_change`, target: 'payee' },
        params: changeParams,
        body: z.object({}),
        responseStatus: 200,
        handler: async ({ params, principal, req }) => {
          refuseMissingBody(req, 'a JSON object ({})');
          return {
            body: await decidePayeeChange(deps, {
              payeeId: params.payeeId,
              changeId: params.changeId,
              decision,
              principal,
            }),
          };
        },
      }),
    ),
  ];
}
