/**
 * The subscription desk: new subscriptions' authorization starts made in chunks, each subscription without a
 * workflow of its own until its customer answers (docs/subscriptions.md, "The subscription desk"). Its history
 * grows by one activity per chunk, not by the subscriptions: a chunk's result names every start it made, and
 * each subscription's record names its chunk.
 *
 * Every activity below is part of stored histories: moving a call breaks their replay
 * (docs/workflow-versioning.md).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { SubscriptionDeskActivities, SubscriptionDeskInput } from '../../contracts/subscriptions';
import { DESK_CHUNK_OPTIONS, runDeskRounds } from '../shared/desk-rounds';

const desk = proxyActivities<SubscriptionDeskActivities>(DESK_CHUNK_OPTIONS);

export async function subscriptionDesk(input: SubscriptionDeskInput): Promise<never> {
  return runDeskRounds(input, (deskWorkflowId, chunk) =>
    desk.startDeskSubscriptions({
      deskWorkflowId,
      chunk,
      authorizationIpnWait: input.authorizationIpnWait,
      concurrency: input.concurrency,
      chunkMs: input.chunkMs,
    }),
  );
}
