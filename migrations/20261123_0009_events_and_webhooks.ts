import type { Knex } from 'knex';

/**
 * Events out: the events table (written in the same transaction as the record change that causes each
 * event), webhook endpoints (secrets sealed, a delivery cursor) and every delivery attempt.
 *
 * `txid` is the writing transaction's id (xid8). The feed is ordered by (txid, position) and shows only
 * events of transactions older than the oldest one still running, so a reader never passes an event
 * that commits later (docs/events.md, "The cursor").
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    create table events (
      position bigint generated always as identity primary key,
      event_id text not null unique,
      type text not null,
      schema_version integer not null,
      object_type text not null,
      object_id text not null,
      snapshot jsonb not null,
      created_at timestamptz not null default now(),
      txid xid8 not null default pg_current_xact_id()
    );
    create index events_feed on events (txid, position);
    create index events_by_type on events (type, txid, position);
    create index events_by_object on events (object_type, object_id, position);

    create table webhook_endpoints (
      endpoint_id text primary key,
      url text not null,
      description text not null default '',
      event_types text[] not null,
      status text not null check (status in ('active', 'disabled', 'deleted')),
      disabled_reason text,
      disabled_at timestamptz,
      secret_sealed text not null,
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz,
      secret_rotated_at timestamptz,
      cursor_txid xid8 not null,
      cursor_position bigint not null default 0,
      workflow_id text not null,
      created_by_key text not null,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );

    create table webhook_deliveries (
      delivery_id bigint generated always as identity primary key,
      endpoint_id text not null references webhook_endpoints (endpoint_id),
      event_id text not null references events (event_id),
      trigger text not null check (trigger in ('automatic', 'resend')),
      attempt integer not null,
      succeeded boolean not null,
      status_code integer,
      error text,
      duration_ms integer not null,
      attempted_at timestamptz not null default now()
    );
    create index webhook_deliveries_by_endpoint on webhook_deliveries (endpoint_id, delivery_id);
    create index webhook_deliveries_by_event on webhook_deliveries (event_id, endpoint_id);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop table webhook_deliveries; drop table webhook_endpoints; drop table events;');
}
