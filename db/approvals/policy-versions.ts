/**
 * Versions of the approval policy (migration 0020): proposed by one admin, approved or rejected by another,
 * in effect from `effective_at` until a later approved version's. A decision locks its row, so two admins
 * deciding at once cannot both decide one proposal.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { personKey } from '../../contracts/shared';
import type { Person } from '../../contracts/approvals';
import type { ApprovalPolicySnapshot } from '../../platform/event-catalogue';
import { recordEvent } from '../events/events';

export type PolicyVersionStatus = 'proposed' | 'approved' | 'rejected';

export interface PolicyVersionRow {
  version: string;
  status: PolicyVersionStatus;
  policy: unknown;
  effective_from: Date;
  effective_at: Date | null;
  reason: string;
  proposed_by_key: string;
  proposed_by: string;
  proposed_by_person: string;
  proposed_at: Date;
  expires_at: Date;
  decided_by_key: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_note: string | null;
}

export interface NewPolicyVersion {
  policy: unknown;
  effectiveFrom: Date;
  reason: string;
  proposedBy: Person;
  expiresAt: Date;
}

export async function proposePolicyVersion(db: Db, proposal: NewPolicyVersion): Promise<PolicyVersionRow> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('approval_policy_versions')
      .insert({
        status: 'proposed',
        policy: JSON.stringify(proposal.policy),
        effective_from: proposal.effectiveFrom,
        reason: proposal.reason,
        proposed_by_key: proposal.proposedBy.keyId,
        proposed_by: proposal.proposedBy.name,
        proposed_by_person: personKey(proposal.proposedBy.name),
        expires_at: proposal.expiresAt,
      })
      .returning('*')) as PolicyVersionRow[];
    await recordEvent(trx, 'approval_policy.proposed', String(row!.version), policySnapshot(row!));
    return row!;
  });
}

export async function findPolicyVersion(db: Db, version: string): Promise<PolicyVersionRow | undefined> {
  return db('approval_policy_versions').where({ version }).first();
}

/** Why a decision on a version was not taken: it is not waiting, or it waited past its expiry. */
export type DecisionRefusal = { refused: 'not_proposed' | 'expired'; row: PolicyVersionRow };

/**
 * Approves or rejects a waiting proposal under its row's lock, with its event. `check` runs under the lock
 * too (the decider is not the proposer) and throws to refuse. An approved version takes effect at its
 * effective_from, or now if that has passed.
 */
export async function decidePolicyVersion(
  db: Db,
  input: {
    version: string;
    decision: 'approve' | 'reject';
    by: Person;
    note?: string;
    check: (row: PolicyVersionRow) => void;
  },
): Promise<PolicyVersionRow | DecisionRefusal | undefined> {
  return db.transaction(async (trx) => {
    const row = (await trx('approval_policy_versions')
      .where({ version: input.version })
      .forUpdate()
      .first()) as PolicyVersionRow | undefined;
    if (!row) return undefined;
    if (row.status !== 'proposed') return { refused: 'not_proposed' as const, row };
    const expiry = (await trx.raw('select ?::timestamptz <= now() as expired', [row.expires_at])) as {
      rows: Array<{ expired: boolean }>;
    };
    if (expiry.rows[0]?.expired) return { refused: 'expired' as const, row };
    input.check(row);
    const approved = input.decision === 'approve';
    const [after] = (await trx('approval_policy_versions')
      .where({ version: input.version })
      .update({
        status: approved ? 'approved' : 'rejected',
        effective_at: approved ? trx.raw('greatest(effective_from, now())') : null,
        decided_by_key: input.by.keyId,
        decided_by: input.by.name,
        decided_at: trx.fn.now(),
        decision_note: input.note ?? null,
      })
      .returning('*')) as PolicyVersionRow[];
    await recordEvent(
      trx,
      approved ? 'approval_policy.approved' : 'approval_policy.rejected',
      String(after!.version),
      policySnapshot(after!),
    );
    return after!;
  });
}

/** Every approved version, latest effective first: what the policy reader picks from (a handful of rows). */
export async function approvedPolicyVersions(db: Db | Knex.Transaction): Promise<PolicyVersionRow[]> {
  return db('approval_policy_versions')
    .where({ status: 'approved' })
    .orderBy([
      { column: 'effective_at', order: 'desc' },
      { column: 'version', order: 'desc' },
    ]);
}

/** Proposals still waiting for a second admin (not past their expiry), oldest first. */
export async function waitingPolicyProposals(db: Db): Promise<PolicyVersionRow[]> {
  return db('approval_policy_versions')
    .where({ status: 'proposed' })
    .where('expires_at', '>', db.fn.now())
    .orderBy('version');
}

/** The latest versions, whatever their status, newest first. */
export async function recentPolicyVersions(db: Db, limit: number): Promise<PolicyVersionRow[]> {
  return db('approval_policy_versions').orderBy('version', 'desc').limit(limit);
}

export const policySnapshot = (row: PolicyVersionRow): ApprovalPolicySnapshot => ({
  version: Number(row.version),
  status: row.status,
  policy: row.policy,
  effectiveFrom: new Date(row.effective_from).toISOString(),
  effectiveAt: row.effective_at ? new Date(row.effective_at).toISOString() : null,
  reason: row.reason,
  proposedBy: row.proposed_by,
  decidedBy: row.decided_by,
});
