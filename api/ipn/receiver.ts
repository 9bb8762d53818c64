/**
 * One mechanism for every gateway notification: read the raw body, verify the signature in constant
 * time over the values as received, make its text storable (a NUL or a lone surrogate, which PostgreSQL
 * refuses, is normalised and the row says so: a notification is never refused for what it carries),
 * check partnerCode and that orderId and amount match payrun's own record, store the notification once
 * (its uniqueness key makes a redelivery a no-op) and acknowledge in the spec's format. A forged, altered
 * or unknown notification changes nothing and is logged without its secrets.
 *
 * No Temporal call stands before the answer: the answer depends on the signature, payrun's record of the
 * order and the stored row, so it is given once the row is committed, and the relay (`relay.ts`) signals
 * the workflow from the stored row, woken at once by the commit. Two database round trips per
 * notification: the order's record, and one statement that inserts and announces the row. Temporal being
 * slow or down delays signals, never answers: the gateway's 2xx means the row is committed, and a
 * committed row is signalled in the end.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { StartableWorkflowName, StartableWorkflows } from '../../contracts/shared';
import { signalWithStartWorkflow } from '../workflow-starts';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import {
  acknowledge,
  isGatewayError,
  notificationRecord,
  notificationSpecs,
  withListedFieldsOnly,
  parseNotification,
  type SigningKeys,
  type VerifiedNotification,
} from '../../gateway';
import type { NotificationKind, NotificationSpec } from '../../gateway/operations/types';
import { kindOf, readNotice, type Located, type NotificationChannel } from './channel';
import { ringInbox } from './doorbell';
import type { NotificationSettings } from './settings';
import {
  markNotificationSignalled,
  releaseNotificationClaim,
  storeAndClaimNotification,
  storeNotification,
  type NewNotification,
} from '../../db/shared/ipn-notifications';
import type { Db } from '../../db/shared/knex';
import { storableJson } from '../../db/shared/storable-text';
import type { Logger } from '../../platform/logger';
import { ipnsDisagreeing, ipnsReceived } from '../../platform/metrics';
import { ApiError } from '../http/errors';
import type { RateLimits } from '../http/rate-limits';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-depth';
import { defineRoute, type AnyRoute } from '../http/routes';

export interface IpnDependencies {
  db: Db;
  temporal: Client;
  merchant: SigningKeys & { partnerCode: string };
  /**
   * The claim lease (IPN_CLAIM_LEASE_SECONDS), and the previous design, kept for the ipn benchmark's
   * comparison only (IPN_SIGNAL_BEFORE_ANSWER).
   */
  notifications: Pick<NotificationSettings, 'claimLeaseSeconds' | 'signalBeforeAnswer' | 'relayScope'>;
  /**
   * The notification limits (RATE_LIMIT_*NOTIFICATIONS_PER_MINUTE); unset: none. The signature is checked
   * first, so a forgery spends only the forged budget and a flood of them never refuses a real one.
   */
  limits?: RateLimits;
}

const refuse = (kind: string, verdict: string, message: string): never => {
  ipnsReceived.inc({ kind, verdict });
  throw new ApiError('notification_refused', message);
};

/** A limit's 429 passes through, counted like every other verdict. */
function withinLimit(kind: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    ipnsReceived.inc({ kind, verdict: 'rate_limited' });
    throw error;
  }
}

/**
 * Signals the notification's workflow. A finished workflow no longer needs the news: that counts as
 * delivered (and is said in the log); any other failure is thrown, for the caller to leave the row to a
 * redelivery or the relay.
 */
export async function deliver(
  target: Located,
  temporal: Client,
  notification: VerifiedNotification<NotificationKind>,
  log: Logger,
): Promise<'signalled' | 'workflow_gone'> {
  const notice = readNotice(notification);
  const { delivery } = target;
  if ('noWorkflow' in delivery) {
    await delivery.record(notice);
    return 'signalled';
  }
  const about = { kind: notice.kind, orderId: notice.orderId, workflowId: target.workflowId };
  if (target.finished) {
    await target.afterFinish?.(notice);
    const disagreement = target.disagreement?.(notice);
    if (disagreement) {
      ipnsDisagreeing.inc({ kind: notice.kind });
      log.warn(
        { ...about, resultCode: notice.resultCode, transId: notice.transId },
        `A notification contradicts the order's final record: ${disagreement}. The record is kept; ` +
          "check the order with the gateway (its query) and the stored notification's signed fields",
      );
    } else {
      // The usual end of a disbursement's notification (its result came with the pay call): not news.
      log.debug(about, 'Notification for an order whose record is final: its news recorded, delivered');
    }
    return 'workflow_gone';
  }
  if (target.notYet && !target.finished) throw new Error(`Not delivered yet: ${target.notYet}`);
  try {
    if (target.startsWith)
      await signalWithStartWorkflow(temporal, target.startsWith.workflowType, {
        ...(target.startsWith.options as WorkflowStartOptions<StartableWorkflows[StartableWorkflowName]>),
        workflowId: target.workflowId,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        signal: delivery.signal,
        signalArgs: [delivery.args(notice) as never],
      });
    else
      await temporal.workflow
        .getHandle(target.workflowId)
        .signal(delivery.signal, delivery.args(notice) as never);
    return 'signalled';
  } catch (error) {
    const gone =
      (error as Error).name === 'WorkflowNotFoundError' ||
      error instanceof WorkflowExecutionAlreadyStartedError;
    if (!gone) throw error;
    await target.afterFinish?.(notice);
    log.info(about, 'Notification for a workflow that has finished: its news recorded, delivered');
    return 'workflow_gone';
  }
}

/**
 * The result code as its own column: an integer column, so a code it cannot hold (the spec bounds none)
 * is kept only in the signed fields rather than failing the insert.
 */
function storableResultCode(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const code = Number(value);
  return Number.isInteger(code) && code >= -2_147_483_648 && code <= 2_147_483_647 ? code : null;
}

function expectedOrderType(kind: NotificationKind): string | undefined {
  const spec: NotificationSpec = notificationSpecs[kind];
  return spec.orderType;
}

export function ipnRoute(channel: NotificationChannel, deps: IpnDependencies): AnyRoute {
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
    handler: async ({ body, log, req }) => {
      // Anything that is not a validly signed notification spends the address's forged budget; past it,
      // the answer is 429 rather than 400 (a client that keeps forging is told to slow down).
      const unsigned = (kind: string, verdict: string, message: string): never => {
        withinLimit(kind, () => deps.limits?.forgedNotification(req));
        return refuse(kind, verdict, message);
      };
      const raw = (body as Buffer).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        unsigned('unknown', 'malformed', 'The notification is not JSON.');
      }
      // null, a number, a string or an array is valid JSON but no notification.
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        unsigned('unknown', 'malformed', 'The notification is not a JSON object.');
      // Before the notification is verified or walked: no notification nests deep (api/http/json-depth.ts).
      if (nestsDeeperThan(parsed))
        unsigned('unknown', 'malformed', `The notification nests deeper than ${MAX_JSON_DEPTH} levels.`);
      const hints = parsed as Record<string, unknown>;
      const kind = kindOf(channel, hints);
      // Refusals are logged by kind, reason, orderId and size only: an unauthenticated caller decides
      // the body, so it never reaches the log (no flooding, no personal data).
      const refused = (
        reason: string,
        message: string,
        orderId = hints.orderId,
        outcome: typeof refuse = refuse,
      ): never => {
        log.warn(
          {
            kind,
            reason,
            orderId: typeof orderId === 'string' ? orderId.slice(0, 64) : undefined,
            size: raw.length,
          },
          'Refused a notification',
        );
        return outcome(kind, reason, message);
      };
      let verified: VerifiedNotification<NotificationKind>;
      try {
        verified = parseNotification(kind, raw, deps.merchant);
      } catch (error) {
        return refused(
          isGatewayError(error) ? error.type : 'invalid',
          'The notification failed verification.',
          hints.orderId,
          unsigned,
        );
      }
      // Signed by the gateway: only the notifications' own limit applies, one a billing day cannot reach.
      withinLimit(kind, () => deps.limits?.signedNotification(req));
      // Verified over the values as received; from here on, text PostgreSQL cannot store is normalised
      // (a lone surrogate becomes U+FFFD, a NUL is removed), in what is stored and signalled alike.
      const storable = storableJson(verified.fields as Record<string, unknown>);
      const notification = { ...verified, fields: storable.value } as VerifiedNotification<NotificationKind>;
      const fields = storable.value;
      // An orderId that is not storable names no order of payrun's (all of them are stored).
      if (storable.normalised.includes('orderId'))
        return refused('unknown_order', 'The notification names an order payrun does not know.', '');
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
      // Lower case: the check accepts either case of the hex, so a re-cased replay is the same notification.
      const dedupeKey = `${kind}:${String(fields.signature).toLowerCase()}`;
      // Kept: the signed fields, and apart the ones the spec lists unsigned (card numbers masked);
      // anything else a sender added is dropped, from the record and from the signal alike.
      const record = notificationRecord(notification);
      const kept = (path: string) => {
        const name = path.split('.')[0]!;
        return name in record.signed || name in record.unverified;
      };
      const row: NewNotification = {
        kind,
        orderId,
        dedupeKey,
        resultCode: storableResultCode(fields.resultCode),
        signedFields: record.signed,
        unverifiedFields: record.unverified,
        workflowId: target.workflowId,
        normalisedFields: storable.normalised.filter(kept),
        ...(deps.notifications.relayScope !== undefined && { relayScope: deps.notifications.relayScope }),
      };
      const stored = deps.notifications.signalBeforeAnswer
        ? await signalBeforeAnswering(deps, row, target, withListedFieldsOnly(notification), log)
        : await storeNotification(deps.db, row);
      if (stored) {
        // This process's relay sweeps now; other processes' relays hear the row's NOTIFY.
        if (!deps.notifications.signalBeforeAnswer) ringInbox(deps.db);
        ipnsReceived.inc({ kind, verdict: 'accepted' });
      } else {
        // Stored before: the relay signals it, or has; a redelivery changes nothing.
        ipnsReceived.inc({ kind, verdict: 'duplicate' });
      }
      // The acknowledgement echoes the values as the gateway sent and signed them.
      const ack = acknowledge(verified, deps.merchant, { operation: channel.operation });
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

/**
 * The previous design, for the ipn benchmark's comparison only (IPN_SIGNAL_BEFORE_ANSWER=true): store the
 * row already claimed, signal, mark, and only then answer; a failed signal answers 500 and releases the
 * claim for a redelivery or the relay. True: this copy stored and signalled it.
 */
async function signalBeforeAnswering(
  deps: IpnDependencies,
  row: NewNotification,
  target: Located,
  notification: VerifiedNotification<NotificationKind>,
  log: Logger,
): Promise<boolean> {
  const claimed = await storeAndClaimNotification(deps.db, row, deps.notifications.claimLeaseSeconds);
  if (!claimed) return false;
  try {
    await deliver(target, deps.temporal, notification, log);
  } catch (error) {
    await releaseNotificationClaim(deps.db, row.dedupeKey);
    throw error;
  }
  await markNotificationSignalled(deps.db, row.dedupeKey);
  return true;
}
