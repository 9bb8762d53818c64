import { outcomeOf } from '../../gateway';
import { ipnPaths } from '../../platform/ipn-paths';
import { batchNotificationSignal } from '../../contracts/payouts';
import type { IpnChannel } from '../ipn/receiver';

/** The gateway's batch notifications: creation validated (batch created), then the payment result. */
export const batchNotifications: IpnChannel = {
  path: ipnPaths.batch,
  summary: 'Receives batch disbursement notifications (8003 created, payment result) from the gateway.',
  kindOf: (body) => (outcomeOf(Number(body.resultCode)) === 'batch_created' ? 'batch.created' : 'batch.paid'),
  locate: async (db, orderId) => {
    const batch = await db('payout_batches').where({ order_id: orderId }).first();
    if (!batch) return undefined;
    return {
      workflowId: batch.workflow_id,
      expectedAmount: Number(batch.total_amount),
      signal: async (client, notification) => {
        const resultCode = Number((notification.fields as { resultCode?: number }).resultCode);
        await client.workflow.getHandle(batch.workflow_id).signal(batchNotificationSignal, {
          stage: notification.kind === 'batch.created' ? 'created' : 'paid',
          resultCode,
        });
      },
    };
  },
};
