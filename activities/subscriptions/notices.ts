/**
 * One notice to a subscriber, sent at most once per notice key: the row is created before the send
 * (`sending`) and locked while it runs, so a retried or a concurrent attempt of the same activity finds
 * it `sent` (or still locked) and sends nothing. The one window SMTP leaves open: the server accepted the
 * message and the worker died before the row said so; the retry then sends the same message again, with
 * the same Message-ID (platform/notice-channel.ts).
 */
import { Context } from '@temporalio/activity';
import type { Db } from '../../db/shared/knex';
import { claimNotice, noticeContactOf, sendLocked, skipNotice } from '../../db/subscriptions/notices';
import {
  NOTICE_ATTEMPTS,
  isNoticeKind,
  type NoticeOutcome,
  type NoticeRequest,
} from '../../contracts/subscriptions';
import { NoticeRefused, type NoticeChannel } from '../../platform/notice-channel';
import { renderNotice } from './notice-templates';

export interface NoticeDependencies {
  db: Db;
  notices: NoticeChannel;
}

/** The attempt Temporal is making (1 outside an activity, e.g. the notice relay's own calls). */
function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return NOTICE_ATTEMPTS;
  }
}

export async function sendSubscriptionNotice(
  { db, notices }: NoticeDependencies,
  request: NoticeRequest,
): Promise<NoticeOutcome> {
  const { subscriptionId, kind, noticeKey, data } = request;
  if (!isNoticeKind(kind)) return { status: 'skipped', reason: `No template for notice kind ${kind}` };
  const contact = await noticeContactOf(db, subscriptionId);
  if (!contact) return { status: 'skipped', reason: `Subscription ${subscriptionId} is not on record` };
  await claimNotice(db, { notice_key: noticeKey, subscription_id: subscriptionId, kind, lang: contact.lang });
  if (!contact.email) {
    await skipNotice(db, noticeKey, 'No email address on record for this subscriber');
    return { status: 'skipped', reason: 'No email address on record for this subscriber' };
  }
  const email = contact.email;
  const last = attemptNow() >= NOTICE_ATTEMPTS;
  let transient: unknown;
  const row = await sendLocked(db, noticeKey, async (claimed) => {
    const rendered = renderNotice(kind, claimed.lang, contact.name, data);
    try {
      const accepted = await notices.send({ to: email, ...rendered, lang: claimed.lang, noticeKey, kind });
      return {
        status: 'sent',
        subject: rendered.subject,
        message_id: accepted.messageId,
        detail: accepted.response,
      };
    } catch (error) {
      const reason = (error as Error).message;
      if (error instanceof NoticeRefused || last)
        return { status: 'failed', subject: rendered.subject, message_id: null, detail: reason };
      transient = error;
      return { status: 'sending', subject: rendered.subject, message_id: null, detail: reason };
    }
  });
  // Not accepted, attempts left: Temporal tries again after its pause (the row stays `sending`).
  if (transient) throw transient;
  if (row.status === 'sent') return { status: 'sent' };
  return {
    status: row.status === 'sending' ? 'failed' : row.status,
    ...(row.detail && { reason: row.detail }),
  };
}
