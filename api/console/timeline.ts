/**
 * What happened to one record, for its detail page: the gateway's notifications about its orders or
 * workflow, and the audit log's entries about it (who did what, and whether the API refused it).
 */
import type { Db } from '../../db/shared/knex';

export interface TimelineQuery {
  targetType?: string;
  targetId?: string;
  workflowId?: string;
  /** Comma-separated: a subscription's charges each have their own order id. */
  orderIds?: string;
}

export async function timelineOf(db: Db, query: TimelineQuery) {
  const orderIds = (query.orderIds ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
    .slice(0, 200);
  const notifications =
    orderIds.length || query.workflowId
      ? await db('ipn_notifications')
          .where((where) => {
            if (orderIds.length) where.orWhereIn('order_id', orderIds);
            if (query.workflowId) where.orWhere('workflow_id', query.workflowId);
          })
          .orderBy('received_at')
          .limit(500)
          .select('kind', 'order_id', 'result_code', 'received_at', 'signalled_at')
      : [];
  const actions =
    query.targetType && query.targetId
      ? await db('audit_log')
          .where({ target_type: query.targetType, target_id: query.targetId })
          .orderBy('at')
          .limit(500)
          .select('at', 'actor_name', 'action', 'outcome', 'error_code', 'request_id', 'details')
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
