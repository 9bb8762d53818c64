/** The same change as patched.ts without patched(): what the versioning rule forbids. */
import { upsertMemo } from '@temporalio/workflow';
import { payoutRun as payoutRunOnVersionN } from '../../../workflows/payouts/payout-run';

export * from '../../../workflows';

export async function payoutRun(...args: Parameters<typeof payoutRunOnVersionN>) {
  upsertMemo({ workflowCodeVersion: 'N+1' });
  return payoutRunOnVersionN(...args);
}
