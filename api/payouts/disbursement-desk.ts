/**
 * The API's side of the disbursement desk (DISBURSEMENT_DESK; docs/payout-runs.md): a payout queued for the desk
 * needs the desk running. Starting it costs a call to Temporal, so a process that saw it running skips
 * the call for a while; the desk never ends on its own (it continues as new), so "running a moment ago" is
 * a safe reading, and a desk an operator terminated is started again by the next create after the pause.
 */
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import {
  DEFAULT_DISBURSEMENT_DESK,
  disbursementDeskWorkflowId,
  type DeskPayoutTiming,
} from '../../contracts/payouts';
import type { CodecKeyring } from '../../platform/payload-codec';
import { startWorkflow } from '../workflow-starts';

/** How long a process trusts that the desk it saw is still running. */
const DESK_SEEN_FOR_MS = 10_000;

export interface DisbursementDesk {
  /** Seals each desk payout's receiver on its record. */
  keyring: CodecKeyring;
  /** Resolves once the desk is running (started now, or seen lately). */
  ensureRunning(): Promise<void>;
}

export function disbursementDesk(
  temporal: Client,
  taskQueue: string,
  timing: DeskPayoutTiming,
  keyring: CodecKeyring,
): DisbursementDesk {
  let seenUntil = 0;
  let starting: Promise<void> | undefined;
  const start = async () => {
    // USE_EXISTING: a running desk answers as started; nothing is added to its history.
    await startWorkflow(temporal, 'disbursementDesk', {
      taskQueue,
      workflowId: disbursementDeskWorkflowId(taskQueue),
      args: [{ timing, ...DEFAULT_DISBURSEMENT_DESK }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      staticSummary: 'Single disbursements answered at once, paid in chunks (docs/payout-runs.md)',
    });
    seenUntil = Date.now() + DESK_SEEN_FOR_MS;
  };
  return {
    keyring,
    async ensureRunning() {
      if (Date.now() < seenUntil) return;
      starting ??= start().finally(() => {
        starting = undefined;
      });
      await starting;
    },
  };
}
