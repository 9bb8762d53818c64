/**
 * What happened to one record, for its detail page: the gateway's notifications about its orders or
 * workflow, and the audit log's entries about it (who did what, and whether the API refused it) for the
 * roles that may read the audit log.
 */
import { auditEntriesAbout } from '../../db/shared/audit-log';
import { notificationsAbout } from '../../db/shared/ipn-notifications';
import type { Db } from '../../db/shared/knex';

/** A detail page shows at most this many notifications and as many actions. */
const TIMELINE_LIMIT = 500;

export interface TimelineQuery {
  targetType?: string;
  targetId?: string;
  workflowId?: string;
  /** Comma-separated: a subscription's charges each have their own order id. */
  orderIds?: string;
}

/** `withActions`: whether the caller may read the audit log (api/audit/readers.ts); others get no actions. */
export async function timelineOf(db: Db, query: TimelineQuery, withActions: boolean) {
  const orderIds = (query.orderIds ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
    .slice(0, 200);
  const notifications =
    orderIds.length || query.workflowId
      ? await notificationsAbout(db, { orderIds, workflowId: query.workflowId }, TIMELINE_LIMIT)
      : [];
  const actions =
    withActions && query.targetType && query.targetId
      ? await auditEntriesAbout(db, { type: query.targetType, id: query.targetId }, TIMELINE_LIMIT)
      : [];
  return {
    notifications: notifications.map((row) => ({
      kind: row.kind as string,
      orderId: row.order_id as string,
      resultCode: row.result_code as number | null,
      receivedAt: row.received_at as Date,
      signalledAt: row.signalled_at as Date | null,
    })),
    actions: actions.map((row) => ({
      at: row.at as Date,
      actor: row.actor_name as string,
      action: row.action as string,
      outcome: row.outcome as string,
      errorCode: row.error_code as string | null,
      requestId: row.request_id as string | null,
      details: row.details as Record<string, unknown>,
    })),
  };
}
