/** A standalone API process (production: docker-compose, `npm run cluster`). */
import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireGateway, requireServices } from '../platform/require-services';
import { createDb } from '../db/shared/knex';
import { createDataConverter } from '../platform/data-converter';
import { resolveCodecKeyring } from '../platform/payload-codec';
import { buildApi } from './build';

async function main(): Promise<void> {
  const config = loadConfig();
  const { databaseUrl, temporalAddress } = requireServices(config);
  const merchant = requireGateway(config);
  const log = createLogger(config.LOG_LEVEL, 'payrun-api');
  const keyring = resolveCodecKeyring({
    keysText: config.PAYLOAD_CODEC_KEYS,
    currentId: config.PAYLOAD_CODEC_KEY_ID,
  });
  const db = createDb(databaseUrl);
  const connection = await Connection.connect({ address: temporalAddress });
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: createDataConverter(keyring),
  });
  const { app, relay } = buildApi(config, {
    db,
    temporal,
    logger: log,
    merchant,
    keyring,
    temporalUi: { origins: config.TEMPORAL_UI_ORIGIN ? [config.TEMPORAL_UI_ORIGIN] : [] },
  });
  const server = app.listen(config.API_PORT, config.API_HOST, () => {
    log.info({ host: config.API_HOST, port: config.API_PORT }, 'API listening');
    relay.start();
  });
  server.once('error', (error) => {
    log.error({ err: error }, 'The API could not listen');
    process.exit(1);
  });
  const stop = () => {
    server.close(() => {
      void relay
        .stop()
        .then(() => Promise.all([connection.close(), db.destroy()]))
        .then(() => process.exit(0));
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
