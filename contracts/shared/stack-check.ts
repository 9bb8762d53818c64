import type { Duration } from '@temporalio/common';

/** The stack check: a workflow, its one activity and the row that shows the whole stack ran it end to end. */
export interface StackCheckRecord {
  checkId: string;
  workflowId: string;
  startedAt: string;
  finishedAt?: string;
}

export interface StackCheckActivities {
  recordStackCheck(record: StackCheckRecord): Promise<void>;
}

export interface StackCheckInput {
  checkId: string;
  /** How long the workflow sleeps between its two records: proves durable timers work. */
  wait: Duration;
}

export interface StackCheckResult {
  checkId: string;
  startedAt: string;
  finishedAt: string;
}

/** The workflow's type as a client starts it (by name: a client never imports workflow code). */
export type StackCheckWorkflow = (input: StackCheckInput) => Promise<StackCheckResult>;
export const STACK_CHECK_WORKFLOW = 'stackCheck';

export const stackCheckWorkflowId = (checkId: string): string => `stack-check/${checkId}`;
