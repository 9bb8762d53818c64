import { WithStartWorkflowOperation } from '@temporalio/client';
import type {
  Client,
  WithWorkflowArgs,
  WorkflowHandle,
  WorkflowResultType,
  WorkflowSignalWithStartOptions,
  WorkflowStartOptions,
} from '@temporalio/client';
import type { SearchAttributePair, UpdateDefinition, WorkflowIdConflictPolicy } from '@temporalio/common';
import { kindOf, payrunKind, type StartableWorkflowName, type StartableWorkflows } from '../contracts/shared';

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
