/**
 * One occurrence of a recurring payout schedule (docs/payout-runs.md, "Recurring runs"), started by the
 * schedule's Temporal Schedule. It records an ordinary run and starts that run's workflow, which then waits for
 * its own approval like any uploaded run: the schedule never approves, and never pays, anything itself.
 */
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import {
  SearchAttributeType,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  defineSearchAttributeKey,
} from '@temporalio/common';
import {
  payoutRunWorkflowId,
  type RecurringOccurrenceInput,
  type RecurringOccurrenceResult,
  type RecurringRunActivities,
} from '../../contracts/payouts';
import { payrunRunId } from '../../contracts/shared';
import { payoutRun } from './payout-run';

const { recordRecurringRun } = proxyActivities<RecurringRunActivities>({
  startToCloseTimeout: '1 minute',
  // A database that is down for a while delays the run; the occurrence finds its run when it comes back.
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

export async function recurringPayoutOccurrence(
  input: RecurringOccurrenceInput,
): Promise<RecurringOccurrenceResult> {
  const occurrenceAt = input.occurrenceAt ?? scheduledTimeOfThisStart();
  const recorded = await recordRecurringRun({ ...input, occurrenceAt });
  if (recorded.runId === null) return recorded;
  const { runId, runInput } = recorded;
  try {
    await startChild(payoutRun, {
      workflowId: payoutRunWorkflowId(runId),
      args: [runInput],
      // A run id is used once: a second start of the same occurrence finds the run's workflow, never a new one.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // The run outlives its occurrence: it waits days for approval, then pays.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary: `Payout run ${runId}: occurrence ${occurrenceAt} of schedule ${input.scheduleId}`,
      typedSearchAttributes: [{ key: payrunRunId, value: runId }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return { runId, created: recorded.created };
}

/**
 * The time the Schedule meant this start for (not when it actually started): a start delayed by an outage is
 * still the same occurrence, and so still finds the run it made.
 */
const scheduledStartTime = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

function scheduledTimeOfThisStart(): string {
  const value = workflowInfo().typedSearchAttributes.get(scheduledStartTime);
  if (value) return new Date(value).toISOString();
  throw new Error('recurringPayoutOccurrence started without occurrenceAt and not by a Schedule');
}
