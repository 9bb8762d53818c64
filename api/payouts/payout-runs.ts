/**
 * The payout run stories: upload (validate, refuse or create and start), decide (approve / reject),
 * resume after a top-up, and read progress and results. Routes stay thin and call these.
 */
import { randomBytes } from 'node:crypto';
import type { ReadPayoutFile } from './payout-file-stream';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db } from '../../db/shared/knex';
import { OrderIdTaken } from '../../db/shared/gateway-order-ids';
import type { ListFilter } from '../../db/shared/list-filter';
import {
  abandonUnstartedRun,
  findLivePayoutIds,
  findRunIdByRequestKey,
  getRun,
  batchesOf,
  insertRunBatches,
  insertRun,
  itemCounts,
  itemCountsByBatch,
  listBatches,
  listRuns as listRunRows,
  runItems,
  runCapBreach,
  runsCountingToday,
  type PayoutItemRow,
  type PayoutRunRow,
} from '../../db/payouts/runs';
import {
  approvalAction,
  canMoveRun,
  cancelScheduledUpdate,
  decideUpdate,
  payoutRunWorkflowId,
  resumeSignal,
  type Actor,
  type ItemState,
  type PayoutRunInput,
  type PayoutTiming,
} from '../../contracts/payouts';
import { DECISION_REFUSED, failureTypeOf, isSamePerson, payrunRunId } from '../../contracts/shared';
import { requirementIn } from '../../contracts/approvals';
import { childRuns } from '../../db/payouts/retries';
import { itemFailureReason } from '../../gateway';
import type { NameCheck, PayeeFlag } from '../../contracts/payees';
import { CONFIG_DEFAULTS } from '../../platform/config';
import { dailyCapExceeded } from '../approvals/approvals';
import type { ApprovalPolicyReader } from '../approvals/policy-reader';
import type { SignDecision } from '../http/decision-signer';
import { hasAnyRole, type Principal, type Role } from '../auth/roles';
import type { AuditTrail } from '../http/audit-trail';
import { ApiError, conflict, forbidden, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { maskName, maskNumber, seesReceiversInFull } from '../http/masking';
import { certainlyNotStarted, startOnce, workflowNotStarted } from '../http/resumable';
import { toCsv } from '../http/csv';
import { markAlreadyPaid, type PayoutFileReport } from './payout-file';
import { payeeIdsOf, resolvePayees } from './payout-payees';
import { payeeFlagsOfRun, payeesByIds } from '../../db/payees/payees';
import { startWorkflow } from '../workflow-starts';
import { orderIdTaken } from '../order-ids';
import { utcInstant } from './scheduling';

export interface PayoutSettings {
  maxRows: number;
  batchSize: number;
  parallelBatches: number;
  approvalTtlHours: number;
  /** PAYOUT_SCHEDULE_CHECK_AHEAD: when a scheduled run checks receivers and balance; absent: the default. */
  scheduleCheckAhead?: string;
  timing: PayoutTiming;
  taskQueue: string;
  /** A single disbursement's waits: for its notification before asking, for its final result before an operator is told. */
  disbursement: { ipnTimeout: string; resultWait: string; inWorkflowTask: boolean; desk: boolean };
  /** PAYEE_CHANGED_WINDOW_DAYS: a row's payee changed this recently is flagged `changed` to the approver. */
  payeeChangedWindowDays?: number;
  /** BALANCE_WATCH_INTERVAL: seconds between two readings of the balance watcher. */
  balanceWatchIntervalSeconds?: number;
}

type ViewDeps = Pick<PayoutDeps, 'db'> & { settings?: Pick<PayoutSettings, 'payeeChangedWindowDays'> };
const windowOf = (deps: ViewDeps) =>
  deps.settings?.payeeChangedWindowDays ?? CONFIG_DEFAULTS.PAYEE_CHANGED_WINDOW_DAYS;

export interface PayoutDeps {
  db: Db;
  temporal: Client;
  settings: PayoutSettings;
  /** Signs each decision for the workflow, which admits no decision without the API's proof. */
  signDecision: SignDecision;
  /** The approval policy in effect at an upload: the run's approvers and the daily caps (`payoutRun`). */
  approvalPolicies: ApprovalPolicyReader;
}

export const actorOf = (principal: Principal): Actor => ({ keyId: principal.keyId, name: principal.name });

export function newRunId(now = new Date()): string {
  return `run-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Validation of a file, including payout ids an earlier run already paid or is paying, and the directory
 * payees its rows name (whose wallets they pay).
 */
export async function validatePayoutFile(
  deps: Pick<PayoutDeps, 'db'>,
  read: PayoutFileReport,
): Promise<PayoutFileReport> {
  if (read.fileErrors.length || read.rows.length === 0) return read;
  const report = resolvePayees(read, await payeesByIds(deps.db, payeeIdsOf(read)));
  return markAlreadyPaid(
    report,
    await findLivePayoutIds(
      deps.db,
      report.rows.map((row) => row.payoutId),
    ),
  );
}

export function reportSummary(report: PayoutFileReport, batchSize: number) {
  const valid = report.fileErrors.length === 0 && report.rowErrors.length === 0;
  return {
    valid,
    rowCount: report.rowCount,
    validRowCount: report.rows.length,
    totalAmount: report.totalAmount,
    batchCount: valid ? Math.ceil(report.rows.length / batchSize) : 0,
    source: report.source,
    fileErrors: report.fileErrors,
    rowErrors: report.rowErrors,
  };
}

function invalidFile(report: PayoutFileReport): ApiError {
  const problems = [
    ...report.fileErrors.map((error) => ({ field: 'file', rule: error.rule, message: error.message })),
    ...report.rowErrors.map((error) => ({
      field: `row ${error.row}${error.column ? `.${error.column}` : ''}`,
      rule: error.rule,
      message: error.message,
    })),
  ];
  const what = report.fileErrors.length
    ? report.fileErrors.map((error) => error.message).join(' ')
    : `${new Set(report.rowErrors.map((error) => error.row)).size} of ${report.rowCount} rows have errors.`;
  return new ApiError('invalid_payout_file', `The file was not accepted: ${what} Nothing was created.`, {
    problems: problems,
  });
}

/** Creates the run's records and starts its workflow; a file with any error creates nothing. */
export async function uploadPayoutRun(
  deps: PayoutDeps,
  input: {
    file: ReadPayoutFile;
    fileName: string;
    principal: Principal;
    audit?: AuditTrail;
    create?: CreateRequest;
  },
) {
  const { db, settings } = deps;
  if (input.create) {
    // A retry of an interrupted upload finds the run its first attempt recorded (its rows are that run's,
    // not "already being paid") and finishes it.
    const earlier = await findRunIdByRequestKey(db, input.create.requestKey);
    if (earlier) {
      await startRunWorkflow(deps, earlier);
      return runView(deps, earlier);
    }
  }
  const report = await validatePayoutFile(deps, input.file.report);
  if (report.fileErrors.length || report.rowErrors.length) throw invalidFile(report);

  const runId = newRunId();
  const batches = batchesOf(runId, report.rows, settings.batchSize);
  const expiresAt = new Date(Date.now() + settings.approvalTtlHours * 3600_000);
  const actor = actorOf(input.principal);
  // What the policy in effect asks of a run of this total, recorded with the run: a later change of the
  // policy never alters a run uploaded before it.
  const runPolicy = (await deps.approvalPolicies.policyAt(new Date())).payoutRun;
  const requirement = requirementIn(runPolicy, report.totalAmount);

  try {
    await db.transaction(async (trx) => {
      // Within the day's caps, under a lock that makes uploads take turns; over one, nothing is recorded.
      const breach = runCapBreach(await runsCountingToday(trx), actor.name, report.totalAmount, runPolicy);
      if (breach)
        throw dailyCapExceeded({
          what: 'payout run',
          amount: report.totalAmount,
          maker: actor.name,
          breach,
          field: 'file',
          rule: `approvalPolicy.payoutRun.${breach.cap}`,
        });
      await insertRun(trx, {
        required_approvers: requirement.approvers,
        approver_roles: requirement.roles,
        run_id: runId,
        status: 'awaiting_approval',
        file_name: input.fileName,
        file_sha256: input.file.sha256,
        row_count: report.rows.length,
        total_amount: report.totalAmount,
        batch_count: batches.length,
        workflow_id: payoutRunWorkflowId(runId),
        uploaded_by_key: actor.keyId,
        uploaded_by: actor.name,
        expires_at: expiresAt,
        request_key: input.create?.requestKey ?? null,
      });
      await insertRunBatches(trx, runId, batches, { reserveOrderIds: true });
      // The upload is in the audit log exactly when its run exists.
      input.audit?.note({
        targetId: runId,
        details: { rowCount: report.rows.length, totalAmount: report.totalAmount },
      });
      await input.audit?.recordIn(trx);
    });
  } catch (error) {
    if (error instanceof OrderIdTaken) throw orderIdTaken(error);
    // Another upload claimed one of these payout ids between our check and our insert.
    if ((error as { constraint?: string }).constraint === 'payout_items_one_live_payout') {
      throw conflict(
        'payout_in_flight',
        'Another run claimed some of these payout ids a moment ago; validate the file again.',
      );
    }
    throw error;
  }

  try {
    await startRunWorkflow(deps, runId);
  } catch (error) {
    // With an Idempotency-Key the retry starts it (the run waits, recorded); without one nothing can, so
    // nothing having been paid, the payout ids are released for another upload — but only when Temporal
    // is sure the workflow did not start (it may have persisted the start and failed to answer).
    if (input.create) throw workflowNotStarted(`Payout run ${runId}`);
    if (await certainlyNotStarted(deps.temporal, payoutRunWorkflowId(runId))) {
      await abandonUnstartedRun(db, runId, 'The workflow could not be started.', canMoveRun);
    }
    throw error;
  }
  return runView(deps, runId);
}

// Uploads, retries and a schedule's occurrences (a worker's activity) weigh a run against the caps alike.
export { runCapBreach } from '../../db/payouts/runs';

/**
 * Starts a recorded run's workflow, its input read back from the records (so a resumed upload starts
 * exactly what the first attempt recorded); a run whose workflow already started is left as it is.
 */
export async function startRunWorkflow(deps: PayoutDeps, runId: string): Promise<void> {
  const { db, temporal, settings } = deps;
  const run = await requireRun(db, runId);
  if (run.status !== 'awaiting_approval') return;
  const batches = await listBatches(db, runId);
  const workflowInput: PayoutRunInput = {
    runId,
    batches: batches.map((batch) => ({
      batchId: batch.batch_id,
      itemCount: Number(batch.item_count),
      totalAmount: Number(batch.total_amount),
    })),
    uploadedBy: { keyId: run.uploaded_by_key, name: run.uploaded_by },
    approvalDeadline: new Date(run.expires_at).toISOString(),
    parallelBatches: settings.parallelBatches,
    timing: settings.timing,
    approvers: run.required_approvers,
    ...(settings.scheduleCheckAhead !== undefined && { scheduleCheckAhead: settings.scheduleCheckAhead }),
  };
  await startOnce(() =>
    startWorkflow(temporal, 'payoutRun', {
      taskQueue: settings.taskQueue,
      workflowId: payoutRunWorkflowId(runId),
      args: [workflowInput],
      // A run id is used once: no second workflow can ever pay the same run.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Payout run ${runId}: ${run.row_count} rows, ${run.total_amount} VND from ${run.file_name}, uploaded by ${run.uploaded_by}`,
      typedSearchAttributes: [{ key: payrunRunId, value: runId }],
    }),
  );
}

export async function requireRun(db: Db, runId: string): Promise<PayoutRunRow> {
  const run = await getRun(db, runId);
  if (!run) throw notFound(`Payout run ${runId}`);
  return run;
}

/**
 * Approve or reject through the workflow, which alone decides (maker ≠ checker, still awaiting), and admits
 * the decision only with the proof signed here (contracts/shared/decision-proof.ts).
 */
export async function decideRun(
  deps: PayoutDeps,
  input: {
    runId: string;
    decision: 'approve' | 'reject';
    note?: string;
    /** With an approval: when the run pays (checked by the route: ahead, within 370 days). */
    executeAt?: string;
    principal: Principal;
  },
) {
  const run = await requireRun(deps.db, input.runId);
  const executeAt = input.executeAt === undefined ? undefined : utcInstant(input.executeAt);
  const by = actorOf(input.principal);
  if (
    input.decision === 'approve' &&
    isSamePerson(by, { keyId: run.uploaded_by_key, name: run.uploaded_by })
  ) {
    throw selfApproval(run.uploaded_by);
  }
  if (!hasAnyRole(input.principal, run.approver_roles as Role[]))
    throw forbidden(`Deciding on this run takes one of the roles ${run.approver_roles.join(', ')}.`);
  // The workflow refuses it too (the decisions it admitted are the truth); this answers without a round trip.
  if (input.decision === 'approve' && run.approvals.some((given) => isSamePerson(given, by)))
    throw conflict(
      'approval_already_given',
      `${by.name} approved run ${run.run_id} already; it needs ${run.required_approvers} different people.`,
    );
  // The time to pay at is signed with the approval, so the workflow pays at the time the approver named.
  const proof = deps.signDecision({
    subject: run.workflow_id,
    action: input.decision === 'approve' ? approvalAction(executeAt) : input.decision,
    by,
    ...(input.note !== undefined && { note: input.note }),
  });
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).executeUpdate(decideUpdate, {
      args: [
        {
          decision: input.decision,
          by,
          note: input.note,
          ...(executeAt !== undefined && { executeAt }),
          proof,
        },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as (Error & { type?: string }) | undefined;
      // The workers did not admit the API's own proof: they hold another DECISION_SIGNING_KEY.
      if (failureTypeOf(cause) === 'approval_already_given')
        throw conflict('approval_already_given', cause?.message ?? error.message);
      if (failureTypeOf(cause) === DECISION_REFUSED) {
        throw new ApiError(
          DECISION_REFUSED,
          `${cause?.message} Check that the API and the workers share one DECISION_SIGNING_KEY.`,
        );
      }
      throw conflict('run_not_awaiting_approval', cause?.message ?? error.message);
    }
    if ((error as Error).name === 'WorkflowNotFoundError') {
      throw conflict(
        'run_not_awaiting_approval',
        `Run ${input.runId} is ${run.status} and can no longer be decided.`,
      );
    }
    throw error;
  }
  return runView(deps, input.runId);
}

/** Four eyes are two people: the uploader, under any of their keys or spellings of their name, cannot approve. */
function selfApproval(uploadedBy: string): ApiError {
  return new ApiError(
    'self_approval',
    `${uploadedBy} uploaded this run and cannot approve it, with this key or another of theirs; another person must approve it.`,
  );
}

/**
 * Cancel a scheduled run: the workflow refuses once the run has started (its status moves from `scheduled`
 * only once, to `running` or `cancelled`), so a cancel that arrives as the run starts is refused, never half
 * done, and a cancelled run never pays.
 */
export async function cancelScheduledRun(
  deps: PayoutDeps,
  input: { runId: string; note?: string; principal: Principal },
) {
  const run = await requireRun(deps.db, input.runId);
  const notScheduled = (why?: string) =>
    conflict(
      'run_not_scheduled',
      why ?? `Run ${input.runId} is ${run.status}; only a scheduled run can be cancelled.`,
    );
  if (run.status !== 'scheduled') throw notScheduled();
  const by = actorOf(input.principal);
  const proof = deps.signDecision({
    subject: run.workflow_id,
    action: 'cancel',
    by,
    ...(input.note !== undefined && { note: input.note }),
  });
  try {
    await deps.temporal.workflow
      .getHandle(run.workflow_id)
      .executeUpdate(cancelScheduledUpdate, { args: [{ by, note: input.note, proof }] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as (Error & { type?: string }) | undefined;
      if (failureTypeOf(cause) === DECISION_REFUSED)
        throw new ApiError(
          DECISION_REFUSED,
          `${cause?.message} Check that the API and the workers share one DECISION_SIGNING_KEY.`,
        );
      throw notScheduled(cause?.message ?? error.message);
    }
    if ((error as Error).name === 'WorkflowNotFoundError') throw notScheduled();
    throw error;
  }
  return runView(deps, input.runId);
}

export async function resumeRun(deps: PayoutDeps, input: { runId: string; principal: Principal }) {
  const run = await requireRun(deps.db, input.runId);
  // A running batch whose payment the gateway never confirmed waits for an operator too (needs_attention):
  // resuming it sends batch/pay again, which the gateway refuses for a batch it already paid.
  const unconfirmed =
    run.status === 'running' &&
    (await listBatches(deps.db, input.runId)).some((batch) => batch.status === 'needs_attention');
  if (run.status !== 'awaiting_funds' && !unconfirmed) {
    throw conflict(
      'run_not_waiting_for_funds',
      `Run ${input.runId} is ${run.status}; only a run awaiting funds, or with a batch whose payment is ` +
        'unconfirmed, resumes.',
    );
  }
  const by = actorOf(input.principal);
  const proof = deps.signDecision({ subject: run.workflow_id, action: 'resume', by });
  await deps.temporal.workflow.getHandle(run.workflow_id).signal(resumeSignal, { by, proof });
  return runView(deps, input.runId);
}

export async function runView(deps: ViewDeps, runId: string) {
  const { db } = deps;
  const run = await requireRun(db, runId);
  const [counts, batches, batchCounts, children, payeeFlags] = await Promise.all([
    itemCounts(db, { run_id: runId }),
    listBatches(db, runId),
    itemCountsByBatch(db, runId),
    childRuns(db, runId),
    payeeFlagsOfRun(db, runId, windowOf(deps)),
  ]);
  const flagged = { known: 0, new: 0, changed: 0, mismatched: 0 };
  for (const { flag, nameCheck } of payeeFlags.values()) {
    flagged[flag] += 1;
    // Counted apart from the flag: a known payee can still be one whose wallet holds another name.
    if (nameCheck === 'mismatch') flagged.mismatched += 1;
  }
  const finished = (states: Partial<Record<ItemState, { count: number }>>) =>
    (['SUCCEEDED', 'FAILED', 'INELIGIBLE', 'CANCELLED'] as ItemState[]).reduce(
      (sum, state) => sum + (states[state]?.count ?? 0),
      0,
    );
  return {
    runId: run.run_id,
    status: run.status,
    statusReason: run.status_reason,
    fileName: run.file_name,
    rowCount: run.row_count,
    totalAmount: Number(run.total_amount),
    uploadedBy: run.uploaded_by,
    uploadedAt: run.uploaded_at,
    expiresAt: run.expires_at,
    decidedBy: run.decided_by,
    decidedAt: run.decided_at,
    decisionNote: run.decision_note,
    // A scheduled run: when it pays (UTC; the console shows GMT+7), and what the check ahead of it warned.
    executeAt: run.execute_at ?? null,
    scheduleWarnings: { fundsShort: run.funds_warning ?? null, receivers: run.receivers_warning ?? null },
    // What the policy asked when the run was uploaded, and the approvals so far ("approvals: 1 of 2").
    approvals: {
      required: run.required_approvers,
      given: run.approvals.length,
      approvedBy: run.approvals.map((given) => given.name),
      roles: run.approver_roles,
    },
    completedAt: run.completed_at,
    workflowId: run.workflow_id,
    progress: { done: finished(counts), total: run.row_count },
    counts,
    reconciliation: run.reconciliation,
    // A retry names the run it retries and its family's first run; a run lists the retries made from it.
    parentRunId: run.parent_run_id,
    rootRunId: run.root_run_id ?? run.run_id,
    // A run a recurring schedule's occurrence made names its schedule and occurrence; an uploaded run, null.
    scheduleId: run.schedule_id ?? null,
    occurrenceAt: run.occurrence_at ?? null,
    children: children.map((child) => ({
      runId: child.run_id,
      status: child.status,
      rowCount: child.row_count,
      totalAmount: Number(child.total_amount),
      uploadedBy: child.uploaded_by,
      uploadedAt: child.uploaded_at,
    })),
    // For the approver: rows whose receiver is not in the payee directory, or whose payee changed lately.
    payees: { ...flagged, changedWindowDays: windowOf(deps) },
    batches: batches.map((batch) => {
      const states = batchCounts.get(batch.batch_id) ?? {};
      return {
        batchId: batch.batch_id,
        seq: batch.seq,
        status: batch.status,
        statusReason: batch.status_reason,
        itemCount: batch.item_count,
        totalAmount: Number(batch.total_amount),
        workflowId: batch.workflow_id,
        progress: { done: finished(states), total: batch.item_count },
        counts: states,
        gatewayTotals: batch.gateway_totals,
      };
    }),
  };
}

export async function listRuns(db: Db, filter: ListFilter) {
  const page = await listRunRows(db, filter);
  const rows = page.rows.map((run) => ({
    runId: run.run_id,
    status: run.status,
    fileName: run.file_name,
    rowCount: run.row_count,
    totalAmount: Number(run.total_amount),
    uploadedBy: run.uploaded_by,
    uploadedAt: run.uploaded_at,
    decidedBy: run.decided_by,
    workflowId: run.workflow_id,
    executeAt: run.execute_at ?? null,
    scheduleWarning: Boolean(run.funds_warning || run.receivers_warning),
    scheduleId: run.schedule_id ?? null,
  }));
  return { rows, nextOffset: page.nextOffset };
}

/** Wallet ids and names in full for the payout duties, masked for every other reader (api/http/masking). */
const itemView = (
  item: PayoutItemRow,
  full: boolean,
  payee: { flag: PayeeFlag; payeeId: string | null; nameCheck: NameCheck | null } | undefined,
) => ({
  payoutId: item.payout_id,
  payeeId: payee?.payeeId ?? null,
  payeeStatus: payee?.flag ?? 'new',
  payeeNameCheck: payee?.nameCheck ?? null,
  row: item.row_number,
  batchId: item.batch_id,
  walletId: full ? item.wallet_id : maskNumber(item.wallet_id),
  walletName: full ? item.wallet_name : maskName(item.wallet_name),
  amount: Number(item.amount),
  description: item.description,
  state: item.state,
  resultCode: item.result_code,
  message: item.message,
  // payrun's own words for why a row was not paid, in both languages (the gateway's message is terse English).
  reason: item.state === 'FAILED' || item.state === 'INELIGIBLE' ? itemFailureReason(item.result_code) : null,
  transId: item.trans_id,
  updatedAt: item.updated_at,
});

export async function listItems(
  deps: ViewDeps,
  runId: string,
  filter: { state?: ItemState; limit: number; offset: number },
  reader: Principal,
) {
  const { db } = deps;
  await requireRun(db, runId);
  const full = seesReceiversInFull(reader);
  const [items, payeeFlags] = await Promise.all([
    runItems(db, runId, filter),
    payeeFlagsOfRun(db, runId, windowOf(deps)),
  ]);
  return {
    runId,
    items: items.map((item) => itemView(item, full, payeeFlags.get(item.payout_id))),
    limit: filter.limit,
    offset: filter.offset,
  };
}

export async function resultsCsv(db: Db, runId: string, reader: Principal): Promise<string> {
  await requireRun(db, runId);
  return resultsCsvOf(await runItems(db, runId), seesReceiversInFull(reader));
}

/** A run's items as the results CSV; receivers masked unless the reader sees them in full. */
export function resultsCsvOf(items: readonly PayoutItemRow[], full: boolean): string {
  return toCsv(
    [
      'payout_id',
      'row',
      'wallet_id',
      'wallet_name',
      'amount',
      'description',
      'state',
      'result_code',
      'message',
      'trans_id',
    ],
    items.map((item) => [
      item.payout_id,
      item.row_number,
      full ? item.wallet_id : maskNumber(item.wallet_id),
      full ? item.wallet_name : maskName(item.wallet_name),
      Number(item.amount),
      item.description,
      item.state,
      item.result_code,
      item.message,
      item.trans_id,
    ]),
  );
}
