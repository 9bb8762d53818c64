/**
 * The disbursement desk: single disbursements answered at once, paid in chunks instead of a workflow each.
 * Its history grows by one activity per chunk, not by the payouts: a chunk claims queued desk payouts for
 * `chunkMs` and names each one it settled in its result, and each payout's record names its chunk, so a
 * payout is findable from its record (the console) and from here (the Temporal UI). A payout the gateway
 * does not settle at once goes on in a workflow of its own, which the chunk starts (docs/payout-runs.md).
 *
 * Every activity below is part of stored histories: moving a call breaks their replay
 * (docs/workflow-versioning.md).
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { DisbursementDeskActivities, DisbursementDeskInput } from '../../contracts/payouts';

/**
 * A chunk runs for its `chunkMs` and the payouts under way at its end; its heartbeat says it is alive, and a
 * retry after a lost worker takes back what it had claimed. Not eager: chunks side by side go through the
 * task queue, so each worker can take one (eager dispatch would hand them all to the worker that scheduled them).
 */
const desk = proxyActivities<DisbursementDeskActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  allowEagerDispatch: false,
});

/** Rounds of chunks before continue-as-new keeps the history small. */
const ROUNDS_PER_RUN = 100;

export async function disbursementDesk(input: DisbursementDeskInput): Promise<never> {
  const { workflowId } = workflowInfo();
  let chunk = input.chunksDone ?? 0;
  const parallel = Math.max(1, input.parallelChunks);
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    await Promise.all(
      Array.from({ length: parallel }, (_, index) =>
        desk.payDeskChunk({
          deskWorkflowId: workflowId,
          chunk: chunk + index + 1,
          timing: input.timing,
          concurrency: input.concurrency,
          chunkMs: input.chunkMs,
        }),
      ),
    );
    chunk += parallel;
  }
  return continueAsNew<typeof disbursementDesk>({ ...input, chunksDone: chunk });
}
