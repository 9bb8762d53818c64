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
import { proxyActivities } from '@temporalio/workflow';
import type { DisbursementDeskActivities, DisbursementDeskInput } from '../../contracts/payouts';
import { DESK_CHUNK_OPTIONS, runDeskRounds } from '../shared/desk-rounds';

const desk = proxyActivities<DisbursementDeskActivities>(DESK_CHUNK_OPTIONS);

export async function disbursementDesk(input: DisbursementDeskInput): Promise<never> {
  return runDeskRounds(input, (deskWorkflowId, chunk) =>
    desk.payDeskChunk({
      deskWorkflowId,
      chunk,
      timing: input.timing,
      concurrency: input.concurrency,
      chunkMs: input.chunkMs,
    }),
  );
}
