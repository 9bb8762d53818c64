/** A standalone worker process (production, docker-compose). Scale by running more of them. */
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireServices } from '../platform/require-services';
import { createDb } from '../db/knex';
import { createDataConverter } from '../platform/data-converter';
import { resolveCodecKeyring } from '../platform/payload-codec';
import { requireGateway } from '../platform/require-services';
import { createInstrumentedGateway } from './gateway';
import { createPayrunWorker } from './worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const { databaseUrl, temporalAddress } = requireServices(config);
  const gatewaySettings = requireGateway(config);
  if (!config.PUBLIC_BASE_URL)
    throw new ConfigError('Missing PUBLIC_BASE_URL: the gateway needs it to reach payrun.');
  const log = createLogger(config.LOG_LEVEL, 'payrun-worker');
  const keyring = resolveCodecKeyring({
    keysText: config.PAYLOAD_CODEC_KEYS,
    currentId: config.PAYLOAD_CODEC_KEY_ID,
  });
  const db = createDb(databaseUrl);
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await createPayrunWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: createActivities({
      db,
      gateway: createInstrumentedGateway(gatewaySettings, log),
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }),
    dataConverter: createDataConverter(keyring),
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
