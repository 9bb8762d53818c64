/** A standalone API process (production, docker-compose). */
import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireServices } from '../platform/require-services';
import { createDb } from '../db/knex';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const { databaseUrl, temporalAddress } = requireServices(config);
  const log = createLogger(config.LOG_LEVEL, 'payrun-api');
  const db = createDb(databaseUrl);
  const connection = await Connection.connect({ address: temporalAddress });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const server = createApp({ db, temporal, logger: log }).listen(config.API_PORT, config.API_HOST, () => {
    log.info({ host: config.API_HOST, port: config.API_PORT }, 'API listening');
  });
  const stop = () => {
    server.close(() => {
      void Promise.all([connection.close(), db.destroy()]).then(() => process.exit(0));
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
