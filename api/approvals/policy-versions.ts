/**
 * Changing the approval policy through the API: an admin proposes a whole policy, effective from a stated
 * time; a second admin (another person, not another key of the proposer) approves or rejects it. Nothing
 * changes until the approval, and an item keeps the requirement recorded when it was created.
 */
import { isSamePerson } from '../../contracts/shared';
import {
  decidePolicyVersion,
  findPolicyVersion,
  proposePolicyVersion,
  recentPolicyVersions,
  approvedPolicyVersions,
  waitingPolicyProposals,
  type PolicyVersionRow,
} from '../../db/approvals/policy-versions';
import type { Db } from '../../db/shared/knex';
import type { Principal } from '../auth/roles';
import { ApiError, notFound } from '../http/errors';
import { inEffectOf, type ApprovalPolicyReader } from './policy-reader';
import type { ApprovalPolicy } from '../../contracts/approvals';

/** How long a proposal waits for a second admin before it lapses. */
export const POLICY_PROPOSAL_HOURS = 72;
/** How far in the past `effectiveFrom` may be (a clock a little behind, a form filled in slowly). */
const PAST_TOLERANCE_MS = 60_000;
/** How many versions the history shows. */
const HISTORY_LENGTH = 20;

export interface PolicyVersionDeps {
  db: Db;
  /** APPROVAL_POLICY: what applies while no version was approved. */
  configured: ApprovalPolicy;
  policies: ApprovalPolicyReader;
}

const statusOf = (row: PolicyVersionRow, now: Date) =>
  row.status === 'proposed' && new Date(row.expires_at) <= now ? 'expired' : row.status;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

export const versionView = (row: PolicyVersionRow, now = new Date()) => ({
  version: Number(row.version),
  status: statusOf(row, now),
  policy: row.policy,
  effectiveFrom: iso(row.effective_from),
  effectiveAt: iso(row.effective_at),
  reason: row.reason,
  proposedBy: row.proposed_by,
  proposedAt: iso(row.proposed_at),
  expiresAt: iso(row.expires_at),
  decidedBy: row.decided_by,
  decidedAt: iso(row.decided_at),
  decisionNote: row.decision_note,
});

/** The policy in effect now, the approved versions still to come, the proposals waiting, the last 20. */
export async function approvalPolicyOverview(deps: PolicyVersionDeps) {
  const now = new Date();
  const [approved, waiting, recent] = await Promise.all([
    approvedPolicyVersions(deps.db),
    waitingPolicyProposals(deps.db),
    recentPolicyVersions(deps.db, HISTORY_LENGTH),
  ]);
  return {
    current: inEffectOf(approved, deps.configured, now),
    scheduled: approved
      .filter((row) => row.effective_at && new Date(row.effective_at) > now)
      .reverse()
      .map((row) => versionView(row, now)),
    proposals: waiting.map((row) => versionView(row, now)),
    history: recent.map((row) => versionView(row, now)),
  };
}

/**
 * A proposal: the whole policy, checked by the route exactly as APPROVAL_POLICY is (`body.policy.<field>`),
 * effective from a time not in the past; it waits for a second admin.
 */
export async function proposePolicy(
  deps: PolicyVersionDeps,
  input: { policy: ApprovalPolicy; effectiveFrom: string; reason: string; principal: Principal },
) {
  const { policy } = input;
  const now = Date.now();
  const effectiveFrom = new Date(input.effectiveFrom);
  if (effectiveFrom.getTime() < now - PAST_TOLERANCE_MS)
    throw new ApiError(
      'invalid_request',
      `effectiveFrom ${input.effectiveFrom} is in the past; a policy takes effect from now on (give the current time to apply it once approved). Nothing was proposed.`,
      {
        status: 400,
        problems: [{ field: 'body.effectiveFrom', rule: 'not_in_the_past', message: 'must be now or later' }],
      },
    );
  const row = await proposePolicyVersion(deps.db, {
    // Stored as the checks read it (defaults filled in): the version says everything it asks.
    policy,
    effectiveFrom,
    reason: input.reason,
    proposedBy: { keyId: input.principal.keyId, name: input.principal.name },
    expiresAt: new Date(now + POLICY_PROPOSAL_HOURS * 3_600_000),
  });
  return versionView(row);
}

/**
 * A second admin's decision. Approving takes another person than the proposer (403 self_approval, for
 * any key of theirs); the proposer may withdraw their own proposal by rejecting it.
 */
export async function decidePolicy(
  deps: PolicyVersionDeps,
  input: { version: string; decision: 'approve' | 'reject'; note?: string; principal: Principal },
) {
  const by = { keyId: input.principal.keyId, name: input.principal.name };
  const result = await decidePolicyVersion(deps.db, {
    version: input.version,
    decision: input.decision,
    by,
    note: input.note,
    check: (row) => {
      if (
        input.decision === 'approve' &&
        isSamePerson(by, { keyId: row.proposed_by_key, name: row.proposed_by })
      )
        throw new ApiError(
          'self_approval',
          `${row.proposed_by} proposed this policy and cannot approve it, with this key or another of theirs; another admin must.`,
        );
    },
  });
  if (!result) throw notFound(`Approval policy version ${input.version}`);
  if ('refused' in result)
    throw new ApiError(
      'policy_not_proposed',
      result.refused === 'expired'
        ? `Version ${input.version} waited more than ${POLICY_PROPOSAL_HOURS} hours and lapsed; propose it again.`
        : `Version ${input.version} is ${result.row.status}; only a proposed version can be decided.`,
    );
  // This process applies the new version at once; the others within POLICY_CACHE_MS.
  if (input.decision === 'approve') deps.policies.invalidate();
  const view = versionView(result);
  if (input.decision === 'reject') return view;
  const scheduled = new Date(result.effective_at!).getTime() === new Date(result.effective_from).getTime();
  return {
    ...view,
    // The answer says which: the proposed time, or now because that time had passed.
    takesEffect: scheduled ? ('at_effective_from' as const) : ('on_approval' as const),
  };
}

export async function policyVersion(db: Db, version: string) {
  const row = await findPolicyVersion(db, version);
  if (!row) throw notFound(`Approval policy version ${version}`);
  return versionView(row);
}
