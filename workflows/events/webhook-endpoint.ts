import {
  ActivityFailure,
  continueAsNew,
  proxyActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import { durationMs, earlierTypesOf } from '../../contracts/shared';
import {
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_BATCHES_PER_RUN,
  WEBHOOK_URL_REFUSED,
  type WebhookCursor,
  type WebhookEndpointInput,
  type WebhookResendInput,
  type WebhookActivities,
  type WebhookTiming,
} from '../../contracts/events';

/**
 * One delivery, retried by Temporal with growing waits for the whole retry window: a refused attempt
 * costs no history, and each attempt is recorded by the activity in webhook_deliveries.
 */
const deliveries = (timing: WebhookTiming) =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: durationMs(timing.requestTimeout) + 10_000,
    scheduleToCloseTimeout: timing.retryWindow,
    retry: {
      initialInterval: timing.firstRetry,
      backoffCoefficient: 2,
      maximumInterval: timing.maxRetryInterval,
      // A worker of the release before raises the earlier name; either stops the retries.
      nonRetryableErrorTypes: [WEBHOOK_URL_REFUSED, ...earlierTypesOf(WEBHOOK_URL_REFUSED)],
    },
  });

const feedOf = (timing: WebhookTiming) =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: durationMs(timing.idlePoll) + 30_000,
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

/**
 * Delivers an endpoint's events, at least once: the feed hands over settled events in order; each
 * object's events go out one after another (its next event only after the previous one was accepted),
 * different objects side by side. An event still refused when its retry window ends disables the
 * endpoint, with the reason, and the workflow ends; the stored cursor keeps the place for a re-enable.
 */
export async function webhookEndpoint(input: WebhookEndpointInput): Promise<'deleted' | 'disabled'> {
  const feed = feedOf(input.timing);
  const send = deliveries(input.timing);
  let cursor: WebhookCursor | undefined = input.cursor;
  for (let batch = 0; batch < WEBHOOK_BATCHES_PER_RUN && !workflowInfo().continueAsNewSuggested; batch++) {
    const next = await feed.nextWebhookEvents({
      endpointId: input.endpointId,
      after: cursor,
      limit: WEBHOOK_BATCH_SIZE,
      waitMs: durationMs(input.timing.idlePoll),
    });
    if (next.stop) return next.stop;
    const failed = await deliverInOrder(input, send, next.events);
    if (failed) {
      await feed.disableWebhookEndpoint({ endpointId: input.endpointId, ...failed });
      return 'disabled';
    }
    cursor = next.cursor;
  }
  return continueAsNew<typeof webhookEndpoint>({ ...input, cursor });
}

type Deliveries = ReturnType<typeof deliveries>;
type Undeliverable = { eventId: string; why: string };

/** Each object's events one after another, different objects side by side; the first event that could not be delivered. */
async function deliverInOrder(
  input: WebhookEndpointInput,
  send: Deliveries,
  events: ReadonlyArray<{ eventId: string; objectKey: string }>,
): Promise<Undeliverable | undefined> {
  const lanes = new Map<string, string[]>();
  for (const event of events)
    lanes.set(event.objectKey, [...(lanes.get(event.objectKey) ?? []), event.eventId]);
  const failures = await Promise.all(
    [...lanes.values()].map((eventIds) => deliverLane(input, send, eventIds)),
  );
  return failures.find((failure) => failure !== undefined);
}

/** One object's events in order: a later one waits until the earlier one was accepted. */
async function deliverLane(
  input: WebhookEndpointInput,
  send: Deliveries,
  eventIds: string[],
): Promise<Undeliverable | undefined> {
  for (const eventId of eventIds) {
    try {
      await send.deliverWebhookEvent({
        endpointId: input.endpointId,
        eventId,
        trigger: 'automatic',
        requestTimeoutMs: durationMs(input.timing.requestTimeout),
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      return { eventId, why: whyUndeliverable(error, input.timing) };
    }
  }
  return undefined;
}

const whyUndeliverable = (error: ActivityFailure, timing: WebhookTiming) =>
  error.retryState === RetryState.TIMEOUT || error.cause instanceof TimeoutFailure
    ? `its retry window (${String(timing.retryWindow)}) ran out`
    : (error.cause?.message ?? error.message);

/** An operator re-sends one event: delivered with the same retries, outside the endpoint's order. */
export async function webhookResend(input: WebhookResendInput): Promise<'delivered' | 'skipped'> {
  const result = await deliveries(input.timing).deliverWebhookEvent({
    endpointId: input.endpointId,
    eventId: input.eventId,
    trigger: 'resend',
    requestTimeoutMs: durationMs(input.timing.requestTimeout),
  });
  return result.delivered ? 'delivered' : 'skipped';
}
