/**
 * The gateway's verified notifications, stored once each, and who signals them. A claim is a lease
 * (`signal_claimed_until`): the receiver that stores a notification takes it, and so may a redelivery or
 * the relay once it lapsed, because whoever held it died before signalling. A row is done when
 * `signalled_at` is set; until then it is always someone's to signal (DESIGN decision 4).
 */
import type { Db } from './knex';

export interface NewNotification {
  kind: string;
  orderId: string;
  dedupeKey: string;
  resultCode: number | null;
  signedFields: Record<string, unknown>;
  unverifiedFields: Record<string, unknown>;
  workflowId: string;
  /** Fields whose text was made storable before storing (a NUL, a lone surrogate); empty: none. */
  normalisedFields: string[];
}

/** A stored notification, as the relay rebuilds its signal from it. */
export interface StoredNotification {
  id: string;
  kind: string;
  order_id: string;
  dedupe_key: string;
  workflow_id: string | null;
  signed_fields: Record<string, unknown> | null;
  unverified_fields: Record<string, unknown> | null;
  /** Rows stored before migration 0012 kept the raw body instead of the fields. */
  raw_body: string | null;
  received_at: Date;
}

const claimUntil = (db: Db, leaseSeconds: number) =>
  db.raw(`now() + make_interval(secs => ?)`, [leaseSeconds]);

/**
 * Stores a notification and decides who signals it, in one statement: a new notification is inserted
 * already claimed; a copy of one stored before takes the row only when it is not signalled and not
 * claimed by a live lease (the receiver that held it died mid-signal). PostgreSQL locks the conflicting
 * row and re-evaluates the WHERE clause on its newest version, so of copies arriving at once exactly one
 * gets a row back. One round trip instead of an insert and a claim. True: the caller signals.
 */
export async function storeAndClaimNotification(
  db: Db,
  notification: NewNotification,
  leaseSeconds: number,
): Promise<boolean> {
  const until = claimUntil(db, leaseSeconds);
  const claimed = await db('ipn_notifications')
    .insert({
      kind: notification.kind,
      order_id: notification.orderId,
      dedupe_key: notification.dedupeKey,
      result_code: notification.resultCode,
      raw_body: null,
      signed_fields: JSON.stringify(notification.signedFields),
      unverified_fields: JSON.stringify(notification.unverifiedFields),
      workflow_id: notification.workflowId,
      normalised_fields: notification.normalisedFields.length ? notification.normalisedFields : null,
      signal_claimed_until: until,
    })
    .onConflict('dedupe_key')
    .merge({ signal_claimed_until: until })
    .whereNull('ipn_notifications.signalled_at')
    .whereRaw(
      '(ipn_notifications.signal_claimed_until is null or ipn_notifications.signal_claimed_until < now())',
    )
    .returning(['id']);
  return claimed.length === 1;
}

/** The claimer could not signal (and will say so): the next copy, or the relay, may take it at once. */
export async function releaseNotificationClaim(db: Db, dedupeKey: string): Promise<void> {
  await db('ipn_notifications').where({ dedupe_key: dedupeKey }).update({ signal_claimed_until: null });
}

export async function markNotificationSignalled(db: Db, dedupeKey: string): Promise<void> {
  await db('ipn_notifications')
    .where({ dedupe_key: dedupeKey })
    .update({ signalled_at: db.fn.now(), signal_claimed_until: null });
}

/**
 * Claims up to `limit` stored notifications nobody signalled and nobody holds (the claim lapsed, or was
 * released, or never taken), oldest first. Rows another relay is claiming at this moment are skipped
 * (`for update skip locked`) and the claim is re-checked on the row's newest version, so of relays
 * racing, and of a relay racing a redelivery, each row goes to one.
 */
export async function claimUnsignalledNotifications(
  db: Db,
  options: { leaseSeconds: number; limit: number },
): Promise<StoredNotification[]> {
  const result = await db.raw(
    `update ipn_notifications set signal_claimed_until = now() + make_interval(secs => ?)
     where id in (
       select id from ipn_notifications
       where signalled_at is null and (signal_claimed_until is null or signal_claimed_until < now())
       order by received_at, id
       limit ?
       for update skip locked)
     returning id, kind, order_id, dedupe_key, workflow_id, signed_fields, unverified_fields, raw_body,
       received_at`,
    [options.leaseSeconds, options.limit],
  );
  return (result.rows as StoredNotification[]).sort(
    (a, b) => a.received_at.getTime() - b.received_at.getTime(),
  );
}

/** How long the oldest stored notification has waited for its signal, in seconds (0: none waits). */
export async function oldestUnsignalledAgeSeconds(db: Db): Promise<number> {
  const row = await db('ipn_notifications')
    .whereNull('signalled_at')
    .first(db.raw('extract(epoch from now() - min(received_at)) as age'));
  return Math.max(0, Number(row?.age ?? 0));
}

/** A record's notifications in the order they came: those about its orders or sent to its workflow. */
export async function notificationsAbout(
  db: Db,
  about: { orderIds: string[]; workflowId?: string },
  limit: number,
) {
  return db('ipn_notifications')
    .where((where) => {
      if (about.orderIds.length) where.orWhereIn('order_id', about.orderIds);
      if (about.workflowId) where.orWhere('workflow_id', about.workflowId);
    })
    .orderBy('received_at')
    .limit(limit)
    .select('kind', 'order_id', 'result_code', 'received_at', 'signalled_at');
}

/**
 * What the newest notification about `orderId` that carried any said outside its signature (the listed
 * unsigned fields, card numbers masked), with when it came; undefined when none did.
 */
export async function latestUnverifiedFields(
  db: Db,
  orderId: string,
): Promise<{ fields: Record<string, unknown>; receivedAt: Date } | undefined> {
  const row = (await db('ipn_notifications')
    .where({ order_id: orderId })
    .whereNotNull('unverified_fields')
    .whereRaw(`unverified_fields <> '{}'::jsonb`)
    .orderBy([
      { column: 'received_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('unverified_fields', 'received_at')) as
    { unverified_fields: Record<string, unknown>; received_at: Date } | undefined;
  return row ? { fields: row.unverified_fields, receivedAt: row.received_at } : undefined;
}
