/**
 * Notices to subscribers, one row per occasion (its key), and the subscriber's address and language. A
 * notice's row is locked while it is sent, so two attempts of one activity never both send it.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { recordEvent } from '../events/events';
import type {
  SubscriptionNoticeRequestSnapshot,
  SubscriptionNoticeSnapshot,
} from '../../platform/event-catalogue';
import type { NoticeKind, NoticeLang, NoticeStatus } from '../../contracts/subscriptions';

export interface NoticeRow {
  notice_key: string;
  subscription_id: string;
  kind: NoticeKind;
  lang: NoticeLang;
  status: NoticeStatus;
  subject: string | null;
  message_id: string | null;
  detail: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
}

export interface NoticeContact {
  name: string;
  email: string | null;
  lang: NoticeLang;
}

export async function noticeContactOf(db: Db, subscriptionId: string): Promise<NoticeContact | undefined> {
  const row = await db('subscriptions')
    .where({ subscription_id: subscriptionId })
    .first('name', 'notice_email', 'notice_lang');
  return row && { name: row.name, email: row.notice_email, lang: row.notice_lang };
}

export async function setNoticeContact(
  db: Db,
  subscriptionId: string,
  contact: { email: string | null; lang: NoticeLang },
): Promise<boolean> {
  const changed = await db('subscriptions')
    .where({ subscription_id: subscriptionId })
    .update({ notice_email: contact.email, notice_lang: contact.lang, updated_at: db.fn.now() });
  return changed > 0;
}

/** The notice's row, created (status `sending`) when it is the first attempt for this occasion. */
export async function claimNotice(
  db: Db,
  row: Pick<NoticeRow, 'notice_key' | 'subscription_id' | 'kind' | 'lang'>,
): Promise<void> {
  await db('subscription_notices')
    .insert({ ...row, status: 'sending' })
    .onConflict('notice_key')
    .ignore();
}

/**
 * Runs `send` with the notice's row locked, when it is still `sending`; `send` answers the row's new
 * state, written (with its event) in the same transaction. Answers the row as it ends.
 */
export async function sendLocked(
  db: Db,
  noticeKey: string,
  send: (
    row: NoticeRow,
  ) => Promise<Pick<NoticeRow, 'status' | 'subject' | 'message_id' | 'detail'> | undefined>,
): Promise<NoticeRow> {
  return db.transaction(async (trx) => {
    const row: NoticeRow = await trx('subscription_notices')
      .where({ notice_key: noticeKey })
      .forUpdate()
      .first();
    if (row.status !== 'sending') return row;
    const outcome = await send(row);
    const update = { ...(outcome ?? {}), attempts: row.attempts + 1, updated_at: trx.fn.now() };
    const [after] = await trx('subscription_notices').where({ notice_key: noticeKey }).update(update, '*');
    await recordNoticeEvent(trx, after as NoticeRow);
    return after as NoticeRow;
  });
}

/** A notice that no longer sends (no address): recorded on the timeline, no event. */
export async function skipNotice(db: Db, noticeKey: string, detail: string): Promise<void> {
  await db('subscription_notices')
    .where({ notice_key: noticeKey, status: 'sending' })
    .update({ status: 'skipped', detail, updated_at: db.fn.now() });
}

async function recordNoticeEvent(trx: Knex.Transaction, row: NoticeRow) {
  const snapshot: SubscriptionNoticeSnapshot = {
    subscriptionId: row.subscription_id,
    noticeKey: row.notice_key,
    kind: row.kind,
    lang: row.lang,
    status: row.status,
    reason: row.status === 'sent' ? null : row.detail,
  };
  if (row.status === 'sent')
    await recordEvent(trx, 'subscription.notice_sent', row.subscription_id, snapshot);
  if (row.status === 'failed')
    await recordEvent(trx, 'subscription.notice_failed', row.subscription_id, snapshot);
}

export async function noticeOf(db: Db, noticeKey: string): Promise<NoticeRow | undefined> {
  return db('subscription_notices').where({ notice_key: noticeKey }).first();
}

/** The subscription's notices, oldest first: its timeline of what the customer was told. */
export async function noticesOf(db: Db, subscriptionId: string): Promise<NoticeRow[]> {
  return db('subscription_notices')
    .where({ subscription_id: subscriptionId })
    .orderBy([{ column: 'created_at' }, { column: 'notice_key' }])
    .limit(500);
}

/**
 * Requests (subscription.notice_requested) about a subscription on record that have no notice row yet,
 * oldest first: the API's relay starts one workflow for each.
 */
export async function unansweredNoticeRequests(
  db: Db,
  limit: number,
): Promise<Array<{ eventId: string; snapshot: SubscriptionNoticeRequestSnapshot }>> {
  const rows = await db('events as e')
    .join('subscriptions as s', 's.subscription_id', 'e.object_id')
    .leftJoin('subscription_notices as n', 'n.notice_key', db.raw("e.snapshot->>'noticeKey'"))
    .where('e.type', 'subscription.notice_requested')
    .whereNull('n.notice_key')
    .orderBy('e.position')
    .limit(limit)
    .select('e.event_id', 'e.snapshot');
  return rows.map((row) => ({ eventId: row.event_id, snapshot: row.snapshot }));
}

/** A request for a kind payrun has no template for: on the timeline as skipped, never looked at again. */
export async function skipUnknownNoticeRequest(db: Db, request: SubscriptionNoticeRequestSnapshot) {
  await db('subscription_notices')
    .insert({
      notice_key: request.noticeKey,
      subscription_id: request.subscriptionId,
      kind: request.kind,
      lang: 'vi',
      status: 'skipped',
      detail: `No template for notice kind ${request.kind}`,
    })
    .onConflict('notice_key')
    .ignore();
}
