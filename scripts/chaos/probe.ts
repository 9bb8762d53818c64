/**
 * "Recovered" means a client is served end to end again: the API answers /readyz (it reaches
 * PostgreSQL and Temporal) and a fresh workflow runs through the Temporal server, a worker and
 * PostgreSQL (the stack self-check: a write, a durable timer, a write).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { STACK_CHECK_WORKFLOW, stackCheckWorkflowId, type StackCheckWorkflow } from '../../contracts/shared';
import { sleep } from './workload/context';

export interface Probe {
  /** Resolves when the stack serves again (true), or false at the deadline. */
  untilHealthy(deadline: number): Promise<boolean>;
}

const ONE_PROBE_MS = 15_000;

export function createProbe(apiUrl: string, temporal: Client, taskQueue: string): Probe {
  const ready = async () => {
    const response = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return response.status === 200;
  };
  const workflowRuns = async () => {
    const checkId = `chaos-${randomUUID()}`;
    const run = temporal.workflow.execute<StackCheckWorkflow>(STACK_CHECK_WORKFLOW, {
      taskQueue,
      workflowId: stackCheckWorkflowId(checkId),
      args: [{ checkId, wait: '100 milliseconds' }],
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('probe workflow timed out')), ONE_PROBE_MS);
    });
    try {
      await Promise.race([run, timeout]);
      return true;
    } finally {
      clearTimeout(timer);
      run.catch(() => undefined);
    }
  };
  return {
    async untilHealthy(deadline) {
      while (Date.now() < deadline) {
        try {
          if ((await ready()) && (await workflowRuns())) return true;
        } catch {
          // Not yet.
        }
        await sleep(250);
      }
      return false;
    },
  };
}
