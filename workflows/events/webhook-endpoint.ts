import {
  ActivityFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import { durationMs, earlierTypesOf } from '../../contracts/shared';
import {
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_BATCHES_PER_RUN,
  WEBHOOK_MAX_PENDING,
  WEBHOOK_OBJECTS_IN_FLIGHT,
  WEBHOOK_URL_REFUSED,
  type PendingWebhookEvent,
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
const deliveries = (timing: WebhookTiming, retryWindowMs?: number) =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: durationMs(timing.requestTimeout) + 10_000,
    scheduleToCloseTimeout: retryWindowMs ?? timing.retryWindow,
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

/** Executions started from here on deliver each object on its own; older ones finish their run in batches. */
export const OBJECTS_INDEPENDENT = 'webhook-objects-independent';

/** The first wait before the feed is looked at again while events are under way; it doubles up to idlePoll. */
const FIRST_RECHECK_MS = 1_000;

/**
 * Delivers an endpoint's events, at least once: the feed hands over settled events in order; each
 * object's events go out one after another (its next event only after the previous one was accepted),
 * and objects independently: the feed is read on while an object waits for its receiver, so one object's
 * refusals delay only that object's later events. An event still refused when its retry window ends
 * disables the endpoint, with the reason, and the workflow ends; the stored cursor keeps the place for a
 * re-enable.
 */
export async function webhookEndpoint(input: WebhookEndpointInput): Promise<'deleted' | 'disabled'> {
  if (!patched(OBJECTS_INDEPENDENT)) return webhookEndpointInBatches(input);
  const feed = feedOf(input.timing);
  const lanes = new ObjectLanes(input, WEBHOOK_OBJECTS_IN_FLIGHT);
  const idlePollMs = durationMs(input.timing.idlePoll);
  let readAt: WebhookCursor | undefined = input.cursor;
  let recheckMs = FIRST_RECHECK_MS;
  for (let look = 0; look < WEBHOOK_BATCHES_PER_RUN && !workflowInfo().continueAsNewSuggested; look++) {
    // A bounded backlog: past it the feed waits, so one run's state (and its continue-as-new input) stays small.
    await condition(() => lanes.pendingCount < WEBHOOK_MAX_PENDING || lanes.ended);
    if (lanes.ended) break;
    // With events under way the look does not wait in the activity: the workflow waits instead (below), so
    // it sees a delivery's end, and a retry's wait is workflow time (a time-skipping test can skip it).
    const underWay = lanes.pendingCount > 0;
    const from = readAt ?? null;
    const next = await feed.nextWebhookEvents({
      endpointId: input.endpointId,
      after: readAt,
      deliveredUpTo: lanes.deliveredUpTo(from),
      limit: WEBHOOK_BATCH_SIZE,
      waitMs: underWay ? 0 : idlePollMs,
    });
    if (next.stop) return next.stop;
    for (const event of next.events) lanes.add({ ...event, from });
    readAt = next.cursor;
    if (next.events.length) {
      recheckMs = FIRST_RECHECK_MS;
    } else if (lanes.pendingCount > 0) {
      // Only an object still being retried keeps events pending for long: look again soon (its neighbours'
      // new events go out within a second or two), then less often while nothing new comes, up to idlePoll.
      await condition(() => lanes.pendingCount === 0 || lanes.ended, recheckMs);
      recheckMs = Math.min(2 * recheckMs, idlePollMs);
    }
  }
  // Let the objects under way finish (most take one request), so that few events travel to the next run.
  await condition(() => lanes.pendingCount === 0 || lanes.ended, 2 * durationMs(input.timing.requestTimeout));
  const failed = lanes.outcome();
  if (failed) {
    await feed.disableWebhookEndpoint({ endpointId: input.endpointId, ...failed });
    return 'disabled';
  }
  // A delivery still under way is given up with this run and made again by the next one, in its place in
  // its object's order: at least once (the receiver dedupes by event id), never skipped, never reordered
  // behind a later event of its object (those wait in `pending` behind it).
  return continueAsNew<typeof webhookEndpoint>({ ...input, cursor: readAt, ...lanes.carried() });
}

interface Lane {
  objectKey: string;
  /** Sequence numbers of the object's pending events, in feed order. */
  queue: number[];
  /** Since when (workflow time) its first event is being tried. */
  triedSince?: number;
}

/**
 * Events read and not yet delivered, one lane per object: a lane sends its events one after another,
 * up to `inFlight` lanes at once, each independent of the others.
 */
class ObjectLanes {
  /** By sequence number: Map keeps insertion order, so the first entry is the earliest undelivered event. */
  private readonly pending = new Map<number, PendingWebhookEvent>();
  private readonly lanes = new Map<string, Lane>();
  private readonly waiting: Lane[] = [];
  private delivering = 0;
  private nextSeq = 0;
  private failed?: Undeliverable;
  private crashed?: unknown;

  constructor(
    private readonly input: WebhookEndpointInput,
    private readonly inFlight: number,
  ) {
    for (const event of input.pending ?? []) this.add(event);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** An event could not be delivered (the endpoint is disabled), or the workflow code failed. */
  get ended(): boolean {
    return this.failed !== undefined || this.crashed !== undefined;
  }

  /** The first event that could not be delivered; rethrows a workflow code failure. */
  outcome(): Undeliverable | undefined {
    if (this.crashed !== undefined) throw this.crashed;
    return this.failed;
  }

  /** Everything before this place was delivered: the earliest pending event's page, or where the feed was read to. */
  deliveredUpTo(readAt: WebhookCursor | null): WebhookCursor | null {
    const [earliest] = this.pending.values();
    return earliest ? earliest.from : readAt;
  }

  add(event: PendingWebhookEvent): void {
    const seq = this.nextSeq++;
    this.pending.set(seq, event);
    let lane = this.lanes.get(event.objectKey);
    if (!lane) {
      lane = {
        objectKey: event.objectKey,
        queue: [],
        triedSince: this.input.triedSince?.[event.objectKey],
      };
      this.lanes.set(event.objectKey, lane);
      this.waiting.push(lane);
    }
    lane.queue.push(seq);
    this.startWaiting();
  }

  /** What the next run needs to go on where this one stopped. */
  carried(): Pick<WebhookEndpointInput, 'pending' | 'triedSince'> {
    const triedSince: Record<string, number> = {};
    for (const lane of this.lanes.values())
      if (lane.triedSince !== undefined) triedSince[lane.objectKey] = lane.triedSince;
    return { pending: [...this.pending.values()], triedSince };
  }

  private startWaiting(): void {
    while (this.delivering < this.inFlight && this.waiting.length) {
      const lane = this.waiting.shift()!;
      this.delivering++;
      this.deliverLane(lane).catch((error: unknown) => {
        this.crashed ??= error;
      });
    }
  }

  private async deliverLane(lane: Lane): Promise<void> {
    const { timing } = this.input;
    const windowMs = durationMs(timing.retryWindow);
    for (;;) {
      const seq = lane.queue[0];
      if (seq === undefined || this.ended) break;
      const event = this.pending.get(seq)!;
      lane.triedSince ??= Date.now();
      // The window counts from the first try, also when that was in an earlier run.
      const leftMs = Math.max(1_000, windowMs - (Date.now() - lane.triedSince));
      try {
        await deliveries(timing, leftMs < windowMs ? leftMs : undefined).deliverWebhookEvent({
          endpointId: this.input.endpointId,
          eventId: event.eventId,
          trigger: 'automatic',
          requestTimeoutMs: durationMs(timing.requestTimeout),
        });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        this.failed ??= { eventId: event.eventId, why: whyUndeliverable(error, timing) };
        return;
      }
      // Only an accepted event leaves `pending`: until then the stored cursor stays before it.
      lane.queue.shift();
      lane.triedSince = undefined;
      this.pending.delete(seq);
    }
    this.lanes.delete(lane.objectKey);
    this.delivering--;
    this.startWaiting();
  }
}

/**
 * The release before: a batch's objects side by side, but the next batch only once every object of this
 * one was accepted, so one refusing object held back all others. Kept for executions started before
 * OBJECTS_INDEPENDENT, until they continue as new.
 */
async function webhookEndpointInBatches(input: WebhookEndpointInput): Promise<'deleted' | 'disabled'> {
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
