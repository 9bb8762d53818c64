import {
  findPaymentByOrderId,
  paymentResultPatch,
  updatePayment,
  type PaymentRow,
} from '../../db/payments/payments';
import type { Db } from '../../db/shared/knex';
import { ipnPaths } from '../../platform/ipn-paths';
import {
  canMovePayment,
  decidedStatus,
  isFinalPaymentCode,
  noticeOf,
  paymentResultSignal,
  type PaymentNotice,
} from '../../contracts/payments';
import { sends, type NotificationChannel } from '../ipn/channel';

const signalled = sends(paymentResultSignal, (notice) => noticeOf(notice.fields, 'ipn'));

/**
 * A notification for a payment the desk holds, recorded as its workflow would record it: a final result ends
 * the payment, anything else marks it pending (it waits on, and is handed to a workflow of its own that asks
 * the gateway once its notification wait is over). The record moves forward only, so a repeat changes nothing.
 */
async function recordHeldByDesk(db: Db, row: PaymentRow, notice: PaymentNotice): Promise<void> {
  const patch = isFinalPaymentCode(notice.resultCode)
    ? paymentResultPatch(decidedStatus(notice.resultCode, row.auto_capture), notice)
    : { status: 'pending' as const };
  await updatePayment(db, row.payment_id, patch, canMovePayment);
}

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
      const located = { workflowId: row.workflow_id, expectedAmount: Number(row.amount) };
      if (row.desk_id !== null) {
        // The payment desk holds it (docs/payments.md): no workflow waits, the record is the payment's state.
        if (row.status === 'created')
          return { ...located, delivery: signalled, notYet: 'the payment desk is making its create' };
        return {
          ...located,
          delivery: {
            noWorkflow: 'the payment desk holds the payment: its record is its state',
            record: ({ fields }) => recordHeldByDesk(db, row, noticeOf(fields, 'ipn')),
          },
        };
      }
      return {
        ...located,
        delivery: signalled,
        // After payrun stopped listening (30 days past expiry, or a run from before it listened): a signed
        // final result is the gateway's word, recorded forward only (expired → succeeded, never back).
        afterFinish: async ({ fields }) => {
          const notice = noticeOf(fields, 'ipn');
          if (!isFinalPaymentCode(notice.resultCode)) return;
          await updatePayment(
            db,
            row.payment_id,
            paymentResultPatch(decidedStatus(notice.resultCode, row.auto_capture), notice),
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
