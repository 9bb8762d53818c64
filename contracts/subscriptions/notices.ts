/**
 * Notices to subscribers: the kinds payrun sends, what each carries, and the identity that makes a
 * notice go out at most once per occasion. Pure code shared by the workflow, the activity, the API.
 */

export type NoticeLang = 'vi' | 'en';
export const NOTICE_LANGS: readonly NoticeLang[] = ['vi', 'en'];
/** A customer whose language is not on record is written to in Vietnamese. */
export const DEFAULT_NOTICE_LANG: NoticeLang = 'vi';

/**
 * upcoming_charge: before a charge attempt; charge_failed: after an insufficient-funds failure, with what
 * to do; paused: with the reactivation link when there is one; reactivation_reminder: the link again;
 * reactivated; cancelled: after the schedule's N days; price_change: requested by the price-change flow.
 */
export const NOTICE_KINDS = [
  'upcoming_charge',
  'charge_failed',
  'paused',
  'reactivation_reminder',
  'reactivated',
  'cancelled',
  'price_change',
  'reauthorization_reminder',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
export const isNoticeKind = (value: string): value is NoticeKind =>
  (NOTICE_KINDS as readonly string[]).includes(value);

/** What a template may show; every field optional so one shape serves every kind. */
export interface NoticeData {
  amount?: number;
  /** Epoch ms of the attempt, retry or cancellation the notice is about. */
  at?: number;
  cycle?: number;
  payUrl?: string;
  /** price_change: the amount before, and the first cycle of the new amount. */
  oldAmount?: number;
  newAmount?: number;
  effectiveDate?: string;
  /** reauthorization_reminder: days left before the new price's cycle. */
  daysBefore?: number;
}

export interface NoticeRequest {
  subscriptionId: string;
  kind: NoticeKind;
  /** The occasion's identity: one notice per key, ever (noticeKey()). */
  noticeKey: string;
  data: NoticeData;
}

/** `<subscription>/<kind>/<occasion>`, e.g. `s1/charge_failed/c3a0`: a retried activity finds its own row. */
export const noticeKey = (subscriptionId: string, kind: NoticeKind, occasion: string) =>
  `${subscriptionId}/${kind}/${occasion}`;

export type NoticeStatus = 'sending' | 'sent' | 'failed' | 'skipped';

export interface NoticeOutcome {
  status: Exclude<NoticeStatus, 'sending'>;
  /** Why it was not sent (no address, the mail server refused, attempts exhausted). */
  reason?: string;
}

/** Attempts of one notice before it is recorded failed (subscription.notice_failed). */
export const NOTICE_ATTEMPTS = 5;

/** The workflow that sends a requested notice: one per notice key, ever. */
export const subscriptionNoticeWorkflowId = (key: string) => `subscription-notice/${key}`;
