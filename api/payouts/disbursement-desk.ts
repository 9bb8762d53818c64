/**
 * The API's side of the disbursement desk (DISBURSEMENT_DESK; docs/payout-runs.md): a payout queued for the desk
 * needs the desk running (api/desk-starter.ts says how often that is checked).
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
import { deskStarter } from '../desk-starter';

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
  return {
    keyring,
    ensureRunning: deskStarter(() =>
      startWorkflow(temporal, 'disbursementDesk', {
        taskQueue,
        workflowId: disbursementDeskWorkflowId(taskQueue),
        args: [{ timing, ...DEFAULT_DISBURSEMENT_DESK }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        staticSummary: 'Single disbursements answered at once, paid in chunks (docs/payout-runs.md)',
      }),
    ),
  };
}
