/**
 * The API's side of the payment desk (PAYMENT_DESK; docs/payments.md, "The payment desk"): a create queued for
 * the desk needs the desk running, and its call waits for the chunk's announcement that the gateway answered.
 * The announcements arrive by LISTEN (api/desk-answers.ts). Nothing polls: a create that is not announced within
 * its bound answers from the record as it is (202 while `created`), as before the desk.
 */
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { DEFAULT_PAYMENT_DESK, paymentDeskWorkflowId, type PaymentTiming } from '../../contracts/payments';
import { PAYMENT_ANSWERED_CHANNEL } from '../../db/payments/payment-desk';
import type { Db } from '../../db/shared/knex';
import { deskAnswersOf, type DeskAnswers } from '../desk-answers';
import { startWorkflow } from '../workflow-starts';
import { deskStarter } from '../desk-starter';

export interface PaymentDesk {
  deskWorkflowId: string;
  /** Resolves once the desk is running (started now, or seen lately). */
  ensureRunning(): Promise<void>;
  answers: DeskAnswers;
}

export function paymentDesk(temporal: Client, db: Db, taskQueue: string, timing: PaymentTiming): PaymentDesk {
  const deskWorkflowId = paymentDeskWorkflowId(taskQueue);
  return {
    deskWorkflowId,
    ensureRunning: deskStarter(() =>
      startWorkflow(temporal, 'paymentDesk', {
        taskQueue,
        workflowId: deskWorkflowId,
        args: [{ timing, ...DEFAULT_PAYMENT_DESK }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        staticSummary: 'One-time payments created in chunks (docs/payments.md)',
      }),
    ),
    answers: paymentAnswersOf(db),
  };
}

/** The payment desk's announcements, heard by this process (api/desk-answers.ts). */
export const paymentAnswersOf = (db: Db): DeskAnswers =>
  deskAnswersOf(db, PAYMENT_ANSWERED_CHANNEL, 'payments get workflows of their own meanwhile');
