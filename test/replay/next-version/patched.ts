/**
 * Version N+1 of payrun's workflows for the upgrade rehearsal (test/replay/upgrade-rehearsal.test.ts):
 * the same code, except that a payout run now records which code version runs it, in its memo. That is
 * a new command at the start of the history, so it ships behind patched(): runs started on version N
 * replay without it. (It does not wait: handlers must be registered before anything is awaited.)
 */
import { patched, upsertMemo } from '@temporalio/workflow';
import { payoutRun as payoutRunOnVersionN } from '../../../workflows/payouts/payout-run';

export * from '../../../workflows';

export const VERSION_MEMO_PATCH = 'rehearsal-version-memo';

export async function payoutRun(...args: Parameters<typeof payoutRunOnVersionN>) {
  if (patched(VERSION_MEMO_PATCH)) upsertMemo({ workflowCodeVersion: 'N+1' });
  return payoutRunOnVersionN(...args);
}
