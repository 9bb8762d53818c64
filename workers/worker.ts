import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Activities } from '../activities';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface PayrunWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** A prebuilt bundle (tests build one per run); otherwise the worker bundles `workflows/` itself. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export async function createPayrunWorker(options: PayrunWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
  });
}
