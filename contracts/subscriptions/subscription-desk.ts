/**
 * The subscription desk: the authorization starts of new subscriptions made in chunks by one long-lived
 * workflow, each subscription without a workflow of its own until its customer answers (or does not in time).
 * Its workflow then begins at the answer and keeps the whole life cycle (docs/subscriptions.md, "The
 * subscription desk"). Pure code: the API, activities, db/ and the workflows import it.
 */
import { WorkflowIdReusePolicy, type Duration } from '@temporalio/common';
import { payrunCustomer, payrunOrderId } from '../shared/search-attributes';
import type { SubscriptionInput } from './subscriptions';

/** One desk per task queue: the API starts it when a subscription is queued for it; every later one joins it. */
export const subscriptionDeskWorkflowId = (taskQueue: string) => `subscription-desk/${taskQueue}`;

/** The chunk that made a subscription's start: written on its record, named in the chunk's result. */
export const subscriptionDeskChunkId = (deskWorkflowId: string, chunk: number) =>
  `${deskWorkflowId}#${chunk}`;

export interface SubscriptionDeskInput {
  /** How long a subscription waits on the desk for its customer before its workflow takes over (checks). */
  authorizationIpnWait: Duration;
  parallelChunks: number;
  concurrency: number;
  chunkMs: number;
  chunksDone?: number;
}

export const DEFAULT_SUBSCRIPTION_DESK: Omit<SubscriptionDeskInput, 'authorizationIpnWait'> = {
  parallelChunks: 2,
  concurrency: 16,
  chunkMs: 30_000,
};

export interface SubscriptionDeskChunk {
  deskWorkflowId: string;
  chunk: number;
  authorizationIpnWait: Duration;
  concurrency: number;
  chunkMs: number;
}

/**
 * What one chunk did, by subscription id: starts answered with the customer's links (the subscription waits on
 * the desk for its customer), starts the gateway refused (recorded `not_authorized`, no workflow ever), and
 * subscriptions handed to their workflow (a start that kept failing, or a customer silent past the wait).
 */
export interface SubscriptionDeskChunkOutcome {
  chunk: number;
  answered: string[];
  refused: string[];
  handedOver: string[];
}

export interface SubscriptionDeskActivities {
  startDeskSubscriptions(input: SubscriptionDeskChunk): Promise<SubscriptionDeskChunkOutcome>;
}

/**
 * How its workflow is started, whoever starts it (the relay at the customer's answer, a chunk at a hand-over,
 * the API before a change): stored with the record when the API queues it, so every start is the same one.
 */
export interface SubscriptionDeskStart {
  taskQueue: string;
  /** The workflow's input, without `startAnswered` (set by whoever starts it). */
  input: SubscriptionInput;
  summary: string;
  /** The PayrunCustomer search attribute's value (a keyed hash, never the partnerClientId). */
  customerKey: string;
}

/**
 * The options of a desk subscription's workflow start; `startAnswered` once the desk recorded the answer. Never a
 * second run: a workflow that has finished under this id is not started again.
 */
export const subscriptionDeskStartOptions = (
  start: SubscriptionDeskStart,
  workflowId: string,
  startAnswered: boolean,
) => ({
  taskQueue: start.taskQueue,
  workflowId,
  workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  args: [{ ...start.input, ...(startAnswered && { startAnswered: true as const }) }] as [SubscriptionInput],
  staticSummary: `${start.summary} (from the desk)`,
  typedSearchAttributes: [
    { key: payrunOrderId, value: start.input.subscriptionId },
    { key: payrunCustomer, value: start.customerKey },
  ],
});
