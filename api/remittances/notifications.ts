import { getRemittanceByOrderId } from '../../db/remittances/remittances';
import { ipnPaths } from '../../platform/ipn-paths';
import { remittanceResultSignal } from '../../contracts/remittances';
import { resultOf, sends, type NotificationChannel } from '../ipn/channel';

/** The gateway's remittance result (orderType svc_remittance), for the create's orderId. */
export const remittanceNotifications: NotificationChannel = {
  path: ipnPaths.remittance,
  summary: 'Receives remittance results (orderType svc_remittance) from the gateway.',
  kind: 'remittance.result',
  locate: async (db, orderId) => {
    const remittance = await getRemittanceByOrderId(db, orderId);
    if (!remittance) return undefined;
    return {
      workflowId: remittance.workflow_id,
      // Before payrun sent the order there is no amount to match: such a notification is refused.
      expectedAmount: remittance.amount_sent === null ? Number.NaN : Number(remittance.amount_sent),
      delivery: sends(remittanceResultSignal, resultOf),
    };
  },
};
