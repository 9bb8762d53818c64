import { isUndecided, outcomeOf } from '../../gateway';
import { findDisbursementByOrderId } from '../../db/payouts/disbursements';
import { findBatchByOrderId } from '../../db/payouts/runs';
import { ipnPaths } from '../../platform/ipn-paths';
import {
  batchNotificationSignal,
  disbursementResultSignal,
  isFinalDisbursementStatus,
} from '../../contracts/payouts';
import { resultOf, sends, type NotificationChannel } from '../ipn/channel';

/** The gateway's batch notifications: creation validated (batch created), then the payment result. */
export const batchNotifications: NotificationChannel = {
  path: ipnPaths.batch,
  summary: 'Receives batch disbursement notifications (8003 created, payment result) from the gateway.',
  kind: (body) => (outcomeOf(Number(body.resultCode)) === 'batch_created' ? 'batch.created' : 'batch.paid'),
  locate: async (db, orderId) => {
    const batch = await findBatchByOrderId(db, orderId);
    if (!batch) return undefined;
    return {
      workflowId: batch.workflow_id,
      expectedAmount: Number(batch.total_amount),
      delivery: sends(batchNotificationSignal, ({ kind, resultCode }) => ({
        stage: kind === 'batch.created' ? 'created' : 'paid',
        resultCode,
      })),
    };
  },
};

/** The gateway's result of a single disbursement. */
export const disbursementNotifications: NotificationChannel = {
  path: ipnPaths.disbursement,
  summary: 'Receives single disbursement results from the gateway.',
  kind: 'disbursement.result',
  locate: async (db, orderId) => {
    const row = await findDisbursementByOrderId(db, orderId);
    if (!row) return undefined;
    return {
      workflowId: row.workflow_id,
      expectedAmount: Number(row.amount),
      delivery: sends(disbursementResultSignal, resultOf),
      // Its workflow returns once it records a final status (workflows/payouts/disbursement.ts), which
      // with a result in pay's answer is before the gateway's notification of it arrives.
      finished: isFinalDisbursementStatus(row.status),
      // A payout the desk settled keeps its desk_id: its record is final, so the notice is news for the record only.
      ...(row.desk_id &&
        !isFinalDisbursementStatus(row.status) && {
          notYet: `the desk is paying disbursement ${row.disbursement_id} (${row.status}); it settles it or hands it to a workflow of its own`,
        }),
      disagreement: ({ resultCode }) => {
        const said = outcomeOf(resultCode);
        if (row.status === 'succeeded' && said !== 'succeeded' && !isUndecided(said))
          return `recorded succeeded, the gateway notifies ${resultCode} (not paid)`;
        if (row.status !== 'succeeded' && said === 'succeeded')
          return `recorded ${row.status} (nothing paid), the gateway notifies ${resultCode} (paid)`;
        return undefined;
      },
    };
  },
};
