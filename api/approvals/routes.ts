import { z } from 'zod';
import { APPROVAL_KINDS, APPROVER_ROLES, approvalIdOf, type ApprovalKind } from '../../contracts/approvals';
import { ROLES } from '../auth/roles';
import { defineRoute, type AnyRoute } from '../http/routes';
import { approvalInbox, approvalView, decideApproval, type ApprovalDeps } from './approvals';

const itemParams = z.object({
  kind: z.enum(APPROVAL_KINDS),
  id: z.string().min(1).max(50),
});
const decisionBody = z.object({ note: z.string().max(500).optional() });
/** admin holds every role; the others are the roles a policy band may name. */
const DECIDERS = APPROVER_ROLES.filter((role) => role !== 'admin');

export function approvalRoutes(deps: ApprovalDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/approvals',
      summary:
        'The approvals inbox: disbursements, refunds and remittances waiting for approvers, oldest first (what, how much, to whom masked, who asked and why, approvals so far, when it expires).',
      tag: 'approvals',
      access: { roles: ROLES },
      query: z.object({
        kind: z.enum(APPROVAL_KINDS).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
      }),
      handler: async ({ query }) => ({ body: await approvalInbox(deps.db, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/approvals/:kind/:id',
      summary: "One item's approval: what the policy asked, its status and every decision.",
      tag: 'approvals',
      access: { roles: ROLES },
      params: itemParams,
      handler: async ({ params }) => ({
        body: await approvalView(deps.db, approvalIdOf(params.kind, params.id)),
      }),
    }),
    ...(
      [
        [
          'approve',
          'Approve an item waiting for approval (not one you asked for); it pays once the approvers its amount needs have approved.',
        ],
        ['reject', 'Reject an item waiting for approval; it is never paid.'],
      ] as const
    ).map(([decision, summary]) =>
      defineRoute({
        method: 'post',
        path: `/v1/approvals/:kind/:id/${decision}`,
        summary,
        tag: 'approvals',
        access: { roles: DECIDERS },
        audit: {
          action: `approval.${decision}`,
          target: 'approval',
          targetOf: (params) => approvalIdOf(params.kind as ApprovalKind, params.id ?? ''),
        },
        params: itemParams,
        body: decisionBody,
        responseStatus: 200,
        handler: async ({ params, body, principal }) => {
          return {
            body: await decideApproval(deps, {
              kind: params.kind,
              objectId: params.id,
              decision,
              note: body.note,
              principal,
            }),
          };
        },
      }),
    ),
  ];
}
