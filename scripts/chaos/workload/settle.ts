/**
 * After the faults stop, everything the workload started gets time to reach a final state: the
 * harness waits (until the size's deadline) for disbursements, remittances and refunds, which their
 * drivers do not wait for themselves. What is still open then is reported, never waited for longer.
 */
import type { Workload } from './index';
import { waitUntil, type WorkloadContext } from './context';

const FINAL = ['succeeded', 'failed', 'needs_attention'];

export async function settle(ctx: WorkloadContext, workload: Workload): Promise<void> {
  const disbursementIds = workload.disbursements.disbursements.map((item) => item.disbursementId);
  const remittanceIds = workload.remittances.remittances.flatMap((item) =>
    item.remittanceId ? [item.remittanceId] : [],
  );
  const paymentIds = workload.payments.payments.map((item) => item.paymentId);
  await waitUntil(ctx.deadline, async () => {
    const open = [
      ...(await ctx
        .db('disbursements')
        .whereIn('disbursement_id', disbursementIds)
        .whereNotIn('status', FINAL)),
      ...(await ctx.db('remittances').whereIn('remittance_id', remittanceIds).whereNotIn('status', FINAL)),
      ...(await ctx.db('refunds').whereIn('payment_id', paymentIds).whereNotIn('status', FINAL)),
    ];
    return open.length === 0 ? true : undefined;
  });
}
