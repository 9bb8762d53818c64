/**
 * The payee directory's stories: save a payee (its wallet checked through the gateway, the name compared),
 * find and read payees with their history, and change one only with a second person: a proposal is checked
 * again and changes nothing until someone else approves it.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/shared/knex';
import {
  decideChange,
  detailsOf,
  findPayee,
  insertPayee,
  listPayees,
  payeeHistory,
  proposeChange,
  type ChangeRefusal,
  type PayeeChangeRow,
  type PayeeRow,
} from '../../db/payees/payees';
import {
  payeeCheckWorkflowId,
  type PayeeDetails,
  type PayeeStatus,
  type WalletCheckOutcome,
} from '../../contracts/payees';
import type { Principal } from '../auth/roles';
import { ApiError, notFound } from '../http/errors';
import { maskName, maskNumber, seesReceiversInFull } from '../http/masking';
import { executeWorkflow } from '../workflow-starts';

export interface PayeeDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
}

const personOf = (principal: Principal) => ({ keyId: principal.keyId, name: principal.name });
const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

const UNCHECKED: WalletCheckOutcome = {
  nameCheck: 'unchecked',
  registeredName: null,
  resultCode: null,
  message: null,
};

/**
 * The wallet check, through a one-activity workflow on the workers (the API holds no gateway
 * credentials). A bank payee has nothing to check (document 3 checks wallets only); a check that could
 * not be made leaves the payee `unchecked`, which the approval screen shows like any other flag.
 */
async function checkDetails(
  deps: PayeeDeps,
  details: PayeeDetails,
  /** The payee's (`<payeeId>-v1`) or the change's id: the Temporal UI names what each check was for. */
  checkId: string,
): Promise<WalletCheckOutcome> {
  if (!details.wallet) return UNCHECKED;
  try {
    return await executeWorkflow(deps.temporal, 'payeeCheck', {
      taskQueue: deps.taskQueue,
      workflowId: payeeCheckWorkflowId(checkId),
      args: [
        { walletId: details.wallet.walletId, name: details.name, personalId: details.wallet.personalId },
      ],
      workflowExecutionTimeout: '30 seconds',
    });
  } catch {
    return UNCHECKED;
  }
}

export async function createPayee(deps: PayeeDeps, input: { details: PayeeDetails; principal: Principal }) {
  const payeeId = newId('pe');
  const check = await checkDetails(deps, input.details, `${payeeId}-v1`);
  const row = await insertPayee(deps.db, {
    payeeId,
    details: input.details,
    check,
    by: personOf(input.principal),
  });
  return payeeView(row, input.principal);
}

export async function payeeList(
  db: Db,
  filter: { q?: string; status?: PayeeStatus; limit: number; offset: number },
  reader: Principal,
) {
  const page = await listPayees(db, { ...filter, search: filter.q });
  return { rows: page.rows.map((row) => payeeView(row, reader)), nextOffset: page.nextOffset };
}

export async function payeeDetail(db: Db, payeeId: string, reader: Principal) {
  const row = await findPayee(db, payeeId);
  if (!row) throw notFound(`Payee ${payeeId}`);
  const history = await payeeHistory(db, payeeId);
  const full = seesReceiversInFull(reader);
  return {
    ...payeeView(row, reader),
    versions: history.versions.map((version) => ({
      version: version.version,
      status: version.status,
      nameCheck: version.name_check,
      details: shownDetails(version.details, full),
      proposedBy: version.proposed_by,
      approvedBy: version.approved_by,
      at: new Date(version.at).toISOString(),
    })),
    changes: history.changes.map((change) => changeView(change, full)),
  };
}

export async function proposePayeeChange(
  deps: PayeeDeps,
  input: { payeeId: string; details: PayeeDetails; principal: Principal },
) {
  await requireActive(deps.db, input.payeeId);
  // Checked again before anyone is asked to approve: the approver sees what the gateway said of the new details.
  const changeId = newId('pc');
  const check = await checkDetails(deps, input.details, changeId);
  const proposed = await proposeChange(deps.db, {
    changeId,
    payeeId: input.payeeId,
    action: 'update',
    details: input.details,
    reason: null,
    check,
    by: personOf(input.principal),
  });
  if ('refused' in proposed) throw refusal(proposed, input.payeeId);
  return changeView(proposed.change, seesReceiversInFull(input.principal));
}

export async function proposePayeeArchive(
  deps: PayeeDeps,
  input: { payeeId: string; reason: string; principal: Principal },
) {
  const proposed = await proposeChange(deps.db, {
    changeId: newId('pc'),
    payeeId: input.payeeId,
    action: 'archive',
    details: null,
    reason: input.reason,
    check: null,
    by: personOf(input.principal),
  });
  if ('refused' in proposed) throw refusal(proposed, input.payeeId);
  return changeView(proposed.change, seesReceiversInFull(input.principal));
}

export async function decidePayeeChange(
  deps: PayeeDeps,
  input: { payeeId: string; changeId: string; decision: 'approve' | 'reject'; principal: Principal },
) {
  const decided = await decideChange(deps.db, { ...input, by: personOf(input.principal) });
  if ('refused' in decided) throw refusal(decided, input.payeeId, input.changeId);
  return payeeDetail(deps.db, input.payeeId, input.principal);
}

async function requireActive(db: Db, payeeId: string): Promise<PayeeRow> {
  const row = await findPayee(db, payeeId);
  if (!row) throw notFound(`Payee ${payeeId}`);
  if (row.status === 'archived') throw refusal({ refused: 'archived' }, payeeId);
  return row;
}

function refusal(refused: ChangeRefusal, payeeId: string, changeId?: string): ApiError {
  switch (refused.refused) {
    case 'not_found':
      return notFound(changeId ? `Change ${changeId} of payee ${payeeId}` : `Payee ${payeeId}`);
    case 'archived':
      return new ApiError('payee_archived', `Payee ${payeeId} is archived; it changes no more.`);
    case 'open_proposal':
      return new ApiError(
        'payee_change_open',
        `Payee ${payeeId} has change ${refused.changeId} waiting for a second person; approve or reject it first.`,
      );
    case 'not_proposed':
      return new ApiError('payee_change_not_proposed', `Change ${changeId} is ${refused.status} already.`);
    case 'same_person':
      return new ApiError(
        'self_approval',
        `${refused.proposedBy} proposed this change and cannot approve it, with any of their keys; another person must.`,
      );
    case 'stale':
      return new ApiError(
        'payee_change_stale',
        `Change ${changeId} was made against version ${refused.baseVersion}; the payee is at version ${refused.version} now. Nothing changed.`,
      );
  }
}

/** Receivers in full for the payout duties and admins, masked for everyone else (api/http/masking). */
function shownDetails(details: PayeeDetails, full: boolean) {
  if (full) return details;
  return {
    name: maskName(details.name),
    ...(details.wallet && {
      wallet: {
        walletId: maskNumber(details.wallet.walletId),
        personalId: details.wallet.personalId && '****',
      },
    }),
    ...(details.bank && {
      bank: {
        bankCode: details.bank.bankCode,
        ...(details.bank.bankAccountNo && { bankAccountNo: maskNumber(details.bank.bankAccountNo) }),
        ...(details.bank.bankCardNo && { bankCardNo: maskNumber(details.bank.bankCardNo) }),
      },
    }),
    reference: details.reference,
  };
}

/** The name check as shown: the registered name always masked, as names are in every list. */
const nameCheckView = (check: {
  name_check: string | null;
  registered_name: string | null;
  check_result_code: number | null;
  check_message: string | null;
}) => ({
  nameCheck: check.name_check ?? 'unchecked',
  registeredName: check.registered_name === null ? null : maskName(check.registered_name),
  check: { resultCode: check.check_result_code, message: check.check_message },
});

export function payeeView(row: PayeeRow, reader: Principal) {
  return {
    payeeId: row.payee_id,
    kind: row.kind,
    status: row.status,
    version: row.version,
    ...shownDetails(detailsOf(row), seesReceiversInFull(reader)),
    ...nameCheckView(row),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
    detailsChangedAt: row.details_changed_at ? new Date(row.details_changed_at).toISOString() : null,
  };
}

function changeView(change: PayeeChangeRow, full: boolean) {
  return {
    changeId: change.change_id,
    payeeId: change.payee_id,
    action: change.action,
    status: change.status,
    details: change.details ? shownDetails(change.details, full) : null,
    reason: change.reason,
    ...(change.action === 'update' && nameCheckView(change)),
    baseVersion: change.base_version,
    proposedBy: change.proposed_by,
    proposedAt: new Date(change.proposed_at).toISOString(),
    decidedBy: change.decided_by,
    decidedAt: change.decided_at ? new Date(change.decided_at).toISOString() : null,
  };
}
