import { getRemittanceByOrderId } from '../../db/remittances/remittances';
import { ipnPaths } from '../../platform/ipn-paths';
import { remittanceResultSignal } from '../../contracts/remittances';
import type { IpnChannel } from '../ipn/receiver';

/** The gateway's remittance result (orderType svc_remittance), for the create's orderId. */
export const remittanceNotifications: IpnChannel = {
  path: ipnPaths.remittance,
  summary: 'Receives remittance results (orderType svc_remittance) from the gateway.',
  kindOf: () => 'remittance.result',
  locate: async (db, orderId) => {
    const remittance = await getRemittanceByOrderId(db, orderId);
    if (!remittance) return undefined;
    return {
      workflowId: remittance.workflow_id,
      // Before payrun sent the order there is no amount to match: such a notification is refused.
      expectedAmount: remittance.amount_sent === null ? Number.NaN : Number(remittance.amount_sent),
      signal: async (client, notification) => {
        const fields = notification.fields as {
          resultCode?: number;
          message?: string;
          transId?: number | string;
        };
        await client.workflow.getHandle(remittance.workflow_id).signal(remittanceResultSignal, {
          resultCode: Number(fields.resultCode),
          message: fields.message,
          ...(fields.transId === undefined || fields.transId === null
            ? {}
            : { transId: String(fields.transId) }),
        });
      },
    };
  },
};
