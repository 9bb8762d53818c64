/**
 * Retrying a run's failed rows (docs/payout-runs.md): one action on a reconciled run makes a linked child run
 * of exactly its failed rows, as a draft its maker may edit row by row (validated as upload rows are); once
 * submitted it is a run like any other: the approval policy, four eyes and the daily caps, then the same
 * workflow. A family (the first run and its retries, and theirs) never pays a payout id twice:
 *  - the database lets one item per payout id be queued, eligible, pending or paid, across every run, and a
 *    draft's rows are queued from the moment it exists, so nothing else can claim them meanwhile;
 *  - only rows whose final outcome is "not paid" (FAILED, INELIGIBLE) of a reconciled run are taken, and only
 *    when no run holds their payout id live; a reconciled run has no pending row, and final states never move;
 *  - one open retry per family (a unique index), and batch/create refuses a batch holding a payout id that
 *    another run of the family paid or is paying (activities/payouts/batches.ts).
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/shared/knex';
import { OrderIdTaken, reserveOrderIds } from '../../db/shared/gateway-order-ids';
import {
  abandonUnstartedRun,
  batchesOf,
  insertRunBatches,
  runItems,
  runsCountingToday,
  setRunStatus,
  type PayoutItemRow,
  type PayoutRunRow,
} from '../../db/payouts/runs';
import {
  draftItem,
  familyItems,
  familyRuns,
  insertDraftRun,
  lockRun,
  openRetry,
  recordSubmission,
  removeDraftItem,
  rootOf,
  rowsToRetry,
  settleDraftBatches,
  updateDraftItem,
  type DraftItemPatch,
} from '../../db/payouts/retries';
import { canMoveRun, payoutRunWorkflowId, type ItemState } from '../../contracts/payouts';
import { requirementIn } from '../../contracts/approvals';
import { isSamePerson } from '../../contracts/shared';
import { itemFailureReason } from '../../gateway';
import type { Principal } from '../auth/roles';
import type { AuditTrail } from '../http/audit-trail';
import { ApiError, conflict, notFound } from '../http/errors';
import { certainlyNotStarted } from '../http/resumable';
import { dailyCapExceeded } from '../approvals/approvals';
import { orderIdTaken } from '../order-ids';
import { PayoutRowChecker, type PayoutRow } from './payout-file-rows';
import { PAYOUT_COLUMNS } from './payout-columns';
import {
  actorOf,
  newRunId,
  requireRun,
  runCapBreach,
  runView,
  startRunWorkflow,
  type PayoutDeps,
} from './payout-runs';

const isUniqueViolation = (error: unknown, constraint: string) =>
  (error as { constraint?: string }).constraint === constraint;

/** The rows of a draft, hashed as the evidence of what was submitted (a retry has no file of its own). */
const rowsHash = (rows: readonly PayoutItemRow[]) =>
  createHash('sha256')
    .update(
      JSON.stringify(
        rows.map((row) => [
          row.payout_id,
          row.row_number,
          row.wallet_id,
          row.wallet_name,
          Number(row.amount),
        ]),
      ),
    )
    .digest('hex');

const asPayoutRow = (item: PayoutItemRow): PayoutRow => ({
  rowNumber: item.row_number,
  payoutId: item.payout_id,
  walletId: item.wallet_id,
  walletName: item.wallet_name,
  personalId: item.personal_id,
  amount: Number(item.amount),
  description: item.description,
  storeId: item.store_id,
});

/** POST /v1/payout-runs/:runId/retry-failed: a draft child run of the run's failed rows. */
export async function retryFailedRows(
  deps: PayoutDeps,
  input: { runId: string; principal: Principal; audit?: AuditTrail },
) {
  const { db, settings } = deps;
  const actor = actorOf(input.principal);
  const childId = newRunId();
  try {
    await db.transaction(async (trx) => {
      // Locked: two retries of the same run asked at once take turns (the unique index settles other runs).
      const parent = await lockRun(trx, input.runId);
      if (!parent) throw notFound(`Payout run ${input.runId}`);
      if (parent.status !== 'reconciled')
        throw conflict(
          'run_not_reconciled',
          `Run ${input.runId} is ${parent.status}; only a reconciled run's failed rows can be retried.`,
        );
      const rootRunId = rootOf(parent);
      const open = await openRetry(trx, rootRunId);
      if (open) throw retryOpen(open);
      const rows = await rowsToRetry(trx, input.runId);
      if (!rows.length)
        throw conflict(
          'no_failed_rows',
          `Run ${input.runId} has no failed row left to retry: every row was paid, or is paid or being paid by a retry.`,
        );
      const batches = batchesOf(childId, rows.map(asPayoutRow), settings.batchSize);
      await insertDraftRun(trx, {
        run_id: childId,
        parent_run_id: parent.run_id,
        root_run_id: rootRunId,
        file_name: `retry of ${parent.file_name}`.slice(0, 200),
        file_sha256: rowsHash(rows),
        row_count: rows.length,
        total_amount: rows.reduce((sum, row) => sum + Number(row.amount), 0),
        batch_count: batches.length,
        workflow_id: payoutRunWorkflowId(childId),
        uploaded_by_key: actor.keyId,
        uploaded_by: actor.name,
        // Set again when it is submitted; a draft waits for nobody.
        expires_at: new Date(Date.now() + settings.approvalTtlHours * 3600_000),
      });
      // Queued from now on: the payout ids are this draft's until it is submitted and paid, or discarded.
      await insertRunBatches(trx, childId, batches, { reserveOrderIds: false });
      input.audit?.note({ details: { childRunId: childId, rowCount: rows.length } });
      await input.audit?.recordIn(trx);
    });
  } catch (error) {
    if (isUniqueViolation(error, 'payout_runs_one_open_retry'))
      throw conflict('retry_already_open', `A retry of run ${input.runId}'s family was made a moment ago.`);
    if (isUniqueViolation(error, 'payout_items_one_live_payout'))
      throw conflict(
        'payout_in_flight',
        'Another run claimed some of these payout ids a moment ago; try again.',
      );
    throw error;
  }
  return runView(deps, childId);
}

const retryOpen = (open: PayoutRunRow) =>
  conflict(
    'retry_already_open',
    `Run ${open.run_id}, a retry of this family, is ${open.status}; submit, discard or finish it before another retry.`,
  );

/** A draft, for the person who made it: its edits, submission and discarding are theirs alone. */
async function requireOwnDraft(db: Db, runId: string, principal: Principal): Promise<PayoutRunRow> {
  const run = await requireRun(db, runId);
  if (run.status !== 'draft')
    throw conflict(
      'run_not_draft',
      `Run ${runId} is ${run.status}; only a retry draft can be edited or submitted.`,
    );
  if (!isSamePerson(actorOf(principal), { keyId: run.uploaded_by_key, name: run.uploaded_by }))
    throw new ApiError(
      'forbidden',
      `${run.uploaded_by} made this retry draft; only they may change or submit it.`,
    );
  return run;
}

export interface DraftEdit {
  amount?: number;
  walletId?: string;
  walletName?: string;
  personalId?: string | null;
  description?: string;
  remove?: true;
}

/** PATCH /v1/payout-runs/:runId/items/:itemNo: one row of a draft, changed or removed. */
export async function editDraftItem(
  deps: PayoutDeps,
  input: { runId: string; itemNo: number; edit: DraftEdit; principal: Principal },
) {
  const { db } = deps;
  await requireOwnDraft(db, input.runId, input.principal);
  const item = await draftItem(db, input.runId, input.itemNo);
  if (!item) throw notFound(`Row ${input.itemNo} of run ${input.runId}`);
  const { edit } = input;
  await db.transaction(async (trx) => {
    // The draft may have been submitted since it was read: the row changes only while it still is one.
    const locked = await lockRun(trx, input.runId);
    if (locked?.status !== 'draft')
      throw conflict('run_not_draft', `Run ${input.runId} was submitted or discarded meanwhile.`);
    if (edit.remove) return removeDraftItem(trx, input.runId, input.itemNo);
    const patch = checkedPatch(item, edit);
    await updateDraftItem(trx, input.runId, input.itemNo, patch);
  });
  return draftView(deps, input.runId);
}

/**
 * The row as edited, checked by the rules every uploaded row meets (api/payouts/payout-file-rows.ts): a row
 * that would have been refused in a file is refused here, 400 naming the column and the rule, and unchanged.
 */
function checkedPatch(item: PayoutItemRow, edit: DraftEdit): DraftItemPatch {
  const next = {
    payout_id: item.payout_id,
    wallet_id: edit.walletId ?? item.wallet_id,
    wallet_name: edit.walletName ?? item.wallet_name,
    personal_id: edit.personalId === undefined ? item.personal_id : edit.personalId,
    amount: String(edit.amount ?? Number(item.amount)),
    description: edit.description ?? item.description,
    store_id: item.store_id,
    // The directory is not consulted for an edit: the row is checked as the receiver it names now.
    payee_id: null as string | null,
  };
  const checker = new PayoutRowChecker();
  checker.add(
    item.row_number,
    PAYOUT_COLUMNS.map((column) => next[column] ?? ''),
    new Map(PAYOUT_COLUMNS.map((column, index) => [column, index])),
  );
  if (checker.rowErrors.length)
    throw new ApiError(
      'invalid_request',
      `Row ${item.row_number} was not changed: it breaks the file's rules.`,
      {
        status: 400,
        problems: checker.rowErrors.map((error) => ({
          field: FIELD_OF_COLUMN[error.column ?? ''] ?? 'body',
          rule: error.rule,
          message: error.message,
        })),
      },
    );
  const row = checker.rows[0]!;
  return {
    wallet_id: row.walletId,
    wallet_name: row.walletName,
    personal_id: row.personalId,
    amount: row.amount,
    description: row.description,
  };
}

const FIELD_OF_COLUMN: Record<string, string> = {
  wallet_id: 'walletId',
  wallet_name: 'walletName',
  personal_id: 'personalId',
  amount: 'amount',
  description: 'description',
};

/**
 * POST /v1/payout-runs/:runId/submit: the draft becomes a run awaiting approval, under the policy and caps in
 * effect now. A submission interrupted after it was recorded is finished by sending it again.
 */
export async function submitRetry(
  deps: PayoutDeps,
  input: { runId: string; principal: Principal; audit?: AuditTrail },
) {
  const { db, settings } = deps;
  const existing = await requireRun(db, input.runId);
  if (existing.status === 'awaiting_approval' && existing.parent_run_id) {
    await requireSameMaker(existing, input.principal);
    await startSubmitted(deps, input.runId);
    return runView(deps, input.runId);
  }
  const draft = await requireOwnDraft(db, input.runId, input.principal);
  const actor = actorOf(input.principal);
  const runPolicy = (await deps.approvalPolicies.policyAt(new Date())).payoutRun;
  try {
    await db.transaction(async (trx) => {
      const locked = await lockRun(trx, draft.run_id);
      if (locked?.status !== 'draft')
        throw conflict('run_not_draft', `Run ${draft.run_id} was submitted or discarded meanwhile.`);
      const batches = await settleDraftBatches(trx, draft.run_id);
      const rows = await runItems(trx, draft.run_id);
      if (!rows.length)
        throw conflict(
          'retry_draft_empty',
          `Every row of ${draft.run_id} was removed; discard the draft instead.`,
        );
      const total = batches.reduce((sum, batch) => sum + batch.total_amount, 0);
      const breach = runCapBreach(await runsCountingToday(trx), actor.name, total, runPolicy);
      if (breach)
        throw dailyCapExceeded({
          what: 'payout run',
          amount: total,
          maker: actor.name,
          breach,
          field: 'runId',
          rule: `approvalPolicy.payoutRun.${breach.cap}`,
        });
      const requirement = requirementIn(runPolicy, total);
      await recordSubmission(trx, draft.run_id, {
        row_count: rows.length,
        total_amount: total,
        batch_count: batches.length,
        file_sha256: rowsHash(rows),
        expires_at: new Date(Date.now() + settings.approvalTtlHours * 3600_000),
        required_approvers: requirement.approvers,
        approver_roles: requirement.roles,
      });
      await reserveOrderIds(
        trx,
        batches.map((batch) => ({ orderId: batch.batch_id, kind: 'payout_batch', objectId: batch.batch_id })),
      );
      await setRunStatus(trx, draft.run_id, 'awaiting_approval', { status_reason: null }, canMoveRun);
      input.audit?.note({ details: { rowCount: rows.length, totalAmount: total } });
      await input.audit?.recordIn(trx);
    });
  } catch (error) {
    if (error instanceof OrderIdTaken) throw orderIdTaken(error);
    throw error;
  }
  await startSubmitted(deps, draft.run_id);
  return runView(deps, draft.run_id);
}

async function requireSameMaker(run: PayoutRunRow, principal: Principal) {
  if (!isSamePerson(actorOf(principal), { keyId: run.uploaded_by_key, name: run.uploaded_by }))
    throw new ApiError('forbidden', `${run.uploaded_by} made this retry; only they may submit it.`);
}

/**
 * Starts a submitted retry's workflow. When Temporal is sure it did not start, nothing was paid: the run ends
 * expired and its payout ids are free for another retry.
 */
async function startSubmitted(deps: PayoutDeps, runId: string) {
  try {
    await startRunWorkflow(deps, runId);
  } catch (error) {
    if (await certainlyNotStarted(deps.temporal, payoutRunWorkflowId(runId)))
      await abandonUnstartedRun(deps.db, runId, 'The workflow could not be started.', canMoveRun);
    throw error;
  }
}

/** POST /v1/payout-runs/:runId/discard: a draft given up; its rows stay failed in the run it came from. */
export async function discardDraft(deps: PayoutDeps, input: { runId: string; principal: Principal }) {
  const draft = await requireOwnDraft(deps.db, input.runId, input.principal);
  await abandonUnstartedRun(
    deps.db,
    draft.run_id,
    `Discarded by ${draft.uploaded_by} before submission.`,
    canMoveRun,
  );
  return runView(deps, draft.run_id);
}

/** A draft with its rows, as its maker edits it (receivers in full: only the payout duties reach it). */
export async function draftView(deps: PayoutDeps, runId: string) {
  const [view, items] = await Promise.all([runView(deps, runId), runItems(deps.db, runId)]);
  return {
    ...view,
    items: items.map((item) => ({
      itemNo: item.row_number,
      payoutId: item.payout_id,
      walletId: item.wallet_id,
      walletName: item.wallet_name,
      personalId: item.personal_id,
      amount: Number(item.amount),
      description: item.description,
    })),
  };
}

type FamilyOutcome = 'paid' | 'failed' | 'pending';

const OUTCOME_OF: Record<ItemState, FamilyOutcome> = {
  SUCCEEDED: 'paid',
  FAILED: 'failed',
  INELIGIBLE: 'failed',
  CANCELLED: 'failed',
  QUEUED: 'pending',
  ELIGIBLE: 'pending',
  PENDING: 'pending',
};

/**
 * GET /v1/payout-runs/:runId/reconciliation: each of the run's rows, its final outcome across the family (a
 * retry that paid it, one still paying it, or the last failure), and totals over the run's own rows: paid +
 * failed + pending = its rows, in count and in the amounts the run asked for (`paidAmount` is what was paid,
 * which an edit in a retry may have changed).
 */
export async function combinedReconciliation(deps: Pick<PayoutDeps, 'db'>, runId: string) {
  const { db } = deps;
  const run = await requireRun(db, runId);
  const rootRunId = rootOf(run);
  const [runs, items] = await Promise.all([familyRuns(db, rootRunId), familyItems(db, rootRunId)]);
  const order = new Map(runs.map((member, index) => [member.run_id, index]));
  // Only this run and the runs descended from it speak for its rows.
  const descended = descendantsOf(runs, runId);
  const byPayout = new Map<string, PayoutItemRow[]>();
  for (const item of items)
    if (descended.has(item.run_id))
      byPayout.set(item.payout_id, [...(byPayout.get(item.payout_id) ?? []), item]);
  const own = items.filter((item) => item.run_id === runId).sort((a, b) => a.row_number - b.row_number);
  const rows = own.map((item) => {
    const attempts = (byPayout.get(item.payout_id) ?? [item]).sort(
      (a, b) => (order.get(a.run_id) ?? 0) - (order.get(b.run_id) ?? 0),
    );
    // Paid anywhere wins; then a run still paying it; else the last real failure (a discarded draft's
    // cancelled copy tells nothing about why the row was not paid).
    const decisive =
      attempts.find((attempt) => attempt.state === 'SUCCEEDED') ??
      attempts.find((attempt) => OUTCOME_OF[attempt.state] === 'pending') ??
      attempts.filter((attempt) => attempt.state !== 'CANCELLED').pop() ??
      attempts[attempts.length - 1]!;
    const outcome = OUTCOME_OF[decisive.state];
    return {
      itemNo: item.row_number,
      payoutId: item.payout_id,
      amount: Number(item.amount),
      outcome,
      runId: decisive.run_id,
      ...(outcome === 'paid' && {
        paidBy: decisive.run_id,
        paidAmount: Number(decisive.amount),
        transId: decisive.trans_id,
      }),
      ...(outcome === 'failed' && {
        resultCode: decisive.result_code,
        message: decisive.message,
        reason: itemFailureReason(decisive.result_code),
      }),
      attempts: attempts.map((attempt) => ({ runId: attempt.run_id, state: attempt.state })),
    };
  });
  const total = (outcome: FamilyOutcome) => {
    const matching = rows.filter((row) => row.outcome === outcome);
    return { count: matching.length, amount: matching.reduce((sum, row) => sum + row.amount, 0) };
  };
  const paid = total('paid');
  return {
    runId,
    rootRunId,
    runs: runs
      .filter((member) => descended.has(member.run_id))
      .map((member) => ({
        runId: member.run_id,
        parentRunId: member.parent_run_id,
        status: member.status,
      })),
    rows,
    totals: {
      rows: { count: own.length, amount: own.reduce((sum, item) => sum + Number(item.amount), 0) },
      paid: { ...paid, paidAmount: rows.reduce((sum, row) => sum + (row.paidAmount ?? 0), 0) },
      failed: total('failed'),
      pending: total('pending'),
    },
  };
}

/** `runId` and every run made from it by retries, at any depth. */
function descendantsOf(runs: readonly PayoutRunRow[], runId: string): Set<string> {
  const found = new Set([runId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const member of runs)
      if (member.parent_run_id && found.has(member.parent_run_id) && !found.has(member.run_id)) {
        found.add(member.run_id);
        grew = true;
      }
  }
  return found;
}
