/** A standalone API process (production, docker-compose). */
import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireServices } from '../platform/require-services';
import { createDb } from '../db/knex';
import { createDataConverter } from '../platform/data-converter';
import { AesGcmPayloadCodec, resolveCodecKeyring } from '../platform/payload-codec';
import { requireGateway } from '../platform/require-services';
import { payoutSettingsFrom } from './payouts/settings';
import { remittanceSettingsFrom } from './remittance/settings';
import { createApp } from './app';
import { rateLimitSettingsFrom } from './http/rate-limit-settings';

async function main(): Promise<void> {
  const config = loadConfig();
  const { databaseUrl, temporalAddress } = requireServices(config);
  const log = createLogger(config.LOG_LEVEL, 'payrun-api');
  const db = createDb(databaseUrl);
  const connection = await Connection.connect({ address: temporalAddress });
  const keyring = resolveCodecKeyring({
    keysText: config.PAYLOAD_CODEC_KEYS,
    currentId: config.PAYLOAD_CODEC_KEY_ID,
  });
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: createDataConverter(keyring),
  });
  const codec = config.TEMPORAL_UI_ORIGIN
    ? { codec: new AesGcmPayloadCodec(keyring), allowedOrigins: [config.TEMPORAL_UI_ORIGIN] }
    : undefined;
  const merchant = requireGateway(config);
  const server = createApp({
    db,
    temporal,
    logger: log,
    codec,
    merchant,
    payouts: payoutSettingsFrom(config),
    remittance: remittanceSettingsFrom(config),
    rateLimits: rateLimitSettingsFrom(config),
    console: { temporalUiUrl: config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE },
  }).listen(config.API_PORT, config.API_HOST, () => {
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
