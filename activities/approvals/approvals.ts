/** What a waiting item's workflow records of its approval: each decision, or its expiry. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/shared/knex';
import { expireApproval as markExpired, findApproval, recordDecision } from '../../db/approvals/approvals';
import {
  approvalIdOf,
  type ApprovalActivities,
  type ApprovalDecisionRecord,
  type ApprovalKind,
} from '../../contracts/approvals';
import { bindActivities } from '../shared/bind';

interface ApprovalActivityDeps {
  db: Db;
}

export const createApprovalActivities = (deps: ApprovalActivityDeps): ApprovalActivities =>
  bindActivities(deps, { recordApprovalDecision, expireApproval });

export async function recordApprovalDecision(
  { db }: ApprovalActivityDeps,
  input: ApprovalDecisionRecord,
): Promise<void> {
  await recordDecision(db, input);
}

export async function expireApproval(
  { db }: ApprovalActivityDeps,
  input: { approvalId: string; reason: string },
): Promise<void> {
  await markExpired(db, input);
}

/**
 * The worker's own check before money moves: an item whose approval is recorded and not approved is
 * never paid, whatever its workflow was told. An item with no approval on record predates approvals.
 */
export async function requireApproved(db: Db, kind: ApprovalKind, objectId: string): Promise<void> {
  const approval = await findApproval(db, approvalIdOf(kind, objectId));
  if (!approval || approval.status === 'approved') return;
  throw ApplicationFailure.nonRetryable(
    `${kind} ${objectId} is ${approval.status} in the approvals record; it is not paid.`,
    'approval_not_pending',
  );
}
