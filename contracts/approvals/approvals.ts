/**
 * One life cycle for every request that pays money out (disbursements, refunds, remittances):
 * requested → approved | rejected | expired. The API records a request with its record; the item's
 * workflow waits before its first gateway step and accepts decisions through one update, so the check
 * of a decision's proof (that only the API made it) has one place to live. Pure code: workflows,
 * activities, db/ and the API share it.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalKind, ApproverRole } from './policy';
import type { Person } from './people';

export type ApprovalStatus = 'requested' | 'approved' | 'rejected' | 'expired';

/** An approval's id: one per item, named by its kind (`disbursement:<id>`). */
export const approvalIdOf = (kind: ApprovalKind, objectId: string) => `${kind}:${objectId}`;

/** What the item's workflow needs to decide alone whether a decision counts. */
export interface ApprovalRequest {
  approvalId: string;
  kind: ApprovalKind;
  objectId: string;
  /** Distinct people, other than the maker, who must approve (from the policy's band; above 0 here). */
  approvers: number;
  roles: ApproverRole[];
  requestedBy: Person;
  /** ISO time after which an undecided request expires. */
  expiresAt: string;
}

export interface ApprovalDecision {
  decision: 'approve' | 'reject';
  by: Person & { roles: readonly string[] };
  note?: string;
  /**
   * The API's proof that it made this decision (contracts/shared/decision-proof.ts), checked by the
   * workflow's decision gate before the decision counts.
   */
  proof?: unknown;
}

export interface ApprovalState {
  approvalId: string;
  status: ApprovalStatus;
  approvers: number;
  approvedBy: Person[];
  rejectedBy?: Person;
}

/** Approve or reject a waiting item; answers with the approval's state, or refuses and changes nothing. */
export const approvalDecisionUpdate = defineUpdate<ApprovalState, [ApprovalDecision]>('approvalDecision');
export const approvalStateQuery = defineQuery<ApprovalState>('approvalState');

/** What the workflow records of a decision (activities → db/), in the decision's order. */
export interface ApprovalDecisionRecord {
  approvalId: string;
  decision: 'approve' | 'reject';
  by: Person;
  note?: string;
  /** The approval's status after this decision. */
  status: ApprovalStatus;
}

export interface ApprovalActivities {
  recordApprovalDecision(input: ApprovalDecisionRecord): Promise<void>;
  expireApproval(input: { approvalId: string; reason: string }): Promise<void>;
}
