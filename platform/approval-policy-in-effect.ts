/**
 * Which approval policy applies at a time: the approved version with the latest effective time at or before it,
 * else the configuration's APPROVAL_POLICY. The API's reader and a worker's activities (a schedule's occurrence
 * weighs its run against the day's caps) pick it the same way, so a run is capped alike whoever records it.
 */
import type { ApprovalPolicy } from '../contracts/approvals';
import { checkApprovalPolicy } from './approval-policy';

/** What this needs of a stored version (db/approvals/policy-versions.ts's row). */
export interface StoredPolicyVersion {
  version: string;
  effective_at: Date | null;
  policy: unknown;
}

export interface PolicyInEffect {
  /** The version in effect; null when no version was ever approved and the configuration applies. */
  version: number | null;
  source: 'configuration' | 'api';
  /** When the version took effect; null for the configuration. */
  effectiveFrom: string | null;
  policy: ApprovalPolicy;
}

/** A stored version as a policy: the same checks as APPROVAL_POLICY, which fill in what a version predates. */
export function storedPolicy(row: StoredPolicyVersion): ApprovalPolicy {
  const { policy, problems } = checkApprovalPolicy(row.policy);
  if (!policy)
    throw new Error(
      `Approval policy version ${row.version} no longer reads: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`,
    );
  return policy;
}

/** Picks the version in effect at `now` from approved versions, latest effective first. */
export function inEffectOf(
  versions: readonly StoredPolicyVersion[],
  configured: ApprovalPolicy,
  now: Date,
): PolicyInEffect {
  const row = versions.find((candidate) => candidate.effective_at && candidate.effective_at <= now);
  if (!row) return { version: null, source: 'configuration', effectiveFrom: null, policy: configured };
  return {
    version: Number(row.version),
    source: 'api',
    effectiveFrom: new Date(row.effective_at!).toISOString(),
    policy: storedPolicy(row),
  };
}
