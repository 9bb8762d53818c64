import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { StackCheckActivities, StackCheckInput, StackCheckResult } from '../../contracts/shared';

const { recordStackCheck } = proxyActivities<StackCheckActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

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
