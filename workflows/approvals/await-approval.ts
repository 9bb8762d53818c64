/**
 * How an item that pays money out waits for its approvers before its first gateway step. Every
 * decision arrives through one update and is judged by `refusalOf` alone, the one place where the proof
 * that the API made a decision is to be checked. Nothing here touches the gateway: a rejected or expired
 * item has moved no money.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import { decisionGate, type DecisionGate } from '../shared/decision-gate';
import {
  approvalDecisionUpdate,
  approvalStateQuery,
  type ApprovalActivities,
  type ApprovalDecision,
  type ApprovalRequest,
  type ApprovalState,
} from '../../contracts/approvals';
import { isSamePerson } from '../../contracts/shared';

const records = recordsOf<ApprovalActivities>();

export type ApprovalOutcome = 'approved' | 'rejected' | 'expired';

/** Waits for the request's approvers (or a rejection, or its expiry) and records how it ended. */
export async function awaitApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
  const state: ApprovalState = {
    approvalId: request.approvalId,
    status: 'requested',
    approvers: request.approvers,
    approvedBy: [],
  };
  const gate = decisionGate({ type: 'approval', id: `${request.kind}:${request.objectId}` });
  setHandler(approvalStateQuery, () => state);
  showWaiting(request, state);
  setHandler(approvalDecisionUpdate, (decision) => decide(request, state, gate, decision), {
    validator: (decision) => {
      const refusal = refusalOf(request, state, decision);
      if (refusal) throw refusal;
    },
  });
  const untilExpiry = Math.max(0, Date.parse(request.expiresAt) - Date.now());
  if (!(await condition(() => state.status !== 'requested', untilExpiry))) {
    state.status = 'expired';
    setCurrentDetails(`Approval expired at ${request.expiresAt}; nothing was paid.`);
    await records.expireApproval({
      approvalId: request.approvalId,
      reason: `Nobody approved it before ${request.expiresAt}.`,
    });
  }
  // The decision's record is written by its handler: let it finish before the item moves on or ends.
  await condition(allHandlersFinished);
  return state.status as ApprovalOutcome;
}

async function decide(
  request: ApprovalRequest,
  state: ApprovalState,
  gate: DecisionGate,
  decision: ApprovalDecision,
): Promise<ApprovalState> {
  const by = { keyId: decision.by.keyId, name: decision.by.name };
  // Only a decision the API signed counts (contracts/shared/decision-proof.ts); a refused one is audited.
  await gate.admit({ action: decision.decision, by, note: decision.note }, decision.proof);
  // Judged again: another decision may have been taken while this one's proof was checked.
  const refusal = refusalOf(request, state, decision);
  if (refusal) throw refusal;
  // The state changes before the record is written, so a second decision arriving meanwhile is judged
  // against this one.
  if (decision.decision === 'reject') {
    state.status = 'rejected';
    state.rejectedBy = by;
  } else {
    state.approvedBy.push(by);
    if (state.approvedBy.length >= request.approvers) state.status = 'approved';
  }
  showWaiting(request, state);
  await records.recordApprovalDecision({
    approvalId: request.approvalId,
    decision: decision.decision,
    by,
    note: decision.note,
    status: state.status,
  });
  return { ...state, approvedBy: [...state.approvedBy] };
}

/**
 * Why a decision does not count, or undefined when it does: the item still waits, the decider holds a
 * role the band allows, is not the person who asked (to approve), and has not decided already. Its
 * proof is checked by the handler (`decide`), which needs an activity, which a validator cannot run.
 */
function refusalOf(
  request: ApprovalRequest,
  state: ApprovalState,
  decision: ApprovalDecision,
): ApplicationFailure | undefined {
  if (state.status !== 'requested')
    return ApplicationFailure.nonRetryable(
      `${request.objectId} is ${state.status}; only an item awaiting approval can be approved or rejected.`,
      'approval_not_pending',
    );
  const roles = decision.by.roles;
  if (!roles.includes('admin') && !request.roles.some((role) => roles.includes(role)))
    return ApplicationFailure.nonRetryable(
      `Deciding on ${request.objectId} takes one of the roles ${request.roles.join(', ')}.`,
      'forbidden',
    );
  if (decision.decision === 'approve' && isSamePerson(decision.by, request.requestedBy))
    return ApplicationFailure.nonRetryable(
      `${request.requestedBy.name} asked for ${request.objectId} and cannot approve it; another person must.`,
      'own_request',
    );
  if (state.approvedBy.some((earlier) => isSamePerson(earlier, decision.by)))
    return ApplicationFailure.nonRetryable(
      `${decision.by.name} has approved ${request.objectId} already; it needs ${request.approvers} different people.`,
      'approval_already_given',
    );
  return undefined;
}

/** What the Temporal UI shows of a waiting item (its current details). */
function showWaiting(request: ApprovalRequest, state: ApprovalState) {
  if (state.status === 'requested')
    setCurrentDetails(
      `Waiting for approval: ${state.approvedBy.length} of ${request.approvers} approvers ` +
        `(${request.roles.join(' or ')}); asked by ${request.requestedBy.name}; expires ${request.expiresAt}.`,
    );
  else setCurrentDetails(`Approval ${state.status}.`);
}
