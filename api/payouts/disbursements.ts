/** Single disbursement stories: pay one receiver now, read where it is. */
import { findDisbursement, insertDisbursement, listDisbursementIds } from '../../db/payouts/disbursements';
import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db } from '../../db/shared/knex';
import type { ListFilter } from '../../db/shared/list-filter';
import {
  disbursementDeskWorkflowId,
  disbursementWorkflowId,
  type DisbursementInput,
  type DisbursementReceiver,
} from '../../contracts/payouts';
import { payrunOrderId } from '../../contracts/shared';
import type { Principal } from '../auth/roles';
import { conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { maskNumber } from '../http/masking';
import { createOrResume } from '../http/resumable';
import { startWorkflow } from '../workflow-starts';
import { requirementFor } from '../../contracts/approvals';
import { approvalRequestOf, requestApprovalIn } from '../approvals/approvals';
import type { ApprovalPolicyReader } from '../approvals/policy-reader';
import { sealDeskReceiver } from '../../db/payouts/disbursement-desk';
import type { DisbursementDesk } from './disbursement-desk';

export interface DisbursementDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  gatewayAttemptTimeout: string;
  resultWait: string;
  /** How long a pending disbursement waits for its notification before asking the gateway. */
  ipnTimeout: string;
  /** Pay as a local activity (no rate limit on disbursement.pay): DisbursementInput.disburseInWorkflowTask. */
  inWorkflowTask: boolean;
  /** The approval policy in effect when an item is created (api/approvals/policy-reader.ts). */
  approvalPolicies: ApprovalPolicyReader;
  /** DISBURSEMENT_DESK: payouts that need no approvers are queued for the desk, not given a workflow each. */
  desk?: DisbursementDesk;
}

/** What an operator may see of a receiver: the kind and the last four digits (the masking every list uses). */
export function receiverLabel(receiver: DisbursementReceiver): string {
  const number =
    receiver.kind === 'wallet' ? receiver.walletId : (receiver.bankAccountNo ?? receiver.bankCardNo ?? '');
  const kind = receiver.kind === 'wallet' ? 'wallet' : `bank ${receiver.bankCode}`;
  return `${kind} ${maskNumber(number)}`;
}

export async function createDisbursement(
  deps: DisbursementDeps,
  input: {
    disbursementId: string;
    amount: number;
    description: string;
    receiver: DisbursementReceiver;
    principal: Principal;
    create?: CreateRequest;
  },
) {
  const { db, temporal } = deps;
  const workflowId = disbursementWorkflowId(input.disbursementId);
  const receiverLabelText = receiverLabel(input.receiver);
  // Read once: the state the record starts in and the requirement recorded with it follow one policy.
  const approvalPolicy = await deps.approvalPolicies.policyAt(new Date());
  const waitsForApprovers = requirementFor(approvalPolicy, 'disbursement', input.amount).approvers > 0;
  // A payout held for approvers waits in a workflow of its own; the desk takes the rest when it is on.
  const desk = waitsForApprovers ? undefined : deps.desk;
  await createOrResume({
    // The record, its orderIds and its approval (within the day's caps) together, or none of them.
    insert: () =>
      db.transaction(async (trx) => {
        const inserted = await insertDisbursement(trx, {
          disbursement_id: input.disbursementId,
          // The gateway orderId is the merchant's own disbursement id: one id, one payout, ever.
          order_id: input.disbursementId,
          workflow_id: workflowId,
          // A desk payout's record names the desk until a workflow of its own (workflow_id) takes it over.
          ...(desk && {
            desk_id: disbursementDeskWorkflowId(deps.taskQueue),
            desk_receiver: sealDeskReceiver(input.receiver, desk.keyring, input.disbursementId),
          }),
          request_type: input.receiver.kind === 'wallet' ? 'disburseToWallet' : 'disburseToBank',
          amount: input.amount,
          receiver_label: receiverLabelText,
          description: input.description,
          // Held before its first step when the policy asks for approvers.
          status: waitsForApprovers ? 'awaiting_approval' : 'queued',
          created_by_key: input.principal.keyId,
          created_by: input.principal.name,
        });
        if (!inserted) return false;
        await requestApprovalIn(trx, approvalPolicy, {
          kind: 'disbursement',
          objectId: input.disbursementId,
          amount: input.amount,
          receiverLabel: receiverLabelText,
          description: input.description,
          principal: input.principal,
        });
        return true;
      }),
    createdByKeyOf: async () => (await findDisbursement(db, input.disbursementId))?.created_by_key,
    request: input,
    exists: () =>
      conflict(
        'disbursement_exists',
        `Disbursement ${input.disbursementId} already exists; a payout id is paid once.`,
      ),
    // The workflow's input is read back from the records, so a resumed create starts what the first recorded.
    start: async (adopted) => {
      // A resumed create follows the record the first attempt made, whatever the policy says now.
      const queuedForDesk = adopted
        ? Boolean((await findDisbursement(db, input.disbursementId))?.desk_id)
        : desk !== undefined;
      if (queuedForDesk) {
        if (!deps.desk) throw new Error('A disbursement queued for the desk needs DISBURSEMENT_DESK on');
        return deps.desk.ensureRunning();
      }
      const workflowInput: DisbursementInput = {
        disbursementId: input.disbursementId,
        amount: input.amount,
        description: input.description,
        receiver: input.receiver,
        gatewayAttemptTimeout: deps.gatewayAttemptTimeout,
        resultWait: deps.resultWait,
        ipnTimeout: deps.ipnTimeout,
        approval: await approvalRequestOf(db, 'disbursement', input.disbursementId),
        ...(deps.inWorkflowTask && { disburseInWorkflowTask: true as const }),
      };
      return startWorkflow(temporal, 'disbursement', {
        taskQueue: deps.taskQueue,
        workflowId,
        args: [workflowInput],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Disbursement ${input.disbursementId}: ${input.amount} VND to ${receiverLabelText}`,
        typedSearchAttributes: [{ key: payrunOrderId, value: input.disbursementId }],
      });
    },
  });
  return disbursementView(db, input.disbursementId);
}

export async function disbursementView(db: Db, disbursementId: string) {
  const row = await findDisbursement(db, disbursementId);
  if (!row) throw notFound(`Disbursement ${disbursementId}`);
  return {
    disbursementId: row.disbursement_id,
    status: row.status,
    requestType: row.request_type,
    amount: Number(row.amount),
    receiver: row.receiver_label,
    description: row.description,
    resultCode: row.result_code,
    message: row.message,
    transId: row.trans_id,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // Where to look in the Temporal UI: the desk while it holds the payout (settled there included).
    workflowId: row.desk_id ?? row.workflow_id,
    // The desk's chunk that claimed it (DISBURSEMENT_DESK): its result in the desk's history names this payout.
    deskChunk: row.desk_chunk ?? null,
  };
}

export async function listDisbursements(db: Db, filter: ListFilter) {
  const page = await listDisbursementIds(db, filter);
  const rows = await Promise.all(page.rows.map((disbursementId) => disbursementView(db, disbursementId)));
  return { rows, nextOffset: page.nextOffset };
}
