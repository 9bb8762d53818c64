/** A standalone worker process (production, docker-compose). Scale by running more of them. */
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireServices } from '../platform/require-services';
import { createDb } from '../db/knex';
import { createPayrunWorker } from './worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const { databaseUrl, temporalAddress } = requireServices(config);
  const log = createLogger(config.LOG_LEVEL, 'payrun-worker');
  const db = createDb(databaseUrl);
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await createPayrunWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: createActivities({ db }),
  });
  log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, temporalAddress }, 'Worker started');
  // The SDK shuts the worker down gracefully on SIGINT/SIGTERM; run() resolves once tasks drain.
  await worker.run();
  await connection.close();
  await db.destroy();
  log.info('Worker stopped');
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
