import {
  ParentClosePolicy,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  setHandler,
  allHandlersFinished,
} from '@temporalio/workflow';
import { runRecordsOf } from '../shared/activity-profiles';
import { payoutBatch } from './payout-batch';
import { kindOf, payrunKind, payrunOrderId, payrunRunId } from '../../contracts/shared';
import {
  decideUpdate,
  payoutBatchWorkflowId,
  resumeSignal,
  runProgressQuery,
  type Actor,
  type Decision,
  type PayoutBatchResult,
  type PayoutRunInput,
  type RunStatus,
  type PayoutActivities,
} from '../../contracts/payouts';

const records = runRecordsOf<PayoutActivities>();

/**
 * A payout run: waits for a second person's approval (or a rejection, or the deadline), then runs one
 * child workflow per batch, a few at a time, and reconciles the whole run when they are done.
 */
export async function payoutRun(input: PayoutRunInput): Promise<RunStatus> {
  const { runId } = input;
  let status: RunStatus = 'awaiting_approval';
  let decision: Decision | undefined;
  let batchesDone = 0;
  const running = new Set<string>();

  setHandler(runProgressQuery, () => ({
    runId,
    status,
    decidedBy: decision?.by,
    batchesDone,
    batchCount: input.batches.length,
  }));

  setHandler(
    decideUpdate,
    async (next) => {
      decision = next;
      status = next.decision === 'approve' ? 'running' : 'rejected';
      await records.recordDecision({ runId, decision: next.decision, by: next.by, note: next.note });
      await records.recordRunStatus({ runId, status });
      return status;
    },
    {
      validator: (next) => {
        if (status !== 'awaiting_approval') {
          throw new Error(`The run is ${status}; only a run awaiting approval can be approved or rejected.`);
        }
        if (next.decision === 'approve' && isSamePerson(next.by, input.uploadedBy)) {
          throw new Error('The person who uploaded a run cannot approve it; another approver must.');
        }
      },
    },
  );

  // The operator's "resume" after a top-up reaches every running batch; only a waiting one acts on it.
  setHandler(resumeSignal, async (resume) => {
    await Promise.all(
      [...running].map((batchId) =>
        getExternalWorkflowHandle(payoutBatchWorkflowId(batchId))
          .signal(resumeSignal, resume)
          .catch(() => undefined),
      ),
    );
  });

  const untilDeadline = Math.max(0, Date.parse(input.approvalDeadline) - Date.now());
  if (!(await condition(() => decision !== undefined, untilDeadline))) {
    status = 'expired';
    await records.recordRunStatus({
      runId,
      status,
      reason: `Nobody approved the run before ${input.approvalDeadline}.`,
    });
    return status;
  }
  if (decision?.decision === 'reject') {
    await condition(allHandlersFinished);
    return 'rejected';
  }

  const results: PayoutBatchResult[] = [];
  const queue = [...input.batches];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      running.add(next.batchId);
      const batchInput = { ...next, runId, timing: input.timing };
      try {
        results.push(
          await executeChild(payoutBatch, {
            workflowId: payoutBatchWorkflowId(next.batchId),
            args: [batchInput],
            staticSummary: `Payout batch ${next.batchId}: ${next.itemCount} items, ${next.totalAmount} VND`,
            typedSearchAttributes: [
              { key: payrunKind, value: kindOf('payoutBatch') },
              { key: payrunRunId, value: runId },
              { key: payrunOrderId, value: next.batchId },
            ],
            // A batch that has started paying must finish even if someone terminates the run.
            parentClosePolicy: ParentClosePolicy.ABANDON,
          }),
        );
      } catch (error) {
        // One batch failing must not stop the others; the reconciliation then names what is missing.
        await records.recordBatchStatus({
          runId,
          batchId: next.batchId,
          status: 'failed',
          ...failureOf(error),
        });
        results.push({ batchId: next.batchId, status: 'failed', counts: {} });
      } finally {
        running.delete(next.batchId);
      }
      batchesDone += 1;
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(input.parallelBatches, input.batches.length)) }, worker),
  );

  const reconciliation = await records.reconcileRun({ runId, batches: results });
  status = reconciliation.balanced ? 'reconciled' : 'needs_attention';
  await condition(allHandlersFinished);
  return status;
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

function isSamePerson(a: Actor, b: Actor): boolean {
  return a.keyId === b.keyId || a.name.trim().toLowerCase() === b.name.trim().toLowerCase();
}
