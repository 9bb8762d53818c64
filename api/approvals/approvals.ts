/**
 * The approval stories: what the policy asks of a new item that pays out (recorded with the item, inside
 * the day's caps), the inbox of what waits, and a person's decision, which only the item's workflow takes.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import {
  approvalIdOf,
  approvalDecisionUpdate,
  requirementFor,
  type ApprovalKind,
  type ApprovalPolicy,
  type ApprovalRequest,
} from '../../contracts/approvals';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { refundWorkflowId } from '../../contracts/payments';
import { remittanceWorkflowId } from '../../contracts/remittances';
import { failureTypeOf, isErrorCode } from '../../contracts/shared';
import {
  decisionsOn,
  findApproval,
  listWaitingApprovals,
  requestApproval,
  type ApprovalRow,
  type CapBreach,
} from '../../db/approvals/approvals';
import type { Db } from '../../db/shared/knex';
import { hasAnyRole, type Principal } from '../auth/roles';
import type { SignDecision } from '../http/decision-signer';
import { ApiError, forbidden, notFound } from '../http/errors';

export interface ApprovalDeps {
  db: Db;
  temporal: Client;
  /** Signs each decision: the workflow acts on no decision without the API's proof. */
  signDecision: SignDecision;
}

/** The workflow that waits for each kind's approvals. */
const WORKFLOW_OF: Record<ApprovalKind, (objectId: string) => string> = {
  disbursement: disbursementWorkflowId,
  refund: refundWorkflowId,
  remittance: remittanceWorkflowId,
};

export interface ItemToApprove {
  kind: ApprovalKind;
  objectId: string;
  amount: number;
  receiverLabel: string;
  description: string;
  principal: Principal;
  /** The request's field a cap refusal names; `body.amount` unless the amount was weighed from another. */
  field?: string;
}

/**
 * Records what the policy asks of a new item, in the transaction that creates it; refuses with
 * daily_cap_exceeded (and so rolls the item back) when the item would take a daily cap past its limit.
 */
export async function requestApprovalIn(
  trx: Knex.Transaction,
  policy: ApprovalPolicy,
  item: ItemToApprove,
): Promise<void> {
  const requirement = requirementFor(policy, item.kind, item.amount);
  const breach = await requestApproval(
    trx,
    {
      approvalId: approvalIdOf(item.kind, item.objectId),
      kind: item.kind,
      objectId: item.objectId,
      amount: item.amount,
      receiverLabel: item.receiverLabel,
      description: item.description,
      requiredApprovers: requirement.approvers,
      roles: requirement.roles,
      requestedBy: { keyId: item.principal.keyId, name: item.principal.name },
      expiresAt: new Date(Date.now() + policy.expiresAfterHours * 3_600_000),
    },
    policy.kinds[item.kind],
  );
  if (!breach) return;
  throw dailyCapExceeded({
    what: item.kind,
    amount: item.amount,
    maker: item.principal.name,
    breach,
    field: item.field ?? 'body.amount',
    rule: `approvalPolicy.kinds.${item.kind}.${breach.cap}`,
  });
}

/** The refusal of a request over a daily cap, naming the cap, its limit and what is left today. */
export function dailyCapExceeded(input: {
  /** `disbursement`, `payout run`… */
  what: string;
  amount: number;
  maker: string;
  breach: CapBreach;
  field: string;
  /** The policy's field: `approvalPolicy.kinds.refund.perMakerDailyVnd`, `approvalPolicy.payoutRun.…`. */
  rule: string;
}): ApiError {
  const { breach } = input;
  const who = breach.cap === 'perMakerDailyVnd' ? `${input.maker}'s` : "the merchant's";
  return new ApiError(
    'daily_cap_exceeded',
    `This ${input.what} of ${input.amount} VND would take ${who} daily ${input.what} cap (${breach.cap}: ` +
      `${breach.limitVnd} VND, ${breach.requestedTodayVnd} VND requested today) past its limit; nothing was recorded.`,
    {
      problems: [
        {
          field: input.field,
          rule: input.rule,
          message: `at most ${Math.max(0, breach.limitVnd - breach.requestedTodayVnd)} VND more today`,
        },
      ],
    },
  );
}

/** What the item's workflow needs to wait for its approvers; undefined when the policy asks for none. */
export async function approvalRequestOf(
  db: Db,
  kind: ApprovalKind,
  objectId: string,
): Promise<ApprovalRequest | undefined> {
  const row = await findApproval(db, approvalIdOf(kind, objectId));
  if (!row || row.required_approvers === 0) return undefined;
  return {
    approvalId: row.approval_id,
    kind: row.kind,
    objectId: row.object_id,
    approvers: row.required_approvers,
    roles: row.approver_roles,
    requestedBy: { keyId: row.requested_by_key, name: row.requested_by },
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

/**
 * A person's decision on a waiting item. The workflow alone accepts or refuses it (the item still waits,
 * an allowed role, not the person who asked, not twice); the refusal's code is the workflow's.
 */
export async function decideApproval(
  deps: ApprovalDeps,
  input: {
    kind: ApprovalKind;
    objectId: string;
    decision: 'approve' | 'reject';
    note?: string;
    principal: Principal;
  },
) {
  const row = await findApproval(deps.db, approvalIdOf(input.kind, input.objectId));
  if (!row) throw notFound(`An approval of ${input.kind} ${input.objectId}`);
  if (!hasAnyRole(input.principal, row.approver_roles))
    throw forbidden(
      `Deciding on this ${input.kind} takes one of the roles ${row.approver_roles.join(', ')}.`,
    );
  const workflowId = WORKFLOW_OF[input.kind](input.objectId);
  const by = { keyId: input.principal.keyId, name: input.principal.name };
  const proof = deps.signDecision({ subject: workflowId, action: input.decision, by, note: input.note });
  try {
    await deps.temporal.workflow.getHandle(workflowId).executeUpdate(approvalDecisionUpdate, {
      args: [
        { decision: input.decision, by: { ...by, roles: input.principal.roles }, note: input.note, proof },
      ],
    });
  } catch (error) {
    throw refusalOf(error, row) ?? error;
  }
  return approvalView(deps.db, row.approval_id);
}

function refusalOf(error: unknown, row: ApprovalRow): ApiError | undefined {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
    const code = failureTypeOf(cause);
    if (isErrorCode(code)) return new ApiError(code, cause?.message ?? error.message);
  }
  // A finished workflow takes no decision: the item was decided, or expired, already.
  if (error instanceof WorkflowNotFoundError || (error as Error).name === 'WorkflowNotFoundError')
    return new ApiError(
      'approval_not_pending',
      `${row.kind} ${row.object_id} is ${row.status}; it waits for no decision.`,
    );
  return undefined;
}

/** One approval with its decisions. Receivers are masked labels for every role. */
export async function approvalView(db: Db, approvalId: string) {
  const row = await findApproval(db, approvalId);
  if (!row) throw notFound(`Approval ${approvalId}`);
  const decisions = await decisionsOn(db, approvalId);
  return {
    ...summaryOf(row),
    decisions: decisions.map((decision) => ({
      decision: decision.decision,
      by: decision.by_name,
      note: decision.note,
      at: decision.decided_at,
    })),
  };
}

/** The inbox: what waits for approvers, oldest first, with what, how much, to whom, who asked and why. */
export async function approvalInbox(db: Db, filter: { kind?: ApprovalKind; limit: number; offset: number }) {
  const rows = await listWaitingApprovals(db, { ...filter, limit: filter.limit + 1 });
  const page = rows.slice(0, filter.limit);
  const approvals = await Promise.all(page.map((row) => approvalView(db, row.approval_id)));
  return { approvals, nextOffset: rows.length > filter.limit ? filter.offset + filter.limit : null };
}

const summaryOf = (row: ApprovalRow) => ({
  approvalId: row.approval_id,
  kind: row.kind,
  id: row.object_id,
  status: row.status,
  statusReason: row.status_reason,
  amount: Number(row.amount),
  receiver: row.receiver_label,
  description: row.description,
  requestedBy: row.requested_by,
  requestedAt: row.requested_at,
  expiresAt: row.expires_at,
  requiredApprovers: row.required_approvers,
  approverRoles: row.approver_roles,
});
