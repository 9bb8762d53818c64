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
  parseNotification,
  redact,
  type OperationName,
  type SigningKeys,
  type VerifiedNotification,
} from '../../gateway';
import type { NotificationKind } from '../../gateway/operations/types';
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

export function ipnRoute(channel: IpnChannel, deps: IpnDependencies): AnyRoute {
  return defineRoute({
    method: 'post',
    path: channel.path,
    summary: channel.summary,
    tag: 'notifications',
    access: {
      public: 'the gateway signs notifications instead of presenting a key; the signature is verified',
    },
    rawBody: { contentType: 'application/json', limit: '256kb' },
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
      let notification: VerifiedNotification<NotificationKind>;
      try {
        notification = parseNotification(kind, raw, deps.merchant);
      } catch (error) {
        log.warn({ kind, reason: (error as Error).message, body: redact(hints) }, 'Refused a notification');
        return refuse(
          kind,
          isGatewayError(error) ? error.type : 'invalid',
          'The notification failed verification.',
        );
      }
      const fields = notification.fields as Record<string, unknown>;
      if (fields.partnerCode !== deps.merchant.partnerCode) {
        refuse(kind, 'wrong_partner', 'The notification is for another merchant.');
      }
      const orderId = String(fields.orderId);
      const target = await channel.locate(deps.db, orderId);
      if (!target) {
        log.warn({ kind, orderId }, 'Refused a notification for an unknown order');
        return refuse(kind, 'unknown_order', 'The notification names an order payrun does not know.');
      }
      if (fields.amount !== undefined && Number(fields.amount) !== target.expectedAmount) {
        log.warn(
          { kind, orderId, amount: fields.amount, expected: target.expectedAmount },
          'Refused an altered notification',
        );
        return refuse(kind, 'amount_mismatch', 'The notification amount does not match the order.');
      }

      // The signature covers everything that matters, so it identifies this exact notification.
      const dedupeKey = `${kind}:${String(fields.signature)}`;
      const [stored] = await deps
        .db('ipn_notifications')
        .insert({
          kind,
          order_id: orderId,
          dedupe_key: dedupeKey,
          result_code: fields.resultCode === undefined ? null : Number(fields.resultCode),
          raw_body: raw,
          workflow_id: target.workflowId,
        })
        .onConflict('dedupe_key')
        .ignore()
        .returning(['id']);
      const existing = stored
        ? undefined
        : await deps.db('ipn_notifications').where({ dedupe_key: dedupeKey }).first();
      if (existing?.signalled_at) {
        ipnsReceived.inc({ kind, verdict: 'duplicate' });
      } else {
        try {
          await target.signal(deps.temporal, notification);
        } catch (error) {
          // A finished workflow no longer needs the news; anything else must be redelivered.
          if ((error as Error).name !== 'WorkflowNotFoundError') throw error;
        }
        await deps
          .db('ipn_notifications')
          .where({ dedupe_key: dedupeKey })
          .update({ signalled_at: deps.db.fn.now() });
        ipnsReceived.inc({ kind, verdict: 'accepted' });
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
