/** Webhook endpoints and their delivery attempts. */
import type { Db } from '../shared/knex';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import type { EventType } from '../../platform/event-catalogue';
import { moveRecordingEvents, readFeed, type EventRow, type FeedCursor } from './events';
import { canMoveWebhookEndpoint, type WebhookEndpointStatus } from '../../contracts/events';

/** The authenticated context of an endpoint's sealed secrets: a secret copied to another row does not open. */
export const webhookSecretContext = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export type { WebhookEndpointStatus };

export interface WebhookEndpointRow {
  endpoint_id: string;
  url: string;
  description: string;
  event_types: EventType[];
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  disabled_at: Date | null;
  /** Sealed with the payload codec keyring; opened only to sign a delivery. */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  cursor_txid: string;
  cursor_position: string;
  workflow_id: string;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface WebhookDeliveryRow {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  trigger: 'automatic' | 'resend';
  attempt: number;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

/**
 * A new endpoint starts where the feed ends now: it receives every event not yet settled when it was
 * created, and none of those before.
 */
export async function insertEndpoint(
  db: Db,
  row: Pick<
    WebhookEndpointRow,
    | 'endpoint_id'
    | 'url'
    | 'description'
    | 'event_types'
    | 'secret_sealed'
    | 'workflow_id'
    | 'created_by_key'
    | 'created_by'
  >,
): Promise<WebhookEndpointRow> {
  const [inserted] = await db('webhook_endpoints')
    .insert({
      ...row,
      status: 'active',
      cursor_txid: db.raw('pg_snapshot_xmin(pg_current_snapshot())'),
      cursor_position: 0,
    })
    .returning('*');
  return inserted;
}

export const getEndpoint = (db: Db, endpointId: string): Promise<WebhookEndpointRow | undefined> =>
  db<WebhookEndpointRow>('webhook_endpoints').where({ endpoint_id: endpointId }).first();

/** A page of the endpoints not deleted, newest first, with the filters every list shares. */
export async function listEndpointsPage(db: Db, filter: ListFilter) {
  const query = applyListFilter(
    db<WebhookEndpointRow>('webhook_endpoints').whereNot({ status: 'deleted' }),
    filter,
    {
      created: 'created_at',
      status: 'status',
      ids: ['endpoint_id', 'url', 'description'],
      tiebreak: 'endpoint_id',
    },
  );
  return pageOf((await query) as WebhookEndpointRow[], filter);
}

/** An endpoint's one transition (canMoveWebhookEndpoint); endpoints emit no events. True when it moved. */
const moveEndpoint = (
  db: Db,
  endpointId: string,
  to: WebhookEndpointStatus,
  patch: Record<string, unknown>,
) =>
  moveRecordingEvents<WebhookEndpointRow>(
    db,
    'webhook_endpoints',
    { endpoint_id: endpointId },
    to,
    { ...patch, updated_at: db.fn.now() },
    async () => undefined,
    canMoveWebhookEndpoint,
  );

export async function deleteEndpoint(db: Db, endpointId: string): Promise<void> {
  await moveEndpoint(db, endpointId, 'deleted', { deleted_at: db.fn.now() });
}

/** Only an active endpoint is disabled: a deleted one stays deleted. */
export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await moveEndpoint(db, endpointId, 'disabled', { disabled_reason: reason, disabled_at: db.fn.now() });
}

/** A disabled endpoint is active again; it resumes from its stored cursor. */
export const enableEndpoint = (db: Db, endpointId: string): Promise<boolean> =>
  moveEndpoint(db, endpointId, 'active', { disabled_reason: null, disabled_at: null });

/** The new secret signs from now on; the old one signs too until `previousExpiresAt`. */
export async function rotateEndpointSecret(
  db: Db,
  endpointId: string,
  sealed: { current: string; previous: string; previousExpiresAt: Date },
): Promise<void> {
  await db('webhook_endpoints').where({ endpoint_id: endpointId }).update({
    secret_sealed: sealed.current,
    previous_secret_sealed: sealed.previous,
    previous_secret_expires_at: sealed.previousExpiresAt,
    secret_rotated_at: db.fn.now(),
    updated_at: db.fn.now(),
  });
}

/** Everything before `cursor` was delivered (the workflow asks for what follows only then). */
export async function storeEndpointCursor(db: Db, endpointId: string, cursor: FeedCursor): Promise<void> {
  await db('webhook_endpoints')
    .where({ endpoint_id: endpointId })
    .update({ cursor_txid: cursor.txid, cursor_position: cursor.position });
}

/** The endpoint's next settled events of the types it wants, after `after`. */
export async function endpointFeed(
  db: Db,
  endpoint: WebhookEndpointRow,
  after: FeedCursor,
  limit: number,
): Promise<{ rows: EventRow[]; cursor: FeedCursor }> {
  const { rows, cursor } = await readFeed(db, { after, types: endpoint.event_types, limit });
  return { rows, cursor: cursor ?? after };
}

export async function recordDelivery(
  db: Db,
  delivery: Omit<WebhookDeliveryRow, 'delivery_id' | 'attempted_at'>,
): Promise<void> {
  await db('webhook_deliveries').insert({ ...delivery, error: delivery.error?.slice(0, 1000) ?? null });
}

export async function listDeliveries(
  db: Db,
  endpointId: string,
  filter: { eventId?: string; limit: number },
): Promise<WebhookDeliveryRow[]> {
  const query = db<WebhookDeliveryRow>('webhook_deliveries')
    .where({ endpoint_id: endpointId })
    .orderBy('delivery_id', 'desc')
    .limit(filter.limit);
  if (filter.eventId) query.where({ event_id: filter.eventId });
  return query as Promise<WebhookDeliveryRow[]>;
}

export async function lastDelivery(
  db: Db,
  endpointId: string,
  eventId: string,
): Promise<{ last: WebhookDeliveryRow | undefined; attempts: number }> {
  const [last] = await listDeliveries(db, endpointId, { eventId, limit: 1 });
  const counted = await db('webhook_deliveries')
    .where({ endpoint_id: endpointId, event_id: eventId })
    .count<{ count: string }[]>({ count: '*' });
  return { last, attempts: Number(counted[0]?.count ?? 0) };
}
