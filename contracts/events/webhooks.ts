/**
 * What webhook delivery shares with the API and the activities: identities, timing and inputs. Pure code.
 */
import type { Duration } from '@temporalio/common';

export const webhookEndpointWorkflowId = (endpointId: string) => `webhook-endpoint/${endpointId}`;
export const webhookResendWorkflowId = (endpointId: string, eventId: string, resendId: string) =>
  `webhook-resend/${endpointId}/${eventId}/${resendId}`;

export interface WebhookTiming {
  /** Wait before the first retry of a refused delivery; it doubles up to `maxRetryInterval`. */
  firstRetry: Duration;
  maxRetryInterval: Duration;
  /** How long one event keeps being retried before its endpoint is disabled (the replay window is another thing: see docs/events.md). */
  retryWindow: Duration;
  /** How long the receiver has to answer one request. */
  requestTimeout: Duration;
  /** How long one look at the feed waits for new events before the workflow looks again. */
  idlePoll: Duration;
}

export const DEFAULT_WEBHOOK_TIMING: WebhookTiming = {
  firstRetry: '10 seconds',
  maxRetryInterval: '1 hour',
  retryWindow: '3 days',
  requestTimeout: '10 seconds',
  idlePoll: '1 minute',
};

/** A place in the events feed (see db/events/events.ts). */
export interface WebhookCursor {
  txid: string;
  position: string;
}

export interface WebhookEndpointInput {
  endpointId: string;
  timing: WebhookTiming;
  /** Where the previous run stopped (continue-as-new); unset: the endpoint's stored cursor. */
  cursor?: WebhookCursor;
  /** Events the previous run read but had not delivered yet, in feed order (continue-as-new). */
  pending?: PendingWebhookEvent[];
  /**
   * Per object, since when (workflow time, ms) its first pending event has been tried: its retry window
   * keeps running across continue-as-new instead of starting again.
   */
  triedSince?: Record<string, number>;
}

/** An event read from the feed, not delivered yet. */
export interface PendingWebhookEvent {
  eventId: string;
  /** `<object type>/<object id>`: each object's events go out in order. */
  objectKey: string;
  /** The place its page was read from: everything before it was delivered once it is (null: the stored cursor). */
  from: WebhookCursor | null;
}

export interface WebhookResendInput {
  endpointId: string;
  eventId: string;
  timing: WebhookTiming;
}

/** Events one look at the feed hands over at most; each object's events go out in order. */
export const WEBHOOK_BATCH_SIZE = 50;
/** Looks at the feed per workflow run before continuing as new (keeps history small). */
export const WEBHOOK_BATCHES_PER_RUN = 200;
/**
 * Events read but not delivered an endpoint holds at most: the feed is read on while some objects wait
 * for their receiver, until this many wait (they travel in the continue-as-new input, so it stays small).
 */
export const WEBHOOK_MAX_PENDING = 1000;
/** Objects whose events are being delivered at once, per endpoint. */
export const WEBHOOK_OBJECTS_IN_FLIGHT = 50;

/** Failure types of a delivery: refused (retried) and never deliverable (not retried). */
export const WEBHOOK_REFUSED = 'webhook_refused';
export const WEBHOOK_URL_REFUSED = 'webhook_url_refused';

/** active ⇄ disabled (an undeliverable event; an operator re-enables); deleted is final. */
export type WebhookEndpointStatus = 'active' | 'disabled' | 'deleted';

const ENDPOINT_MOVES: Readonly<Record<WebhookEndpointStatus, readonly WebhookEndpointStatus[]>> = {
  active: ['disabled', 'deleted'],
  disabled: ['active', 'deleted'],
  deleted: [],
};

/** Whether an endpoint's record may go from `from` to `to` (db/ reads it); staying put is no move. */
export const canMoveWebhookEndpoint = (from: string, to: string): boolean =>
  ENDPOINT_MOVES[from as WebhookEndpointStatus]?.includes(to as WebhookEndpointStatus) ?? false;
