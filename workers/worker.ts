import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Activities } from '../activities';
import {
  OPERATION_QUEUE_ACTIVITIES,
  QUEUED_OPERATIONS,
  operationQueueOf,
  type QueuedOperation,
} from '../contracts/shared';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

const projectFile = (relative: string): string => fileURLToPath(new URL(`../${relative}`, import.meta.url));

/**
 * Modules the workflow thread evaluates once, at its start, instead of once for each new workflow. The SDK
 * gives every workflow its own copy of the bundle's modules (their module state is the workflow's), which
 * cost 1.3 ms of the workflow thread per new workflow here, contracts two thirds of the modules. The
 * contracts and the gateway's limits and result codes hold no state (a test reads them for module-level
 * bindings); the SDK deep-freezes what they export, so a workflow that mutated one would fail loudly, not
 * leak into another workflow.
 */
export const PRELOADED_WORKFLOW_MODULES: readonly string[] = [
  ...readdirSync(projectFile('contracts'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => projectFile(`contracts/${entry.name}/index.ts`)),
  projectFile('gateway/limits.ts'),
  projectFile('gateway/result-codes.ts'),
];

/** What every bundle of payrun's workflows is built from: the worker's own and the tests' prebuilt ones. */
export const workflowBundleOptions = {
  workflowsPath,
  preloadModules: [...PRELOADED_WORKFLOW_MODULES],
};

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
    | 'maxCachedWorkflows'
    | 'maxConcurrentActivityTaskExecutions'
    | 'maxConcurrentWorkflowTaskExecutions'
    | 'workflowTaskPollerBehavior'
    | 'nonStickyToStickyPollRatio'
  >;
  /**
   * Calls per second of each operation with a queue of its own (GATEWAY_RATE_LIMITS). The Temporal
   * server keeps the limit for the whole queue, whichever workers poll it; unnamed: no limit.
   */
  operationRateLimits?: Partial<Record<QueuedOperation, number>>;
}

/**
 * The workflow worker on the main task queue and one activity worker per gateway operation queue
 * (contracts/shared/gateway-queues.ts), run and stopped together: a process polls every queue its workflows
 * may schedule on, so no task waits for a poller that was never started.
 */
export class PayrunWorker {
  constructor(
    readonly main: Worker,
    readonly operationWorkers: readonly Worker[],
  ) {}

  private get all(): Worker[] {
    return [this.main, ...this.operationWorkers];
  }

  async run(): Promise<void> {
    const runs = await Promise.allSettled(
      this.all.map((worker) =>
        worker.run().catch((error: unknown) => {
          // One part failing stops the others: a half-polling process would hide the failure.
          this.shutdown();
          throw error;
        }),
      ),
    );
    const failed = runs.find((run): run is PromiseRejectedResult => run.status === 'rejected');
    if (failed) throw failed.reason;
  }

  shutdown(): void {
    for (const worker of this.all) if (worker.getState() === 'RUNNING') worker.shutdown();
  }

  getState(): ReturnType<Worker['getState']> {
    return this.main.getState();
  }

  /** Runs until `work` settles, then stops and waits for every part to drain (as Worker.runUntil). */
  async runUntil<R>(work: Promise<R> | (() => Promise<R>)): Promise<R> {
    const running = this.run();
    const stopped = running.then(() => {
      throw new Error('The worker stopped before the work finished');
    });
    try {
      return await Promise.race([typeof work === 'function' ? work() : work, stopped]);
    } finally {
      this.shutdown();
      await running;
      stopped.catch(() => undefined);
    }
  }
}

export async function createPayrunWorker(options: PayrunWorkerOptions): Promise<PayrunWorker> {
  const main = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    dataConverter: options.dataConverter,
    ...options.tuning,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath, bundlerOptions: { preloadModules: workflowBundleOptions.preloadModules } }),
  });
  const operationWorkers: Worker[] = [];
  for (const operation of QUEUED_OPERATIONS) {
    const names: readonly string[] = OPERATION_QUEUE_ACTIVITIES[operation];
    const activities = Object.fromEntries(
      Object.entries(options.activities).filter(([name]) => names.includes(name)),
    );
    // A test worker registers only the activities its workflows call: no queue for the others.
    if (Object.keys(activities).length === 0) continue;
    const limit = options.operationRateLimits?.[operation];
    operationWorkers.push(
      await Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue: operationQueueOf(options.taskQueue, operation),
        activities,
        dataConverter: options.dataConverter,
        ...(options.tuning?.maxConcurrentActivityTaskExecutions && {
          maxConcurrentActivityTaskExecutions: options.tuning.maxConcurrentActivityTaskExecutions,
        }),
        ...(limit !== undefined && { maxTaskQueueActivitiesPerSecond: limit }),
      }),
    );
  }
  return new PayrunWorker(main, operationWorkers);
}
