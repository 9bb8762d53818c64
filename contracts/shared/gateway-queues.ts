/**
 * Gateway operations whose calls run on a task queue of their own, so that a rate limit set on that
 * queue (`maxTaskQueueActivitiesPerSecond`, enforced by the Temporal server for every worker polling it)
 * spreads them: a billing day's charges wait in Temporal, not at the gateway's throttle. Pure code: the
 * workflows route to these queues, the workers poll them, and the queue names are derived, never
 * configured, so that a workflow's commands never depend on a setting.
 */

/** Each routable gateway operation and the activities that make its call (one call of it per attempt). */
export const OPERATION_QUEUE_ACTIVITIES = {
  'subscription.pay': ['chargeSubscriptionCycle'],
  'disbursement.pay': ['payDisbursement', 'disburse'],
} as const;

export type QueuedOperation = keyof typeof OPERATION_QUEUE_ACTIVITIES;

export const QUEUED_OPERATIONS = Object.keys(OPERATION_QUEUE_ACTIVITIES) as QueuedOperation[];

/** The queue of an operation, beside the worker's main task queue (one per deployment of payrun). */
export const operationQueueOf = (mainTaskQueue: string, operation: QueuedOperation) =>
  `${mainTaskQueue}.gateway.${operation}`;
