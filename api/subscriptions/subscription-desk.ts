/**
 * The API's side of the subscription desk (SUBSCRIPTION_DESK; docs/subscriptions.md, "The subscription desk"): a
 * create queued for the desk needs the desk running, and its call waits for the chunk's announcement that the
 * gateway answered the start (api/desk-answers.ts). A change to a subscription the desk still holds (no workflow
 * yet) starts its workflow first, so the workflow decides it as it always did.
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdConflictPolicy, type Duration } from '@temporalio/common';
import {
  DEFAULT_SUBSCRIPTION_DESK,
  subscriptionDeskStartOptions,
  subscriptionDeskWorkflowId,
} from '../../contracts/subscriptions';
import type { Db } from '../../db/shared/knex';
import {
  handOverDeskSubscription,
  heldBySubscriptionDesk,
  SUBSCRIPTION_ANSWERED_CHANNEL,
} from '../../db/subscriptions/subscription-desk';
import type { SubscriptionRow } from '../../db/subscriptions/subscriptions';
import { conflict } from '../http/errors';
import { startWorkflow } from '../workflow-starts';
import { deskStarter } from '../desk-starter';
import { deskAnswersOf, type DeskAnswers } from '../desk-answers';

export interface SubscriptionDesk {
  deskWorkflowId: string;
  ensureRunning(): Promise<void>;
  answers: DeskAnswers;
}

export function subscriptionDesk(
  temporal: Client,
  db: Db,
  taskQueue: string,
  authorizationIpnWait: Duration,
): SubscriptionDesk {
  const deskWorkflowId = subscriptionDeskWorkflowId(taskQueue);
  return {
    deskWorkflowId,
    ensureRunning: deskStarter(() =>
      startWorkflow(temporal, 'subscriptionDesk', {
        taskQueue,
        workflowId: deskWorkflowId,
        args: [{ authorizationIpnWait, ...DEFAULT_SUBSCRIPTION_DESK }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        staticSummary: 'Subscriptions’ authorization starts made in chunks (docs/subscriptions.md)',
      }),
    ),
    answers: subscriptionAnswersOf(db),
  };
}

/** The subscription desk's announcements, heard by this process. */
export const subscriptionAnswersOf = (db: Db): DeskAnswers =>
  deskAnswersOf(
    db,
    SUBSCRIPTION_ANSWERED_CHANNEL,
    'subscriptions get their workflow at the create meanwhile',
  );

/**
 * The subscription's workflow, started first when the desk still holds it: the change (a pause, a cycle amount,
 * a schedule, a price change) is then the workflow's to decide, as for every subscription. A start the desk has
 * not answered yet is not taken from it: the workflow would make it a second time.
 */
export async function workflowOfSubscription(temporal: Client, db: Db, row: SubscriptionRow) {
  if (heldBySubscriptionDesk(row)) {
    if (row.start_result_code === null)
      throw conflict(
        'subscription_state',
        'The gateway has not answered this subscription’s start yet; try again in a few seconds.',
      );
    try {
      await startWorkflow(
        temporal,
        'subscription',
        subscriptionDeskStartOptions(row.desk_start, row.workflow_id, true),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    await handOverDeskSubscription(db, row.subscription_id);
  }
  return temporal.workflow.getHandle(row.workflow_id);
}
