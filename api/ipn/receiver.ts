/**
 * One mechanism for every gateway notification: read the raw body, verify the signature in constant
 * time over the values as received, check partnerCode and that orderId and amount match payrun's own
 * record, store the raw notification once (its uniqueness key makes a redelivery a no-op), signal the
 * workflow, and acknowledge in the spec's format. A forged, altered or unknown notification changes
 * nothing and is logged without its secrets.
 */
import type { Client } from '@temporalio/client';
import {
  acknowledge,
  isGatewayError,
  notificationRecord,
  notificationSpecs,
  withListedFieldsOnly,
  parseNotification,
  type OperationName,
  type SigningKeys,
  type VerifiedNotification,
} from '../../gateway';
import type { NotificationKind, NotificationSpec } from '../../gateway/operations/types';
import type { Db } from '../../db/knex';
import { ipnsReceived } from '../../platform/metrics';
import { ApiError } from '../http/errors';
import { defineRoute, type AnyRoute } from '../http/routes';

export interface IpnTarget {
  workflowId: string;
  /** The amount payrun recorded for this order; a notification with another amount is refused. */
  expectedAmount: number;
  signal(client: Client, notification: VerifiedNotification<NotificationKind>): Promise<void>;
}

export interface IpnChannel {
  path: string;
  /** The path before a rename: notifications for orders created by the previous release still come there. */
  formerPath?: string;
  summary: string;
  /** Which notification kind a raw body is (decided before verification, from unsigned hints). */
  kindOf(body: Record<string, unknown>): NotificationKind;
  /** payrun's record of the order, or undefined when the orderId is not ours. */
  locate(db: Db, orderId: string): Promise<IpnTarget | undefined>;
  /** The operation that led to these notifications, when its acknowledgement differs (card: signed JSON). */
  operation?: OperationName;
}

export interface IpnDependencies {
  db: Db;
  temporal: Client;
  merchant: SigningKeys & { partnerCode: string };
}

const refuse = (kind: string, verdict: string, message: string): never => {
  ipnsReceived.inc({ kind, verdict });
  throw new ApiError(400, 'notification_refused', message);
};

/** How long a claim holds before a redelivery may signal again (the receiver died mid-signal). */
const SIGNAL_CLAIM_SECONDS = 60;

/**
 * Stores a notification and decides who signals it, in one statement: a new notification is inserted
 * already claimed; a copy of one stored before takes the row only when it is not signalled and not
 * claimed by a live lease (the receiver that held it died mid-signal). PostgreSQL locks the conflicting
 * row and re-evaluates the WHERE clause on its newest version, so of copies arriving at once exactly one
 * gets a row back. One round trip instead of an insert and a claim.
 */
async function storeAndClaim(db: Db, row: Record<string, unknown>): Promise<boolean> {
  const claimUntil = db.raw(`now() + interval '${SIGNAL_CLAIM_SECONDS} seconds'`);
  const claimed = await db('ipn_notifications')
    .insert({ ...row, signal_claimed_until: claimUntil })
    .onConflict('dedupe_key')
    .merge({ signal_claimed_until: claimUntil })
    .whereNull('ipn_notifications.signalled_at')
    .whereRaw(
      '(ipn_notifications.signal_claimed_until is null or ipn_notifications.signal_claimed_until < now())',
    )
    .returning(['id']);
  return claimed.length === 1;
}

async function releaseSignal(db: Db, dedupeKey: string): Promise<void> {
  await db('ipn_notifications').where({ dedupe_key: dedupeKey }).update({ signal_claimed_until: null });
}

function expectedOrderType(kind: NotificationKind): string | undefined {
  const spec: NotificationSpec = notificationSpecs[kind];
  return spec.orderType;
}

export function ipnRoute(channel: IpnChannel, deps: IpnDependencies): AnyRoute {
  return defineRoute({
    method: 'post',
    path: channel.path,
    formerPath: channel.formerPath,
    summary: channel.summary,
    tag: 'notifications',
    access: {
      public: 'the gateway signs notifications instead of presenting a key; the signature is verified',
    },
    rawBody: { contentTypes: ['application/json'], limit: '256kb' },
    responseStatus: 204,
    handler: async ({ body, log }) => {
      const raw = (body as Buffer).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        refuse('unknown', 'malformed', 'The notification is not JSON.');
      }
      // null, a number, a string or an array is valid JSON but no notification.
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        refuse('unknown', 'malformed', 'The notification is not a JSON object.');
      const hints = parsed as Record<string, unknown>;
      const kind = channel.kindOf(hints);
      // Refusals are logged by kind, reason, orderId and size only: an unauthenticated caller decides
      // the body, so it never reaches the log (no flooding, no personal data).
      const refused = (reason: string, message: string, orderId = hints.orderId): never => {
        log.warn(
          {
            kind,
            reason,
            orderId: typeof orderId === 'string' ? orderId.slice(0, 64) : undefined,
            size: raw.length,
          },
          'Refused a notification',
        );
        return refuse(kind, reason, message);
      };
      let notification: VerifiedNotification<NotificationKind>;
      try {
        notification = parseNotification(kind, raw, deps.merchant);
      } catch (error) {
        return refused(
          isGatewayError(error) ? error.type : 'invalid',
          'The notification failed verification.',
        );
      }
      const fields = notification.fields as Record<string, unknown>;
      if (fields.partnerCode !== deps.merchant.partnerCode) {
        refused('wrong_partner', 'The notification is for another merchant.');
      }
      // Kinds that share a signed list (a disbursement and a remittance result) differ only by the
      // signed orderType: a notification is accepted only by the receiver of its own kind.
      const orderType = expectedOrderType(kind);
      if (orderType !== undefined && fields.orderType !== orderType) {
        refused('wrong_kind', `This receiver accepts only notifications with orderType ${orderType}.`);
      }
      const orderId = String(fields.orderId);
      const target = await channel.locate(deps.db, orderId);
      if (!target) {
        return refused('unknown_order', 'The notification names an order payrun does not know.');
      }
      if (fields.amount !== undefined && Number(fields.amount) !== target.expectedAmount) {
        return refused('amount_mismatch', 'The notification amount does not match the order.');
      }

      // The signature covers everything that matters, so it identifies this exact notification.
      const dedupeKey = `${kind}:${String(fields.signature)}`;
      // Kept: the signed fields, and apart the ones the spec lists unsigned (card numbers masked);
      // anything else a sender added is dropped, from the record and from the signal alike.
      const record = notificationRecord(notification);
      const claimed = await storeAndClaim(deps.db, {
        kind,
        order_id: orderId,
        dedupe_key: dedupeKey,
        result_code: fields.resultCode === undefined ? null : Number(fields.resultCode),
        raw_body: null,
        signed_fields: JSON.stringify(record.signed),
        unverified_fields: JSON.stringify(record.unverified),
        workflow_id: target.workflowId,
      });
      if (claimed) {
        try {
          await target.signal(deps.temporal, withListedFieldsOnly(notification));
        } catch (error) {
          // A finished workflow no longer needs the news; anything else must be redelivered.
          if ((error as Error).name !== 'WorkflowNotFoundError') {
            await releaseSignal(deps.db, dedupeKey);
            throw error;
          }
        }
        await deps
          .db('ipn_notifications')
          .where({ dedupe_key: dedupeKey })
          .update({ signalled_at: deps.db.fn.now(), signal_claimed_until: null });
        ipnsReceived.inc({ kind, verdict: 'accepted' });
      } else {
        // Signalled already, or being signalled by the copy that claimed it.
        ipnsReceived.inc({ kind, verdict: 'duplicate' });
      }
      const ack = acknowledge(notification, deps.merchant, { operation: channel.operation });
      return ack.status === 204
        ? { status: 204 }
        : {
            status: ack.status,
            body: ack.body,
            contentType: ack.headers['content-type'] ?? 'application/json',
          };
    },
  });
}
