/**
 * The payment desk: one-time payments created in chunks instead of a workflow each (docs/payments.md, "The
 * payment desk"). Its history grows by one activity per chunk, not by the payments: a chunk's result names every
 * create it made, and each payment's record names its chunk. A payment the desk holds has no workflow until it
 * needs one (its create kept failing, or its result did not come in time); the chunk then starts it.
 *
 * Every activity below is part of stored histories: moving a call breaks their replay
 * (docs/workflow-versioning.md).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { PaymentDeskActivities, PaymentDeskInput } from '../../contracts/payments';
import { DESK_CHUNK_OPTIONS, runDeskRounds } from '../shared/desk-rounds';

const desk = proxyActivities<PaymentDeskActivities>(DESK_CHUNK_OPTIONS);

export async function paymentDesk(input: PaymentDeskInput): Promise<never> {
  return runDeskRounds(input, (deskWorkflowId, chunk) =>
    desk.createDeskPayments({
      deskWorkflowId,
      chunk,
      timing: input.timing,
      concurrency: input.concurrency,
      chunkMs: input.chunkMs,
    }),
  );
}
