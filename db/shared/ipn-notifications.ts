/**
 * The gateway's verified notifications: the inbox. The receiver stores a notification and answers; the
 * relay is the only one that signals. A row is done when `signalled_at` is set; until then it is always
 * someone's to signal (DESIGN decision 4). A claim is a lease (`signal_claimed_until`): the relay that
 * takes a row holds it while it signals, and another relay may take it once it lapses, because whoever
 * held it died before marking it. One workflow's notifications are claimed one at a time, oldest first,
 * so they are signalled in the order they were stored.
 *
 * The previous design (the receiver claims and signals before answering) stays selectable for the ipn
 * benchmark's comparison (`storeAndClaimNotification`); its rows are the relay's like any other.
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
  /** The relays that may take it (`NotificationSettings.relayScope`); unset: every relay. */
  relayScope?: string;
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
  /** `received_at` to the microsecond, as text: the order the relay signals a workflow's rows in. */
  received_us?: string;
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
      relay_scope: notification.relayScope ?? null,
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

/**
 * The channel a commit to the inbox is announced on (LISTEN/NOTIFY), so the relays of other API processes
 * wake for it at once rather than at their next sweep.
 */
export const INBOX_CHANNEL = 'payrun_ipn_inbox';

/**
 * Stores a notification unclaimed, for the relay, in one statement. It does not NOTIFY: PostgreSQL
 * serialises the commits of every transaction that notifies (one lock for the whole server, held through
 * the commit's WAL flush), so one NOTIFY per row put every receiver's insert in a single queue. The caller
 * announces commits instead (`ringInbox`, which sends one NOTIFY at a time per process). True: stored
 * now; false: stored before (a redelivery of the same dedupe key inserts nothing).
 */
export async function storeNotification(db: Db, notification: NewNotification): Promise<boolean> {
  const result = await db.raw(
    `insert into ipn_notifications
       (kind, order_id, dedupe_key, result_code, raw_body, signed_fields, unverified_fields, workflow_id,
        normalised_fields, relay_scope)
     values (?, ?, ?, ?, null, ?::jsonb, ?::jsonb, ?, ?::text[], ?)
     on conflict (dedupe_key) do nothing
     returning id`,
    [
      notification.kind,
      notification.orderId,
      notification.dedupeKey,
      notification.resultCode,
      JSON.stringify(notification.signedFields),
      JSON.stringify(notification.unverifiedFields),
      notification.workflowId,
      notification.normalisedFields.length ? notification.normalisedFields : null,
      notification.relayScope ?? null,
    ],
  );
  return (result.rows as unknown[]).length === 1;
}

/** Wakes every relay that LISTENs on the inbox's channel, for rows committed before this call. */
export async function announceInboxCommits(db: Db): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [INBOX_CHANNEL, '']);
}

/**
 * An order's unsignalled notifications that a relay put off (their claim lapses later) are free now, and the
 * relays are woken: what kept them (a disbursement the desk held) has ended. A claim still being signalled may
 * be signalled twice, which decision 3 makes harmless.
 */
export async function freeNotificationsOf(db: Db, orderId: string): Promise<void> {
  const freed = await db('ipn_notifications')
    .where({ order_id: orderId })
    .whereNull('signalled_at')
    .whereNotNull('signal_claimed_until')
    .update({ signal_claimed_until: null });
  if (freed > 0) await announceInboxCommits(db);
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
 * The object a notification is about, for ordering: its workflow (a row stored without one goes by its
 * order). Notifications of one object are signalled one after another; different objects, in parallel.
 * Migration 0032 indexes this very expression.
 */
const OBJECT_OF = (alias: string) => `coalesce(${alias}.workflow_id, ${alias}.order_id)`;

/**
 * Claims stored notifications nobody signalled and nobody holds (the claim lapsed, or was never taken),
 * whole objects at a time: up to `objects` workflows whose oldest unsignalled notification is free, oldest
 * first, and with it up to `perObject - 1` of that workflow's later free ones. A workflow's oldest
 * unsignalled row is its lock: only the relay that locked it (`for update skip locked`, re-checked on the
 * row's newest version) claims the rows behind it, and while its claim lives no relay sees another row of
 * that workflow as oldest. So one workflow's rows are claimed by one relay, in the order they were stored,
 * and never behind an earlier one left unsignalled; different workflows go to whichever relay comes. The
 * partial index of migration 0032 keeps "is an earlier one unsignalled?" one probe however large the table.
 */
export async function claimOldestPerObject(
  db: Db,
  options: {
    leaseSeconds: number;
    objects: number;
    perObject: number;
    scope?: string;
    /** Only rows stored at least this long ago (a relay giving way to a burst); unset: any age. */
    storedSecondsAgo?: number;
  },
): Promise<StoredNotification[]> {
  const scope = options.scope ?? null;
  const age = options.storedSecondsAgo ?? null;
  const free = (alias: string) =>
    `${alias}.signalled_at is null
     and (${alias}.signal_claimed_until is null or ${alias}.signal_claimed_until < now())
     and (?::text is null or ${alias}.relay_scope = ?::text)
     and (?::float8 is null or ${alias}.received_at < now() - make_interval(secs => ?::float8))`;
  const result = await db.raw(
    `with heads as (
       select c.id, ${OBJECT_OF('c')} as object from ipn_notifications c
       where ${free('c')}
         and not exists (
           select 1 from ipn_notifications e
           where e.signalled_at is null
             and ${OBJECT_OF('e')} = ${OBJECT_OF('c')}
             and (e.received_at, e.id) < (c.received_at, c.id))
       order by c.received_at, c.id
       limit ?
       for update of c skip locked),
     followers as (
       select later.id from heads h
       cross join lateral (
         select f.id from ipn_notifications f
         where ${free('f')} and ${OBJECT_OF('f')} = h.object and f.id <> h.id
         order by f.received_at, f.id
         limit ?) later)
     update ipn_notifications set signal_claimed_until = now() + make_interval(secs => ?)
     where id in (select id from heads union all select id from followers)
     returning id, kind, order_id, dedupe_key, workflow_id, signed_fields, unverified_fields, raw_body,
       received_at, (extract(epoch from received_at) * 1000000)::bigint::text as received_us`,
    [
      ...[scope, scope, age, age],
      options.objects,
      ...[scope, scope, age, age],
      Math.max(0, options.perObject - 1),
      options.leaseSeconds,
    ],
  );
  // In the database's order (microseconds, then id): a JavaScript Date keeps only milliseconds.
  const key = (row: StoredNotification) => [BigInt(row.received_us ?? 0), BigInt(row.id)] as const;
  return (result.rows as StoredNotification[]).sort((a, b) => {
    const [[at, aid], [bt, bid]] = [key(a), key(b)];
    return at === bt ? (aid < bid ? -1 : aid > bid ? 1 : 0) : at < bt ? -1 : 1;
  });
}

/** Rows the relay signalled (or found their workflow finished): done, in one statement for a batch. */
export async function markNotificationsSignalled(db: Db, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await db('ipn_notifications')
    .whereIn('id', ids)
    .update({ signalled_at: db.fn.now(), signal_claimed_until: null });
}

/**
 * Rows the relay could not signal now (Temporal unreachable): their claim is shortened to `seconds`, so
 * the next sweep after that tries them again, not one a whole lease later. Their workflows' later
 * notifications keep waiting behind them.
 */
export async function retryNotificationsAfter(
  db: Db,
  ids: readonly string[],
  seconds: number,
): Promise<void> {
  if (!ids.length) return;
  await db('ipn_notifications')
    .whereIn('id', ids)
    .whereNull('signalled_at')
    .update({ signal_claimed_until: claimUntil(db, seconds) });
}

/** How long the oldest stored notification has waited for its signal, in seconds (0: none waits). */
export async function oldestUnsignalledAgeSeconds(db: Db): Promise<number> {
  const row = await db('ipn_notifications')
    .whereNull('signalled_at')
    .first(db.raw('extract(epoch from now() - min(received_at)) as age'));
  return Math.max(0, Number(row?.age ?? 0));
}

/**
 * Notifications stored in the last `windowSeconds` and not signalled yet, per second: how far arrivals are
 * running ahead of the relays. The partial index on unsignalled rows answers it without touching the rest.
 */
export async function unsignalledArrivalsPerSecond(
  db: Db,
  options: { windowSeconds: number; scope?: string },
): Promise<number> {
  const row = await db('ipn_notifications')
    .whereNull('signalled_at')
    .where('received_at', '>', db.raw('now() - make_interval(secs => ?::float8)', [options.windowSeconds]))
    .modify((query) => {
      if (options.scope !== undefined) query.where('relay_scope', options.scope);
    })
    .count({ count: '*' })
    .first();
  return Number((row as { count: string } | undefined)?.count ?? 0) / options.windowSeconds;
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
