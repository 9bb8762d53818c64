/**
 * The approval policy in effect at a time: the approved version with the latest effective time at or before
 * it, else the configuration's APPROVAL_POLICY. Every create that pays money out asks this reader, once per
 * request, and records what the policy asked with the item, so a later change never alters an item made
 * before it.
 */
import type { ApprovalPolicy } from '../../contracts/approvals';
import { approvedPolicyVersions, type PolicyVersionRow } from '../../db/approvals/policy-versions';
import type { Db } from '../../db/shared/knex';
import { inEffectOf, type PolicyInEffect } from '../../platform/approval-policy-in-effect';

// Moved so a worker's activities pick the policy the same way; kept here for the API's importers.
export { inEffectOf, storedPolicy, type PolicyInEffect } from '../../platform/approval-policy-in-effect';

/**
 * How long one process keeps the list of approved versions. A version approved in this process is seen at
 * once (the approval invalidates the list); one approved in another process within this bound. A scheduled
 * version needs no refresh: the list already holds it, and it is picked from its effective time on.
 */
export const POLICY_CACHE_MS = 5_000;

export interface ApprovalPolicyReader {
  /** The policy in effect at `now`. */
  policyAt(now: Date): Promise<ApprovalPolicy>;
  /** The policy in effect at `now`, read from the database past the cache, with where it came from. */
  inEffectAt(now: Date): Promise<PolicyInEffect>;
  /** Forgets the cached versions: a version was approved in this process. */
  invalidate(): void;
}

export function approvalPolicyReader(deps: {
  db: Db;
  /** APPROVAL_POLICY: what applies until a version is approved. */
  configured: ApprovalPolicy;
  cacheMs?: number;
}): ApprovalPolicyReader {
  const cacheMs = deps.cacheMs ?? POLICY_CACHE_MS;
  let cached: { versions: Promise<PolicyVersionRow[]>; readAt: number } | undefined;
  const versions = () => {
    const readAt = Date.now();
    if (!cached || readAt - cached.readAt >= cacheMs) {
      const read = approvedPolicyVersions(deps.db);
      cached = { versions: read, readAt };
      // A failed read is not kept: the next request asks the database again.
      read.catch(() => {
        if (cached?.versions === read) cached = undefined;
      });
    }
    return cached.versions;
  };
  return {
    policyAt: async (now) => inEffectOf(await versions(), deps.configured, now).policy,
    inEffectAt: async (now) => inEffectOf(await approvedPolicyVersions(deps.db), deps.configured, now),
    invalidate: () => {
      cached = undefined;
    },
  };
}
