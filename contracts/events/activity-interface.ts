/**
 * The webhook activities as the endpoint workflows call them: their names are the activity types recorded
 * in every history, so none is ever renamed.
 */
import type { WebhookCursor } from './webhooks';

/** The next events of an endpoint's feed, or why its workflow stops. */
export interface WebhookFeedPage {
  stop?: 'deleted' | 'disabled';
  /** objectKey (`<object type>/<object id>`): each object's events go out in order. */
  events: Array<{ eventId: string; objectKey: string }>;
  cursor: WebhookCursor;
}

export interface WebhookDelivery {
  endpointId: string;
  eventId: string;
  trigger: 'automatic' | 'resend';
  requestTimeoutMs: number;
}

export interface WebhookActivities {
  /**
   * The endpoint's next events after `after` (everything up to it was delivered, and is stored as the
   * endpoint's cursor), waiting up to `waitMs` for one to settle.
   */
  nextWebhookEvents(input: {
    endpointId: string;
    after?: WebhookCursor;
    /**
     * Everything up to here was delivered: stored as the endpoint's cursor (where a re-enabled endpoint
     * resumes). Null: nothing to store yet; unset (a workflow of the release before): `after`.
     */
    deliveredUpTo?: WebhookCursor | null;
    limit: number;
    waitMs: number;
  }): Promise<WebhookFeedPage>;
  /** POSTs one event, signed, and records the attempt; a refusal is a retryable failure. */
  deliverWebhookEvent(input: WebhookDelivery): Promise<{ delivered: boolean }>;
  /** One event could not be delivered: the endpoint stops, with the reason. */
  disableWebhookEndpoint(input: { endpointId: string; eventId: string; why: string }): Promise<void>;
}
