import { findPaymentByOrderId, updatePayment } from '../../db/payments/payments';
import { ipnPaths } from '../../platform/ipn-paths';
import {
  canMovePayment,
  decidedStatus,
  isFinalPaymentCode,
  noticeOf,
  paymentResultSignal,
} from '../../contracts/payments';
import { sends, type NotificationChannel } from '../ipn/channel';

function paymentChannel(path: string, kind: 'payment.resultA' | 'payment.resultB'): NotificationChannel {
  return {
    path,
    summary:
      kind === 'payment.resultB'
        ? 'Receives card payment (payWithCC) results from the gateway: signed list B.'
        : 'Receives one-time payment and POS results from the gateway: signed list A.',
    kind,
    // The one-time card flow is the one flow whose acknowledgement the spec gives: signed JSON.
    ...(kind === 'payment.resultB' ? { operation: 'payment.payWithCC' as const } : {}),
    locate: async (db, orderId) => {
      const row = await findPaymentByOrderId(db, orderId);
      if (!row || (row.request_type === 'payWithCC') !== (kind === 'payment.resultB')) return undefined;
      return {
        workflowId: row.workflow_id,
        expectedAmount: Number(row.amount),
        delivery: sends(paymentResultSignal, (notice) => noticeOf(notice.fields, 'ipn')),
        // After payrun stopped listening (30 days past expiry, or a run from before it listened): a signed
        // final result is the gateway's word, recorded forward only (expired → succeeded, never back).
        afterFinish: async ({ fields }) => {
          const notice = noticeOf(fields, 'ipn');
          if (!isFinalPaymentCode(notice.resultCode)) return;
          await updatePayment(
            db,
            row.payment_id,
            {
              status: decidedStatus(notice.resultCode, row.auto_capture),
              result_code: notice.resultCode,
              result_message: notice.message,
              ...(notice.transId !== undefined ? { trans_id: notice.transId } : {}),
              ...(notice.payType !== undefined ? { pay_type: notice.payType } : {}),
              completed_at: new Date(),
            },
            canMovePayment,
          );
        },
      };
    },
  };
}

/** List A (every type but payWithCC, and POS) and list B (payWithCC) arrive at separate paths. */
export const paymentNotifications = paymentChannel(ipnPaths.payment, 'payment.resultA');
export const cardPaymentNotifications = paymentChannel(ipnPaths.paymentCard, 'payment.resultB');
