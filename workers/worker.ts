import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Activities } from '../activities';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface PayrunWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** All activities in production; tests may register only those their workflows call. */
  activities: Partial<Activities>;
  /** Required: no worker runs without payload encryption. */
  dataConverter: DataConverter;
  /** A prebuilt bundle (tests build one per run); otherwise the worker bundles `workflows/` itself. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Throughput knobs (measure before changing; see README). */
  tuning?: Pick<
    WorkerOptions,
    'maxCachedWorkflows' | 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions'
  >;
}

export async function createPayrunWorker(options: PayrunWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    dataConverter: options.dataConverter,
    ...options.tuning,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
  });
}
