/** Per-file Temporal helpers: a time-skipping server of the file's own, or the run's shared dev server. */
import { createHash, randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createDataConverter } from '../../platform/data-converter';
import { createPayrunWorker, type PayrunWorker, type PayrunWorkerOptions } from '../../workers/worker';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../../contracts/shared';

/** IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD: every payrun search attribute is a keyword. */
const KEYWORD = 2;

/**
 * The tests' payload key. It is fixed, and public, so that histories captured by one run
 * (test/replay/histories) can be decoded and replayed by any later one; it protects fixture data only
 * and is never a production key (production keys come from PAYLOAD_CODEC_KEYS).
 */
export const testCodecKeyring = {
  currentKeyId: 'test',
  keys: new Map([['test', createHash('sha256').update('payrun test fixtures: not a secret').digest()]]),
};

/** Every test worker and client seals payloads as production does. */
export const testDataConverter = createDataConverter(testCodecKeyring);

let runtimeInstalled = false;
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/** Time skips whenever the test waits on a workflow result, so a 30-day timer takes milliseconds. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const env = await startTimeSkippingServer();
  // The dev server registers them at start; the time-skipping server takes them through its operator API.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(PAYRUN_SEARCH_ATTRIBUTES.map((key) => [key.name, KEYWORD])),
  });
  return env;
}

/**
 * The SDK gives the Java test server 5 s to listen, a limit it cannot be asked to change; on a busy
 * 2-core machine the JVM sometimes needs longer. The SDK kills a server that missed it, so starting
 * again is safe.
 */
async function startTimeSkippingServer(attempts = 3): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: inject('testServerExecutable') },
        client: { dataConverter: testDataConverter },
      });
    } catch (error) {
      const slowStart = error instanceof Error && error.message.includes('did not start within');
      if (!slowStart || attempt >= attempts) throw error;
    }
  }
}

export async function connectDevServer(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({
    address: inject('devServerAddress'),
    client: { dataConverter: testDataConverter },
  });
}

/** A worker on a task queue of its own, so files sharing the dev server never take each other's tasks. */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  activities: Partial<Activities>,
  taskQueue = `test-${randomUUID()}`,
  tuning?: PayrunWorkerOptions['tuning'],
  /** Another version of the workflow code (an upgrade rehearsal); the run's bundle by default. */
  workflowBundlePath = inject('workflowBundlePath'),
  operationRateLimits?: PayrunWorkerOptions['operationRateLimits'],
  /** Another connection stands for another worker process: the SDK allows one worker per queue and connection. */
  connection = env.nativeConnection,
): Promise<{ worker: PayrunWorker; taskQueue: string }> {
  const worker = await createPayrunWorker({
    connection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities,
    dataConverter: testDataConverter,
    tuning,
    workflowBundle: { codePath: workflowBundlePath },
    ...(operationRateLimits && { operationRateLimits }),
  });
  return { worker, taskQueue };
}
