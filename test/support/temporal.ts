/** Per-file Temporal helpers: a time-skipping server of the file's own, or the run's shared dev server. */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createPayrunWorker } from '../../workers/worker';

let runtimeInstalled = false;
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/** Time skips whenever the test waits on a workflow result, so a 30-day timer takes milliseconds. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: inject('testServerExecutable') },
  });
}

export async function connectDevServer(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({ address: inject('devServerAddress') });
}

/** A worker on a task queue of its own, so files sharing the dev server never take each other's tasks. */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  activities: Activities,
): Promise<{ worker: Worker; taskQueue: string }> {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await createPayrunWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  return { worker, taskQueue };
}
