/**
 * How a notice reaches a subscriber. One interface, so the activity does not care whether it is mail
 * (the SMTP channel below, over nodemailer) or anything added later; tests use the real SMTP channel
 * against the dev mail catcher.
 *
 * What SMTP can promise: a message the server answered 250 to is accepted for delivery; nothing in the
 * protocol lets a sender ask "did you already take this one". So the activity records each notice before
 * and after sending, and every message carries a Message-ID derived from the notice's key: a resend after a
 * crash between "accepted" and "recorded" is the same message to any receiver that removes duplicates.
 */
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';

export interface OutgoingNotice {
  to: string;
  subject: string;
  text: string;
  lang: 'vi' | 'en';
  /** The notice's identity: the Message-ID and a header are derived from it. */
  noticeKey: string;
  kind: string;
}

export interface NoticeAccepted {
  messageId: string;
  /** The server's answer, e.g. `250 OK: queued`. */
  response: string;
}

/** A refusal that no retry changes (a 5xx answer): the notice is recorded failed at once. */
export class NoticeRefused extends Error {
  override readonly name = 'NoticeRefused';
}

export interface NoticeChannel {
  send(notice: OutgoingNotice): Promise<NoticeAccepted>;
}

export const noticeMessageId = (noticeKey: string, domain = 'notices.payrun') =>
  `<${createHash('sha256').update(noticeKey).digest('hex').slice(0, 40)}@${domain}>`;

/** SMTP_URL (smtp://user:pass@host:port, smtps:// for TLS) and NOTICE_FROM. */
export function smtpNoticeChannel(settings: { url: string; from: string }): NoticeChannel {
  const transport = nodemailer.createTransport(settings.url);
  return {
    async send(notice) {
      const messageId = noticeMessageId(notice.noticeKey);
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to: notice.to,
          subject: notice.subject,
          text: notice.text,
          messageId,
          headers: {
            'Content-Language': notice.lang,
            'X-Payrun-Notice-Kind': notice.kind,
            'X-Payrun-Notice-Key': notice.noticeKey,
          },
        });
        if (info.rejected.length > 0) throw new NoticeRefused(`The mail server refused ${notice.to}`);
        return { messageId, response: info.response };
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        if (code !== undefined && code >= 500) throw new NoticeRefused((error as Error).message);
        throw error;
      }
    },
  };
}

/** No SMTP_URL: every notice fails with this reason, so an operator sees why (notice_failed). */
export const unconfiguredNoticeChannel: NoticeChannel = {
  async send() {
    throw new NoticeRefused('No mail server is configured (SMTP_URL is unset)');
  },
};

/** NOTICE_FROM when unset: an address that can never be someone else's (.invalid). */
export const DEFAULT_NOTICE_FROM = 'payrun <billing@payrun.invalid>';
