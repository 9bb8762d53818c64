import type { Duration } from '@temporalio/common';
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { StackCheckActivities } from '../../contracts/shared';

const { recordStackCheck } = proxyActivities<StackCheckActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

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

export const stackCheckWorkflowId = (checkId: string): string => `stack-check/${checkId}`;

/** Proves the plumbing: an activity writes to PostgreSQL, a durable timer fires, a second write follows. */
export async function stackCheck(input: StackCheckInput): Promise<StackCheckResult> {
  // Date in workflow code is workflow time: deterministic, and skipped by the time-skipping server.
  const startedAt = new Date().toISOString();
  const { workflowId } = workflowInfo();
  await recordStackCheck({ checkId: input.checkId, workflowId, startedAt });
  await sleep(input.wait);
  const finishedAt = new Date().toISOString();
  await recordStackCheck({ checkId: input.checkId, workflowId, startedAt, finishedAt });
  return { checkId: input.checkId, startedAt, finishedAt };
}
