/** Webhook delivery: reading an endpoint's feed, sending one signed event, disabling an endpoint. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../db/shared/knex';
import { eventView, findEvent, type EventRow, type FeedCursor } from '../../db/events/events';
import {
  disableEndpoint,
  endpointFeed,
  getEndpoint,
  lastDelivery,
  recordDelivery,
  storeEndpointCursor,
  webhookSecretContext,
  type WebhookEndpointRow,
} from '../../db/events/webhooks';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret } from '../../platform/sealed-secrets';
import { webhookUrlProblem } from '../../platform/webhook-url';
import { signWebhook } from '../../platform/webhook-signature';
import {
  WEBHOOK_REFUSED,
  WEBHOOK_URL_REFUSED,
  type WebhookActivities,
  type WebhookCursor,
  type WebhookDelivery,
  type WebhookFeedPage,
} from '../../contracts/events';
import { bindActivities } from '../shared/bind';

export interface WebhookDeliverySettings {
  /** The payload codec keyring: endpoints' signing secrets are sealed with it. */
  keyring: CodecKeyring;
  /** Development only: http to loopback is allowed (WEBHOOK_ALLOW_LOOPBACK_HTTP). */
  allowLoopbackHttp: boolean;
}

export interface WebhookActivityDependencies {
  db: Db;
  webhooks?: WebhookDeliverySettings;
}
type Deps = WebhookActivityDependencies;

const FEED_POLL_MS = 250;

const cursorOf = (endpoint: WebhookEndpointRow): FeedCursor => ({
  txid: endpoint.cursor_txid,
  position: String(endpoint.cursor_position),
});

/** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
function liveSecrets(endpoint: WebhookEndpointRow, keyring: CodecKeyring, now: number): string[] {
  const context = webhookSecretContext(endpoint.endpoint_id);
  const secrets = [openSecret(endpoint.secret_sealed, keyring, context)];
  if (endpoint.previous_secret_sealed && (endpoint.previous_secret_expires_at?.getTime() ?? 0) > now)
    secrets.push(openSecret(endpoint.previous_secret_sealed, keyring, context));
  return secrets;
}

/**
 * The endpoint's next events after `after`. Waits up to `waitMs` for one to settle; tells the workflow to
 * stop when the endpoint is no longer active. `deliveredUpTo` (everything before it was delivered) is
 * stored as the endpoint's cursor first: the workflow reads on past an object still being retried, so the
 * stored cursor stays at the earliest event not delivered, never past it (a re-enabled endpoint resumes
 * there: some events may go out twice, none is skipped).
 */
export async function nextWebhookEvents(
  { db }: Deps,
  input: {
    endpointId: string;
    after?: WebhookCursor;
    deliveredUpTo?: WebhookCursor | null;
    limit: number;
    waitMs: number;
  },
): Promise<WebhookFeedPage> {
  // A workflow of the release before reads only past what it delivered: its `after` is the delivered place.
  const delivered = input.deliveredUpTo === undefined ? input.after : input.deliveredUpTo;
  if (delivered) await storeEndpointCursor(db, input.endpointId, delivered);
  const startedAt = Date.now();
  for (;;) {
    const endpoint = await getEndpoint(db, input.endpointId);
    const from = input.after ?? (endpoint ? cursorOf(endpoint) : { txid: '0', position: '0' });
    if (!endpoint || endpoint.status !== 'active')
      return { stop: endpoint?.status === 'disabled' ? 'disabled' : 'deleted', events: [], cursor: from };
    const { rows, cursor } = await endpointFeed(db, endpoint, from, input.limit);
    if (rows.length || Date.now() - startedAt >= input.waitMs) {
      return {
        events: rows.map((row) => ({
          eventId: row.event_id,
          objectKey: `${row.object_type}/${row.object_id}`,
        })),
        cursor,
      };
    }
    Context.current().heartbeat();
    await Context.current().sleep(FEED_POLL_MS);
  }
}

/**
 * POSTs one event, signed, and records the attempt. A non-2xx answer, a redirect or no answer in time
 * throws a retryable failure (Temporal retries with growing waits); a URL that the policy refuses is never
 * sent to, and fails for good.
 */
export async function deliverWebhookEvent(
  { db, webhooks }: Deps,
  input: WebhookDelivery,
): Promise<{ delivered: boolean }> {
  const endpoint = await getEndpoint(db, input.endpointId);
  if (!endpoint || endpoint.status !== 'active') return { delivered: false };
  if (!webhooks)
    throw ApplicationFailure.retryable(
      'This worker was built without webhook settings (createActivities({ webhooks })).',
      'webhooks_not_configured',
    );
  const event = await findEvent(db, input.eventId);
  if (!event) throw ApplicationFailure.nonRetryable(`Event ${input.eventId} does not exist`, 'unknown_event');
  const record = (outcome: DeliveryOutcome) =>
    recordDelivery(db, {
      endpoint_id: endpoint.endpoint_id,
      event_id: event.event_id,
      trigger: input.trigger,
      attempt: Context.current().info.attempt,
      succeeded: outcome.succeeded,
      status_code: outcome.statusCode ?? null,
      error: outcome.error ?? null,
      duration_ms: outcome.durationMs,
    });
  const urlProblem = webhookUrlProblem(endpoint.url, webhooks);
  if (urlProblem) {
    await record({ succeeded: false, error: `URL refused: ${urlProblem}`, durationMs: 0 });
    throw ApplicationFailure.nonRetryable(
      `The endpoint's URL is not allowed here: ${urlProblem}`,
      WEBHOOK_URL_REFUSED,
    );
  }
  const outcome = await postSigned(endpoint, event, webhooks.keyring, input.requestTimeoutMs);
  await record(outcome);
  if (!outcome.succeeded) {
    const { statusCode } = outcome;
    throw ApplicationFailure.retryable(
      statusCode !== undefined
        ? `The receiver answered HTTP ${statusCode}`
        : `The receiver could not be reached (${outcome.error})`,
      WEBHOOK_REFUSED,
      { statusCode },
    );
  }
  return { delivered: true };
}

interface DeliveryOutcome {
  succeeded: boolean;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/** One POST of one event, signed with the endpoint's live secrets; what the receiver answered. */
async function postSigned(
  endpoint: WebhookEndpointRow,
  event: EventRow,
  keyring: CodecKeyring,
  requestTimeoutMs: number,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(eventView(event));
  const now = Date.now();
  const signature = signWebhook(body, liveSecrets(endpoint, keyring, now), Math.floor(now / 1000));
  const startedAt = Date.now();
  let statusCode: number | undefined;
  let error: string | undefined;
  try {
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'payrun-webhooks/1',
        'payrun-signature': signature,
        'payrun-event-id': event.event_id,
        'payrun-event-type': event.type,
      },
      body,
      // A redirect could lead anywhere: it counts as a refusal, never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    statusCode = response.status;
    await response.body?.cancel();
  } catch (failure) {
    error = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
  }
  const succeeded = statusCode !== undefined && statusCode >= 200 && statusCode < 300;
  return { succeeded, statusCode, error, durationMs: Date.now() - startedAt };
}

/** One event could not be delivered (its retry window ran out, or its URL is refused): the endpoint stops, with the reason. */
export async function disableWebhookEndpoint(
  { db }: Deps,
  input: { endpointId: string; eventId: string; why: string },
): Promise<void> {
  const { last, attempts } = await lastDelivery(db, input.endpointId, input.eventId);
  const lastWord = last
    ? `last: ${last.status_code !== null ? `HTTP ${last.status_code}` : (last.error ?? 'no answer')} at ${last.attempted_at.toISOString()}`
    : 'no attempt recorded';
  await disableEndpoint(
    db,
    input.endpointId,
    `Event ${input.eventId} was not accepted: ${input.why} (${attempts} attempts; ${lastWord}). ` +
      `Deliveries stopped: fix the receiver, then POST /v1/webhook-endpoints/${input.endpointId}/enable.`,
  );
}

/** The webhook activities, bound to their dependencies for the worker. */
export const createWebhookActivities = (deps: Deps): WebhookActivities =>
  bindActivities(deps, { nextWebhookEvents, deliverWebhookEvent, disableWebhookEndpoint });
