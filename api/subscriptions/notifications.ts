import {
  authorizationSignal,
  chargeResultSignal,
  reactivationSignal,
  reauthorizationSignal,
  subscriptionDeskStartOptions,
} from '../../contracts/subscriptions';
import { findSubscriptionByOrderId } from '../../db/subscriptions/subscriptions';
import { heldBySubscriptionDesk } from '../../db/subscriptions/subscription-desk';
import { ipnPaths } from '../../platform/ipn-paths';
import { sends, type Notice, type NotificationChannel } from '../ipn/channel';

const withMessage = ({ message }: Notice) => (message ? { message } : {});
const withTransId = ({ transId }: Notice) => (transId ? { transId } : {});

/** List-B notifications: the customer's authorization, a reactivation's confirmation, a charge's result. */
export const subscriptionNotifications: NotificationChannel = {
  path: ipnPaths.subscription,
  summary: 'Receives subscription authorization, reactivation and charge notifications (list B).',
  kind: 'payment.resultB',
  locate: async (db, orderId) => {
    const found = await findSubscriptionByOrderId(db, orderId);
    if (!found) return undefined;
    const { row, via, charge } = found;
    const workflowId = row.workflow_id;
    // The subscription desk holds it (no workflow yet): the customer's answer starts its workflow.
    const onDesk = heldBySubscriptionDesk(row);
    if (via === 'authorization')
      return {
        workflowId,
        ...(onDesk &&
          (row.start_result_code === null
            ? { notYet: 'the subscription desk is making its start' }
            : {
                startsWith: {
                  workflowType: 'subscription',
                  options: subscriptionDeskStartOptions(row.desk_start, workflowId, true),
                },
              })),
        expectedAmount: Number(row.initial_amount),
        delivery: sends(authorizationSignal, (notice) => ({
          resultCode: notice.resultCode,
          ...withMessage(notice),
          ...(notice.fields.callbackToken ? { callbackToken: String(notice.fields.callbackToken) } : {}),
          ...withTransId(notice),
        })),
      };
    if (via === 'reactivation')
      return {
        workflowId,
        expectedAmount: 0,
        delivery: sends(reactivationSignal, (notice) => ({
          orderId,
          resultCode: notice.resultCode,
          ...withMessage(notice),
        })),
      };
    // A price rise's new authorization: amount 0 (it only authorizes the new recurringAmount).
    if (via === 'reauthorization')
      return {
        workflowId,
        expectedAmount: 0,
        delivery: sends(reauthorizationSignal, (notice) => ({
          orderId,
          resultCode: notice.resultCode,
          ...withMessage(notice),
          ...(notice.fields.callbackToken ? { callbackToken: String(notice.fields.callbackToken) } : {}),
        })),
      };
    return {
      workflowId,
      expectedAmount: Number(charge!.amount),
      delivery: sends(chargeResultSignal, (notice) => ({
        orderId,
        resultCode: notice.resultCode,
        ...withMessage(notice),
        ...withTransId(notice),
      })),
    };
  },
};
