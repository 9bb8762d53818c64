/**
 * `workflow-floor`: what a workflow per item costs on this stack whatever the workflow does. N workflows that
 * only set a timer and wait are started 32 at once from the benchmark's process, on a task queue of its own
 * polled by a worker there (bundled before the measured window), until each has completed its first workflow
 * task. Their writes per item are the floor under every design that starts or wakes one workflow per item; on
 * the cluster, `subscriptions` onboarding is about this plus payrun's own work (docs/performance.md). The
 * workflows keep waiting on the throwaway stack.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { BenchItems } from './costs';
import type { BenchStack } from './harness';
import { IN_FLIGHT, inParallel } from './billing-day';

const COUNT = Number(process.env.BENCH_WORKFLOWS ?? 1000);
/** Started, workflow task scheduled, started and completed, timer started. */
const FIRST_TASK_DONE = 5;

/**
 * The worker's runtime logs warnings only. The dev shape installed its own (errors only) before this; on the
 * cluster this is the process's first, unless an earlier run of the same command installed it.
 */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error;
  }
}

export const workflowFloor = {
  async prepare(stack: BenchStack): Promise<() => Promise<BenchItems>> {
    quietRuntime();
    const connection = await NativeConnection.connect({ address: stack.temporalAddress });
    const taskQueue = `bench-floor-${randomUUID().slice(0, 8)}`;
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./floor/waiting-workflow.ts', import.meta.url)),
      // Every one stays cached: the wait below counts them there.
      maxCachedWorkflows: Math.max(COUNT, 2),
    });
    const client = new Client({ connection });
    return async () => {
      const running = worker.run();
      const tag = randomUUID().slice(0, 8);
      console.log(
        `workflow-floor: ${COUNT} workflows that set a timer and wait, ${IN_FLIGHT} started at once`,
      );
      const started = performance.now();
      await inParallel(COUNT, async (i) => {
        await client.workflow.start('waitingWorkflow', { taskQueue, workflowId: `floor-${tag}-${i}` });
      });
      const startsMs = performance.now() - started;
      // Asking the server about each workflow would cost it more than the workflows do: the worker's own count
      // of cached workflows says when every first task ran, and the last one started confirms the server has
      // its completion.
      const allRan = () => {
        const status = worker.getStatus();
        return status.numCachedWorkflows >= COUNT && status.numInFlightWorkflowActivations === 0;
      };
      while (!allRan()) await new Promise((resolve) => setTimeout(resolve, 20));
      const last = client.workflow.getHandle(`floor-${tag}-${COUNT - 1}`);
      while ((await last.describe()).historyLength < FIRST_TASK_DONE)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const ms = performance.now() - started;
      console.log(`  ${COUNT} started and through their first workflow task: ${(ms / 1000).toFixed(1)} s`);
      console.log(
        `  workflows per second: ${((COUNT / ms) * 1000).toFixed(1)} (the starts alone took ${(startsMs / 1000).toFixed(1)} s)`,
      );
      worker.shutdown();
      await running;
      await connection.close();
      return { count: COUNT, noun: 'workflow' };
    };
  },
};
