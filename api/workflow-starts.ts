import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type {
  Client,
  WithWorkflowArgs,
  WorkflowHandle,
  WorkflowResultType,
  WorkflowSignalWithStartOptions,
  WorkflowStartOptions,
} from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  type SearchAttributePair,
  type UpdateDefinition,
} from '@temporalio/common';
import { kindOf, payrunKind, type StartableWorkflowName, type StartableWorkflows } from '../contracts/shared';
import { startOnce } from './http/resumable';

/**
 * The API's only way to start a workflow: the name is one the worker registers, and the arguments and
 * result are that workflow's (a string name alone would let either drift without a compile error).
 */
export function startWorkflow<Name extends StartableWorkflowName>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]>,
): Promise<WorkflowHandle<StartableWorkflows[Name]>> {
  return client.workflow.start<StartableWorkflows[Name]>(name, named(name, options));
}

/**
 * `startWorkflow` with a signal that is the first thing its history holds: one call, so the workflow
 * never starts without it. On a running workflow of that id it only signals (an interrupted create's retry).
 */
export function signalWithStartWorkflow<Name extends StartableWorkflowName, SignalArgs extends unknown[]>(
  client: Client,
  name: Name,
  options: WithWorkflowArgs<StartableWorkflows[Name], WorkflowSignalWithStartOptions<SignalArgs>>,
): Promise<WorkflowHandle<StartableWorkflows[Name]>> {
  return client.workflow.signalWithStart<StartableWorkflows[Name], SignalArgs>(name, named(name, options));
}

/**
 * `startWorkflow` and an update in one call (update-with-start), answering the update's result: the
 * caller waits on the workflow's own event instead of reading a record again and again. On a running
 * workflow of that id (`USE_EXISTING`: an interrupted create's retry) it only sends the update; the same
 * `updateId` on the same run answers the first update's outcome, so a retry adds nothing to the history.
 */
export function executeUpdateWithStartWorkflow<Name extends StartableWorkflowName, Ret>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]> & {
    workflowIdConflictPolicy: WorkflowIdConflictPolicy;
  },
  update: { definition: UpdateDefinition<Ret, []>; updateId: string },
): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation<StartableWorkflows[Name]>(
    name,
    named(name, options),
  );
  return client.workflow.executeUpdateWithStart(update.definition, {
    updateId: update.updateId,
    startWorkflowOperation,
  });
}

/** One update id per workflow: a retried call joins the first one's outcome, adding no event. */
const ANSWERED_UPDATE_ID = 'answered';

/**
 * Starts a workflow with its "answered" update and waits, until `deadline`, for the workflow to say its
 * record holds the gateway's answer (a payment's or a subscription's links). Nothing is read meanwhile:
 * the workflow's own event ends the wait. The order is never sent twice: the start and the update are one
 * call on one workflow id (the options' reuse policy for a finished one, USE_EXISTING joins a running
 * one), and only the workflow's activity ever calls the gateway. True when the workflow answered; false
 * when the caller must read the record to know (late, a worker without the handler mid-deploy, a run that
 * ended first, or a retried call whose workflow has finished).
 */
export async function startAwaitingAnswer<Name extends StartableWorkflowName>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]>,
  answered: UpdateDefinition<unknown, []>,
  deadline: number,
): Promise<boolean> {
  try {
    await client.withDeadline(deadline, () =>
      executeUpdateWithStartWorkflow(
        client,
        name,
        { ...options, workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING },
        { definition: answered, updateId: ANSWERED_UPDATE_ID },
      ),
    );
    return true;
  } catch (error) {
    // The deadline may have cut the call before the start was stored: a plain start (a no-op when it
    // was) makes sure the workflow exists and the order goes on.
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      await startOnce(() => startWorkflow(client, name, options));
      return false;
    }
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowExecutionAlreadyStartedError)
      return false;
    throw error;
  }
}

/**
 * The same wait on a workflow already started (by a signal-with-start, which cannot carry an update).
 * False as `startAwaitingAnswer`'s, and on any failure of the wait itself (Temporal unreachable a moment
 * after the start): the workflow is running, so the caller reads the record instead, never fails the call.
 */
export async function awaitAnswer(
  client: Client,
  workflowId: string,
  answered: UpdateDefinition<unknown, []>,
  deadline: number,
): Promise<boolean> {
  try {
    await client.withDeadline(deadline, () =>
      client.workflow.getHandle(workflowId).executeUpdate(answered, { updateId: ANSWERED_UPDATE_ID }),
    );
    return true;
  } catch {
    return false;
  }
}

/** `startWorkflow`, then its result: for the short workflows the API waits on. */
export function executeWorkflow<Name extends StartableWorkflowName>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]>,
): Promise<WorkflowResultType<StartableWorkflows[Name]>> {
  return client.workflow.execute<StartableWorkflows[Name]>(name, named(name, options));
}

/**
 * Every start carries its PayrunKind, derived from the type, and an id with the same prefix: one name from
 * the Temporal UI to the code and the records (docs/naming.md). A mismatched id is a programming error.
 */
function named<Options extends Pick<WorkflowStartOptions, 'workflowId' | 'typedSearchAttributes'>>(
  name: StartableWorkflowName,
  options: Options,
): Options {
  const kind = kindOf(name);
  if (!options.workflowId.startsWith(`${kind}/`))
    throw new Error(`A ${name} workflow's id starts with "${kind}/"; got "${options.workflowId}".`);
  const given = options.typedSearchAttributes;
  const pairs: SearchAttributePair[] = Array.isArray(given) ? given : (given?.getAll() ?? []);
  return { ...options, typedSearchAttributes: [{ key: payrunKind, value: kind }, ...pairs] };
}
