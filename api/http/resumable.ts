/**
 * Creates that a retry can finish. A create inserts its record, then starts its workflow; a process
 * that dies between the two (or a Temporal server that is down for the start) leaves a record whose
 * workflow never runs. The retry of the same request (`CreateRequest.resumed`, same Idempotency-Key and
 * body) adopts that record and starts the workflow; Temporal's workflow id, derived from the record,
 * makes a second start of the same workflow impossible, so nothing is ever paid twice.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Principal } from '../auth/roles';
import { reservingOrderIds } from '../order-ids';
import { ApiError } from './errors';
import type { CreateRequest } from './idempotency';

/** A start whose workflow the interrupted attempt already started is done, not a failure. */
export async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * After a failed start: true only when Temporal says the workflow does not exist, so compensating the
 * record (marking it failed, releasing its ids) cannot contradict a workflow that did start (the server
 * can persist a start and die before answering). Unknown (Temporal unreachable) is not "absent".
 * A request with an Idempotency-Key is not compensated at all: its retry finishes it (`resumed`).
 */
export async function certainlyNotStarted(temporal: Client, workflowId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).describe();
    return false;
  } catch (error) {
    return error instanceof WorkflowNotFoundError;
  }
}

/** The answer to a create whose workflow did not start: retry with the same Idempotency-Key to finish it. */
export const workflowNotStarted = (what: string) =>
  new ApiError(
    'workflow_not_started',
    `${what} is recorded but its workflow could not be started (Temporal unavailable); ` +
      'send the same request with the same Idempotency-Key again to finish it.',
  );

/** Whether a record that already holds the requested id is this request's own, left by its interrupted attempt. */
const isOwnInterruptedRecord = (
  create: CreateRequest | undefined,
  createdByKey: string | undefined,
  keyId: string,
): boolean => create?.resumed === true && createdByKey === keyId;

/**
 * The one create path for a record whose id the caller chose: insert it (with its orderIds) once; when the
 * id is held already, go on only if the record is this request's own, left by its interrupted attempt, else
 * answer `exists`; then start its workflow, once. An orderId another object holds answers 409
 * order_id_taken and writes nothing.
 */
export async function createOrResume(steps: {
  /** Inserts the record and reserves its orderIds (`db/`); false when the id was held already. */
  insert: () => Promise<boolean>;
  /** The API key that created the record holding the id (`db/`). */
  createdByKeyOf: () => Promise<string | undefined>;
  request: { create?: CreateRequest; principal: Principal };
  /** The answer when the id belongs to another request. */
  exists: () => ApiError;
  /** `adopted`: the record is the interrupted attempt's, whose workflow may be running already. */
  start: (adopted: boolean) => Promise<unknown>;
}): Promise<void> {
  const inserted = await reservingOrderIds(steps.insert);
  if (
    !inserted &&
    !isOwnInterruptedRecord(steps.request.create, await steps.createdByKeyOf(), steps.request.principal.keyId)
  )
    throw steps.exists();
  await startOnce(() => steps.start(!inserted));
}

/** Whether a workflow of this id exists; an unreachable Temporal is an error, not an answer. */
export async function workflowExists(temporal: Client, workflowId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
