import type { Client, WorkflowHandle, WorkflowResultType, WorkflowStartOptions } from '@temporalio/client';
import type { StartableWorkflowName, StartableWorkflows } from '../workflows/workflow-definitions';

/**
 * The API's only way to start a workflow: the name is one the worker registers, and the arguments and
 * result are that workflow's (a string name alone would let either drift without a compile error).
 */
export function startWorkflow<Name extends StartableWorkflowName>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]>,
): Promise<WorkflowHandle<StartableWorkflows[Name]>> {
  return client.workflow.start<StartableWorkflows[Name]>(name, options);
}

/** `startWorkflow`, then its result: for the short workflows the API waits on. */
export function executeWorkflow<Name extends StartableWorkflowName>(
  client: Client,
  name: Name,
  options: WorkflowStartOptions<StartableWorkflows[Name]>,
): Promise<WorkflowResultType<StartableWorkflows[Name]>> {
  return client.workflow.execute<StartableWorkflows[Name]>(name, options);
}
