/**
 * The subscription desk's chunk (docs/subscriptions.md, "The subscription desk"): it makes the authorization
 * starts of subscriptions queued for the desk with `startSubscriptionAuthorization`, the same code a
 * subscription's workflow runs first, and announces each answer to the API process whose create call waits for
 * it. A subscription answered with the customer's links stays on the desk without a workflow: the relay starts
 * its workflow with the customer's answer (api/subscriptions/notifications.ts). The chunk starts the workflow
 * itself when a start keeps failing, and when the customer has not answered within `authorizationIpnWait`,
 * since only the workflow asks the gateway with growing waits.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { durationMs, kindOf, payrunKind } from '../../contracts/shared';
import { isAlreadySubmitted, outcomeOf } from '../../gateway';
import {
  subscriptionDeskChunkId,
  subscriptionDeskStartOptions,
  type SubscriptionDeskActivities,
  type SubscriptionDeskChunk,
  type SubscriptionDeskChunkOutcome,
} from '../../contracts/subscriptions';
import {
  announceSubscriptionsAnswered,
  claimDeskSubscriptions,
  handOverDeskSubscription,
  overdueDeskSubscriptions,
  unansweredOfChunk,
  type DeskSubscriptionRow,
} from '../../db/subscriptions/subscription-desk';
import { coalescedAnnouncer } from '../shared/desk-announcer';
import { bindActivities } from '../shared/bind';
import { runDeskChunk, whenDue } from '../shared/desk-chunk';
import {
  recordSubscription,
  startSubscriptionAuthorization,
  type SubscriptionActivityDependencies,
} from './subscriptions';

type Deps = SubscriptionActivityDependencies;

export const createSubscriptionDeskActivities = (deps: Deps): SubscriptionDeskActivities =>
  bindActivities(deps, { startDeskSubscriptions });

/** As the payment desk's: a create call waits for the answer, so an idle chunk looks again soon. */
const IDLE_WAIT_MS = { first: 10, longest: 100 } as const;
const OVERDUE_EVERY_MS = 5_000;
const OVERDUE_AT_ONCE = 50;

const announce = coalescedAnnouncer(announceSubscriptionsAnswered);

export async function startDeskSubscriptions(
  deps: Deps,
  input: SubscriptionDeskChunk,
): Promise<SubscriptionDeskChunkOutcome> {
  const context = Context.current();
  const chunkId = subscriptionDeskChunkId(input.deskWorkflowId, input.chunk);
  const outcome: SubscriptionDeskChunkOutcome = {
    chunk: input.chunk,
    answered: [],
    refused: [],
    handedOver: [],
  };
  const waitMs = durationMs(input.authorizationIpnWait);
  const handOverWhenDue = whenDue(OVERDUE_EVERY_MS, () =>
    handOverOverdue(deps, input, new Date(Date.now() - waitMs), outcome),
  );
  const claim = async (room: number) => {
    await handOverWhenDue();
    return claimDeskSubscriptions(deps.db, { deskWorkflowId: input.deskWorkflowId, chunkId }, room);
  };
  await handOverWhenDue();
  await runDeskChunk<DeskSubscriptionRow>({
    concurrency: input.concurrency,
    chunkMs: input.chunkMs,
    idleWaitMs: IDLE_WAIT_MS,
    // A retried attempt first makes again the starts the one before it left unanswered.
    takenBack: context.info.attempt > 1 ? await unansweredOfChunk(deps.db, chunkId) : [],
    claim,
    handle: (row) => startOne(deps, row, outcome),
    progress: () => ({
      answered: outcome.answered.length,
      refused: outcome.refused.length,
      handedOver: outcome.handedOver.length,
    }),
  });
  return outcome;
}

/** One start, answered here or handed over; throws only when even the hand-over failed (the chunk is retried). */
async function startOne(
  deps: Deps,
  row: DeskSubscriptionRow,
  outcome: SubscriptionDeskChunkOutcome,
): Promise<void> {
  const subscriptionId = row.subscription_id;
  const started = await startSubscriptionAuthorization(deps, { subscriptionId }, row).catch(
    (error: unknown) => {
      Context.current().log.warn('A desk subscription goes on in its workflow after an error', {
        subscriptionId,
        error: (error as Error).message,
      });
      return undefined;
    },
  );
  if (started === undefined) {
    // Its workflow makes the start again: the gateway answers 40 if the first one reached it.
    await handOver(deps, row, false);
    outcome.handedOver.push(subscriptionId);
  } else if (
    outcomeOf(started.resultCode) !== 'succeeded' &&
    !isAlreadySubmitted(outcomeOf(started.resultCode))
  ) {
    // Refused: as the workflow records it, and the subscription never gets one.
    await recordSubscription(deps, {
      subscriptionId,
      status: 'not_authorized',
      statusReason: `The gateway refused the subscription: ${started.resultCode} ${started.message}`,
      failures: 0,
    });
    outcome.refused.push(subscriptionId);
  } else {
    outcome.answered.push(subscriptionId);
  }
  announce(deps.db, subscriptionId);
}

/** Customers silent past the wait, and starts claimed that long ago and never answered: their workflow goes on. */
async function handOverOverdue(
  deps: Deps,
  chunk: SubscriptionDeskChunk,
  since: Date,
  outcome: SubscriptionDeskChunkOutcome,
): Promise<void> {
  const overdue = await overdueDeskSubscriptions(deps.db, chunk.deskWorkflowId, since, OVERDUE_AT_ONCE);
  for (const row of overdue) {
    await handOver(deps, row, row.start_result_code !== null);
    outcome.handedOver.push(row.subscription_id);
  }
}

/**
 * The subscription's workflow, started before its record stops naming the desk: a crash between the two leaves
 * a record the next chunk hands over again (the start then finds the workflow). The relay may have started it
 * already with the customer's answer: the same workflow, found. A notification that waited in the inbox while
 * the start was under way is freed now.
 */
async function handOver(deps: Deps, row: DeskSubscriptionRow, startAnswered: boolean): Promise<void> {
  const { client } = Context.current();
  if (row.desk_start === null)
    throw new Error(`Subscription ${row.subscription_id} has no desk start recorded`);
  try {
    const options = subscriptionDeskStartOptions(row.desk_start, row.workflow_id, startAnswered);
    await client.workflow.start('subscription', {
      ...options,
      // The API's starts add the kind (api/workflow-starts.ts); a worker's start adds it here.
      typedSearchAttributes: [
        { key: payrunKind, value: kindOf('subscription') },
        ...options.typedSearchAttributes,
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await handOverDeskSubscription(deps.db, row.subscription_id);
}
