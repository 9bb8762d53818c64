import {
  ParentClosePolicy,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  setHandler,
  allHandlersFinished,
  patched,
  ApplicationFailure,
  proxyActivities,
} from '@temporalio/workflow';
import { runRecordsOf } from '../shared/activity-profiles';
import { payoutBatch } from './payout-batch';
import { decisionGate, type DecisionGate } from '../shared/decision-gate';
import {
  durationMs,
  isSamePerson,
  kindOf,
  payrunKind,
  payrunOrderId,
  payrunRunId,
} from '../../contracts/shared';
import {
  approvalAction,
  approversOf,
  cancelScheduledUpdate,
  DEFAULT_SCHEDULE_CHECK_AHEAD,
  decideUpdate,
  payoutBatchWorkflowId,
  resumeSignal,
  runProgressQuery,
  type CancelRequest,
  type Decision,
  type PayoutBatchResult,
  type PayoutRunInput,
  type RunStatus,
  type PayoutActivities,
  type Actor,
} from '../../contracts/payouts';

const records = runRecordsOf<PayoutActivities>();
/**
 * The check ahead of a scheduled run: a few tries, then it gives up. It only warns, so a gateway that does not
 * answer must never hold the run past the time it was approved for.
 */
const scheduledChecks = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/**
 * A payout run: waits for the approvals its total needs from people other than its uploader (one, or more
 * under the approval policy), or a rejection, or the deadline; then runs one child workflow per batch, a few
 * at a time, and reconciles the whole run when they are done.
 */
export async function payoutRun(input: PayoutRunInput): Promise<RunStatus> {
  const run = openRun(input);
  showProgress(run);
  acceptDecision(run);
  acceptCancel(run);
  passOnResumes(run);
  if (!(await awaitDecision(run))) return expire(run);
  if (run.decision?.decision === 'reject') {
    await condition(allHandlersFinished);
    return 'rejected';
  }
  if (run.status === 'scheduled' && !(await awaitScheduledTime(run))) {
    await condition(allHandlersFinished);
    return 'cancelled';
  }
  const results = await runBatches(run);
  return reconcile(run, results);
}

// ---- one run and what its steps share

interface Run {
  readonly input: PayoutRunInput;
  status: RunStatus;
  decision?: Decision;
  /** Approvals admitted so far; the run starts when they reach `approversOf(input)`. */
  readonly approvedBy: Actor[];
  batchesDone: number;
  /** The batches whose child workflow is running now. */
  readonly running: Set<string>;
  /** Admits a decision only with the API's proof. */
  readonly gate: DecisionGate;
  /** The time to pay at that the approvals named (the latest one that named one); absent: pay at once. */
  executeAt?: string;
}

function openRun(input: PayoutRunInput): Run {
  return {
    input,
    status: 'awaiting_approval',
    approvedBy: [],
    batchesDone: 0,
    running: new Set(),
    gate: decisionGate({ type: 'payout_run', id: input.runId }),
  };
}

function showProgress(run: Run) {
  setHandler(runProgressQuery, () => ({
    runId: run.input.runId,
    status: run.status,
    decidedBy: run.decision?.by,
    approvedBy: [...run.approvedBy],
    approversRequired: approversOf(run.input),
    batchesDone: run.batchesDone,
    batchCount: run.input.batches.length,
    ...(run.executeAt !== undefined && { executeAt: run.executeAt }),
    ...(run.gate.refused.length && { refusedDecisions: [...run.gate.refused] }),
  }));
}

/**
 * Approve or reject: only while awaiting approval, never by the person who uploaded the run, and only with
 * the API's proof: anyone reaching the Temporal frontend can send this update, only the API can sign it.
 */
function acceptDecision(run: Run) {
  const { runId, uploadedBy } = run.input;
  setHandler(
    decideUpdate,
    async (next) => {
      // Runs decided before proofs existed replay without the check (their histories have no marker).
      if (patched('decisions-carry-proof')) {
        const { proof, ...decision } = next;
        // An approval's time to pay at is part of what the API signed: nobody on the way can move it.
        const action = decision.decision === 'approve' ? approvalAction(decision.executeAt) : 'reject';
        await run.gate.admit({ action, by: decision.by, note: decision.note }, proof);
        // Another decision may have been admitted, or the deadline passed, while this one was checked.
        if (run.status !== 'awaiting_approval') {
          throw new Error(
            `The run is ${run.status}; only a run awaiting approval can be approved or rejected.`,
          );
        }
        next = decision;
      }
      if (next.decision === 'approve') {
        // Checked again after the proof's check: the same person's second update may have been admitted meanwhile.
        refuseSecondApproval(run, next.by);
        run.approvedBy.push(next.by);
        if (next.executeAt !== undefined) run.executeAt = next.executeAt;
        if (run.approvedBy.length < approversOf(run.input)) {
          // Not enough people yet: the run keeps waiting, nothing is paid.
          await records.recordDecision({
            runId,
            decision: 'approve',
            by: next.by,
            note: next.note,
            settles: false,
          });
          return run.status;
        }
      }
      run.decision = next;
      run.status = next.decision === 'approve' ? startingStatus(run) : 'rejected';
      await records.recordDecision({ runId, decision: next.decision, by: next.by, note: next.note });
      await records.recordRunStatus({
        runId,
        status: run.status,
        ...(run.status === 'scheduled' && { executeAt: run.executeAt }),
      });
      return run.status;
    },
    {
      validator: (next) => {
        if (run.status !== 'awaiting_approval') {
          throw new Error(
            `The run is ${run.status}; only a run awaiting approval can be approved or rejected.`,
          );
        }
        if (next.decision === 'approve' && isSamePerson(next.by, uploadedBy)) {
          throw new Error('The person who uploaded a run cannot approve it; another approver must.');
        }
        if (next.decision === 'approve') refuseSecondApproval(run, next.by);
      },
    },
  );
}

/**
 * What an approved run does next: pays now, or waits as `scheduled` for a time still ahead. A time already
 * passed (the approval reached the workflow late) pays at once, as the approver asked for "then", not "never".
 * Only runs whose approval named a time take the patch; every run before scheduling replays as it ran.
 */
function startingStatus(run: Run): RunStatus {
  if (run.executeAt === undefined || Date.parse(run.executeAt) <= Date.now()) return 'running';
  return patched('scheduled-runs') ? 'scheduled' : 'running';
}

/**
 * Cancel a scheduled run, only with the API's proof, and only until it starts. The status changes in the
 * same step that finds it still `scheduled`, and the run starts paying only from `scheduled` (awaitScheduledTime),
 * so of a cancel and the run's time arriving together exactly one wins: a cancelled run never pays, a
 * started one is never called cancelled.
 */
function acceptCancel(run: Run) {
  const { runId } = run.input;
  const refuseUnlessScheduled = () => {
    if (run.status !== 'scheduled')
      throw ApplicationFailure.nonRetryable(
        `The run is ${run.status}; only a scheduled run that has not started can be cancelled.`,
        'run_not_scheduled',
      );
  };
  setHandler(
    cancelScheduledUpdate,
    async ({ proof, ...cancel }: CancelRequest): Promise<RunStatus> => {
      await run.gate.admit({ action: 'cancel', by: cancel.by, note: cancel.note }, proof);
      refuseUnlessScheduled();
      run.status = 'cancelled';
      await records.recordRunStatus({
        runId,
        status: 'cancelled',
        reason: `Cancelled by ${cancel.by.name} before its time${cancel.note ? `: ${cancel.note}` : '.'}`,
      });
      return run.status;
    },
    { validator: (_request: CancelRequest) => refuseUnlessScheduled() },
  );
}

/** Two approvals are two people: one person's second approval, under any key of theirs, is refused. */
function refuseSecondApproval(run: Run, by: Actor) {
  if (run.approvedBy.some((earlier) => isSamePerson(earlier, by)))
    throw ApplicationFailure.nonRetryable(
      `${by.name} approved this run already; it needs ${approversOf(run.input)} different people.`,
      'approval_already_given',
    );
}

/**
 * The operator's "resume" after a top-up reaches every running batch; only a waiting one acts on it. It is
 * a money decision: without the API's proof it goes no further than the audit log and the run's refusals.
 */
function passOnResumes(run: Run) {
  setHandler(resumeSignal, async (resume) => {
    // Resumes taken before proofs existed replay without the check (their histories have no marker).
    if (patched('resume-carries-proof')) {
      if (!(await run.gate.admits({ action: 'resume', by: resume.by }, resume.proof))) return;
    }
    await Promise.all(
      [...run.running].map((batchId) =>
        getExternalWorkflowHandle(payoutBatchWorkflowId(batchId))
          .signal(resumeSignal, resume)
          .catch(() => undefined),
      ),
    );
  });
}

// ---- the steps

/** Whether a decision came before the approval deadline. */
async function awaitDecision(run: Run): Promise<boolean> {
  const untilDeadline = Math.max(0, Date.parse(run.input.approvalDeadline) - Date.now());
  return condition(() => run.decision !== undefined, untilDeadline);
}

/**
 * A scheduled run waits for its time; `checkAhead` before it, it checks its receivers and the balance and warns
 * (events, the dashboard) without cancelling anything. True: the time came and the run is running; false: it
 * was cancelled. A check that fails or is slow is a missing warning, never a reason not to pay at the time
 * approved.
 */
async function awaitScheduledTime(run: Run): Promise<boolean> {
  const payAt = Date.parse(run.executeAt!);
  const cancelled = () => run.status === 'cancelled';
  const untilNow = (at: number) => Math.max(0, at - Date.now());
  const checkAt = payAt - durationMs(run.input.scheduleCheckAhead ?? DEFAULT_SCHEDULE_CHECK_AHEAD);
  if (untilNow(checkAt) > 0 && (await condition(cancelled, untilNow(checkAt)))) return false;
  if (cancelled()) return false;
  // Not awaited: a slow check must not delay the payment past its time; it records its own warnings.
  void scheduledChecks.checkScheduledRun({ runId: run.input.runId }).catch(() => undefined);
  if (untilNow(payAt) > 0 && (await condition(cancelled, untilNow(payAt)))) return false;
  if (cancelled()) return false;
  run.status = 'running';
  await records.recordRunStatus({ runId: run.input.runId, status: 'running' });
  return true;
}

async function expire(run: Run): Promise<RunStatus> {
  run.status = 'expired';
  await records.recordRunStatus({
    runId: run.input.runId,
    status: run.status,
    reason: `Nobody approved the run before ${run.input.approvalDeadline}.`,
  });
  return run.status;
}

/** Every batch as a child workflow, parallelBatches at a time. */
async function runBatches(run: Run): Promise<PayoutBatchResult[]> {
  const { batches, parallelBatches } = run.input;
  const results: PayoutBatchResult[] = [];
  const queue = [...batches];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      results.push(await runBatch(run, next));
      run.batchesDone += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallelBatches, batches.length)) }, worker));
  return results;
}

type BatchOfRun = PayoutRunInput['batches'][number];

async function runBatch(run: Run, batch: BatchOfRun): Promise<PayoutBatchResult> {
  const { runId } = run.input;
  run.running.add(batch.batchId);
  try {
    return await executeChild(payoutBatch, {
      workflowId: payoutBatchWorkflowId(batch.batchId),
      args: [{ ...batch, runId, timing: run.input.timing }],
      staticSummary: `Payout batch ${batch.batchId}: ${batch.itemCount} items, ${batch.totalAmount} VND`,
      typedSearchAttributes: [
        { key: payrunKind, value: kindOf('payoutBatch') },
        { key: payrunRunId, value: runId },
        { key: payrunOrderId, value: batch.batchId },
      ],
      // A batch that has started paying must finish even if someone terminates the run.
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    // One batch failing must not stop the others; the reconciliation then names what is missing.
    await records.recordBatchStatus({ runId, batchId: batch.batchId, status: 'failed', ...failureOf(error) });
    return { batchId: batch.batchId, status: 'failed', counts: {} };
  } finally {
    run.running.delete(batch.batchId);
  }
}

async function reconcile(run: Run, results: PayoutBatchResult[]): Promise<RunStatus> {
  const reconciliation = await records.reconcileRun({ runId: run.input.runId, batches: results });
  run.status = reconciliation.balanced ? 'reconciled' : 'needs_attention';
  await condition(allHandlersFinished);
  return run.status;
}

/**
 * The innermost failure: the gateway's answer or the rule that was broken, not a wrapper, with the
 * gateway's result code when the gateway refused (an activity failure's details carry it).
 */
function failureOf(error: unknown): { reason: string; resultCode?: number } {
  let current = error as { message?: string; cause?: unknown; details?: unknown[] } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  const detail = current?.details?.[0] as { resultCode?: unknown } | undefined;
  return {
    reason: current?.message ?? 'The batch failed.',
    resultCode: typeof detail?.resultCode === 'number' ? detail.resultCode : undefined,
  };
}
