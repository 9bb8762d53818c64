import { z } from 'zod';
import { approvalPolicySchema } from '../../platform/approval-policy';
import { ROLES } from '../auth/roles';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import {
  approvalPolicyOverview,
  decidePolicy,
  policyVersion,
  proposePolicy,
  type PolicyVersionDeps,
} from './policy-versions';

const versionParams = z.object({ version: z.string().regex(/^[1-9]\d{0,15}$/, 'a version number') });
const proposalBody = z.strictObject({
  /** The APPROVAL_POLICY checks themselves (platform/approval-policy.ts): 400 or 422 naming the field. */
  policy: approvalPolicySchema,
  effectiveFrom: z.iso.datetime({
    offset: true,
    error: 'an ISO time with its offset (2026-12-01T00:00:00+07:00)',
  }),
  reason: z.string().trim().min(1, 'say why the policy changes').max(500).meta(NOT_BLANK),
});
const decisionBody = z.strictObject({ note: z.string().max(500).optional() });

export function approvalPolicyRoutes(deps: PolicyVersionDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/approval-policy',
      summary:
        'The approval policy in effect now (an approved version, or APPROVAL_POLICY), approved versions still to take effect, proposals waiting for a second admin, and the last 20 versions.',
      tag: 'approvals',
      access: { roles: ROLES },
      handler: async () => ({ body: await approvalPolicyOverview(deps) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/approval-policy/:version',
      summary:
        'One version of the approval policy: the whole policy, when it applies, who proposed and decided.',
      tag: 'approvals',
      access: { roles: ROLES },
      params: versionParams,
      handler: async ({ params }) => ({ body: await policyVersion(deps.db, params.version) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approval-policy',
      summary:
        'Propose a new approval policy (the whole policy, effective from a stated time, with a reason); it applies only once a second admin approves it, and waits at most 72 hours.',
      tag: 'approvals',
      access: { roles: ['admin'] },
      audit: { action: 'approval_policy.propose', target: 'approval_policy' },
      body: proposalBody,
      responseStatus: 201,
      handler: async ({ body, principal, audit }) => {
        const proposed = await proposePolicy(deps, { ...body, principal });
        audit.note({
          targetId: String(proposed.version),
          details: { effectiveFrom: proposed.effectiveFrom },
        });
        return { status: 201, body: proposed };
      },
    }),
    ...(
      [
        [
          'approve',
          'Approve a proposed approval policy (another admin than the proposer); it applies to items created from its effectiveFrom, or from now if that has passed (`takesEffect` says which).',
        ],
        ['reject', 'Reject a proposed approval policy; nothing changes.'],
      ] as const
    ).map(([decision, summary]) =>
      defineRoute({
        method: 'post',
        path: `/v1/approval-policy/:version/${decision}`,
        summary,
        tag: 'approvals',
        access: { roles: ['admin'] },
        audit: { action: `approval_policy.${decision}`, target: 'approval_policy' },
        params: versionParams,
        body: decisionBody,
        responseStatus: 200,
        handler: async ({ params, body, principal, req }) => {
          // The document asks for a body ({} at least); a request without one is not this decision.
          refuseMissingBody(req, 'a JSON object: {} or { "note": "…" }');
          return {
            body: await decidePolicy(deps, {
              version: params.version,
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
