/** A standalone worker process (production: docker-compose, `npm run cluster`). Scale by running more. */
import http from 'node:http';
import { NativeConnection } from '@temporalio/worker';
import { metricsRegistry } from '../platform/metrics';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireGateway, requireServices } from '../platform/require-services';
import { createDb } from '../db/shared/knex';
import { resolveCodecKeyring } from '../platform/payload-codec';
import { buildWorker } from './build';
import { installSdkMetrics } from './sdk-metrics';

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
  const sdkMetrics = await installSdkMetrics();
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await buildWorker(config, {
    connection,
    db,
    gateway: gatewaySettings,
    keyring,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger: log,
  });
  // Prometheus scrapes workers directly: gateway calls by operation and result code live here, and the
  // SDK's figures (workflow cache, slots, latencies).
  const metrics = http
    .createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      void Promise.all([metricsRegistry.metrics(), sdkMetrics()]).then(([own, sdk]) =>
        res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(`${own}\n${sdk}`),
      );
    })
    .listen(config.WORKER_METRICS_PORT, '0.0.0.0');
  log.info(
    {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      temporalAddress,
      metricsPort: config.WORKER_METRICS_PORT,
    },
    'Worker started',
  );
  // The SDK shuts the worker down gracefully on SIGINT/SIGTERM; run() resolves once tasks drain.
  await worker.run();
  metrics.close();
  await connection.close();
  await db.destroy();
  log.info('Worker stopped');
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
