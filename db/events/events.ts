/**
 * The events table: written only inside the transaction that changes the record an event is about, and
 * read as a feed whose cursor never passes an event that commits later (see docs/events.md).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import {
  EVENT_SCHEMA_VERSION,
  objectTypeOf,
  type EventObjectType,
  type EventSnapshots,
  type EventType,
  type PayrunEvent,
} from '../../platform/event-catalogue';

export interface EventRow {
  position: string;
  event_id: string;
  type: EventType;
  schema_version: number;
  object_type: EventObjectType;
  object_id: string;
  snapshot: unknown;
  created_at: Date;
  txid: string;
}

/** A place in the feed: after the event written by transaction `txid` at `position`. */
export interface FeedCursor {
  txid: string;
  position: string;
}

/**
 * Records an event. It takes a transaction, never the pool: an event exists exactly when the change
 * that caused it committed.
 */
export async function recordEvent<T extends EventType>(
  trx: Knex.Transaction,
  type: T,
  objectId: string,
  snapshot: EventSnapshots[T],
): Promise<string> {
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  await trx('events').insert({
    event_id: eventId,
    type,
    schema_version: EVENT_SCHEMA_VERSION,
    object_type: objectTypeOf(type),
    object_id: objectId,
    snapshot: JSON.stringify(snapshot),
  });
  return eventId;
}

/**
 * Records many events of one type in the caller's transaction, a few statements for a whole batch of rows
 * (DESIGN.md decision 16: a 1,000-row batch's item events are not 1,000 round trips).
 */
export async function recordEvents<T extends EventType>(
  trx: Knex.Transaction,
  type: T,
  events: ReadonlyArray<{ objectId: string; snapshot: EventSnapshots[T] }>,
): Promise<void> {
  for (let start = 0; start < events.length; start += 500) {
    await trx('events').insert(
      events.slice(start, start + 500).map((event) => ({
        event_id: `evt_${randomUUID().replaceAll('-', '')}`,
        type,
        schema_version: EVENT_SCHEMA_VERSION,
        object_type: objectTypeOf(type),
        object_id: event.objectId,
        snapshot: JSON.stringify(event.snapshot),
      })),
    );
  }
}

/**
 * Updates one row and lets `onChange` record the events the change causes, in the same transaction. The
 * row is locked first, so two writers never both see the old status and both emit.
 */
/**
 * Whether a record may go from one status to another: its process's transition table, which the caller
 * passes (db/ imports only types from workflows/).
 */
export type MayMove = (from: string, to: string) => boolean;

export async function updateRecordingEvents<Row>(
  db: Db | Knex.Transaction,
  table: string,
  where: Record<string, unknown>,
  patch: Record<string, unknown>,
  onChange: (trx: Knex.Transaction, before: Row, after: Row) => Promise<unknown>,
  /**
   * Records move forward only: a write whose `column` would go where `mayMove` forbids (an activity attempt
   * that runs again after a later write, a late answer) is not made at all, so no status is reached twice
   * and no event is emitted twice. Unset: every write is made.
   */
  forward?: { column: string; mayMove: MayMove },
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const before = (await trx(table).where(where).forUpdate().first()) as Row | undefined;
    if (!before) return false;
    if (forward) {
      const from = String((before as Record<string, unknown>)[forward.column]);
      const to = patch[forward.column];
      if (to !== undefined && String(to) !== from && !forward.mayMove(from, String(to))) return false;
    }
    const [after] = (await trx(table).where(where).update(patch).returning('*')) as Row[];
    await onChange(trx, before, after!);
    return true;
  });
}

/**
 * A write that no event follows, forward only by its own WHERE: made only while the row's status is one of
 * `from` (unset: whatever it is). One statement, no transaction: PostgreSQL re-reads a row it waited on, so
 * a concurrent writer's move is seen before this one is made. The builder, to await (rows written) or to
 * extend (`returning`) inside a transaction that also records an event.
 */
export const updateWhileStatusIn = (
  db: Db | Knex.Transaction,
  table: string,
  where: Record<string, unknown>,
  from: readonly string[] | undefined,
  patch: Record<string, unknown>,
) =>
  db(table)
    .where(where)
    .modify((write) => {
      if (from) write.whereIn('status', from);
    })
    .update(patch);

/**
 * A record's status moved to `to`, with the rest of `patch`, and the events `onChange` records: made only
 * when `mayMove` lets the record go from the status it has into `to`. Staying put is no move (mayMove says
 * so), so a repeated call changes nothing and emits nothing. The write is made only from the status just
 * read; when another writer moved the record meanwhile, the status is read again. True when it moved.
 */
export async function moveRecordingEvents<Row>(
  db: Db,
  table: string,
  where: Record<string, unknown>,
  to: string,
  patch: Record<string, unknown>,
  onChange: (trx: Knex.Transaction, before: Row, after: Row) => Promise<unknown>,
  mayMove: MayMove,
): Promise<boolean> {
  for (;;) {
    const current = (await db(table).where(where).first('status')) as { status: string } | undefined;
    if (!current || !mayMove(current.status, to)) return false;
    const moved = await updateRecordingEvents<Row>(
      db,
      table,
      { ...where, status: current.status },
      { ...patch, status: to },
      onChange,
      { column: 'status', mayMove },
    );
    if (moved) return true;
  }
}

export function eventView(row: EventRow): PayrunEvent {
  return {
    id: row.event_id,
    type: row.type,
    apiVersion: row.schema_version,
    createdAt: row.created_at.toISOString(),
    object: { type: row.object_type, id: row.object_id },
    data: row.snapshot as PayrunEvent['data'],
  };
}

// ---- the cursor: opaque to callers, `<txid>.<position>` inside
const CURSOR_TEXT = /^(\d{1,20})\.(\d{1,19})$/;

export const encodeCursor = (cursor: FeedCursor): string =>
  Buffer.from(`${cursor.txid}.${cursor.position}`, 'utf8').toString('base64url');

/** The cursor a caller sent back, or undefined when it is not one of ours. */
export function decodeCursor(text: string): FeedCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,60}$/.test(text)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(text, 'base64url').toString('utf8'));
  return match ? { txid: match[1]!, position: match[2]! } : undefined;
}

/** Events of transactions older than the oldest one still running: nothing can commit before them any more. */
const SETTLED = 'txid < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * The next settled events after `after`, in feed order (transaction id, then position). A transaction
 * that is still running holds back every event after its own, so an event never appears behind a
 * cursor that has passed it.
 */
export async function readFeed(
  db: Db,
  options: { after?: FeedCursor; types?: readonly string[]; limit: number },
): Promise<{ rows: EventRow[]; cursor: FeedCursor | undefined }> {
  const query = db<EventRow>('events')
    .whereRaw(SETTLED)
    .orderBy([
      { column: 'txid', order: 'asc' },
      { column: 'position', order: 'asc' },
    ])
    .limit(options.limit)
    .select('*');
  if (options.after)
    query.whereRaw('(txid, position) > (?::xid8, ?::bigint)', [options.after.txid, options.after.position]);
  if (options.types) query.whereIn('type', options.types);
  const rows = (await query) as EventRow[];
  const last = rows.at(-1);
  return { rows, cursor: last ? { txid: last.txid, position: last.position } : options.after };
}

/** Where the feed ends for a reader arriving now: everything settled is behind it. */
export async function feedHead(db: Db | Knex.Transaction): Promise<FeedCursor> {
  const result = await db.raw('select pg_snapshot_xmin(pg_current_snapshot())::text as txid');
  return { txid: String(result.rows[0].txid), position: '0' };
}

export async function findEvent(db: Db, eventId: string): Promise<EventRow | undefined> {
  return db<EventRow>('events').where({ event_id: eventId }).first();
}

/** The events of one object, oldest first (tests and support read them). */
export async function eventsOf(db: Db, objectType: EventObjectType, objectId: string): Promise<EventRow[]> {
  return db<EventRow>('events')
    .where({ object_type: objectType, object_id: objectId })
    .orderBy('position') as Promise<EventRow[]>;
}
