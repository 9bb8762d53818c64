/**
 * What a standalone API or relay process connects to before it builds anything (`api/main.ts`,
 * `api/relay-main.ts`): the database, Temporal with payrun's codec, the merchant's keys, the logger.
 */
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../platform/config';
import { createLogger } from '../platform/logger';
import { requireGateway, requireServices } from '../platform/require-services';
import { createDb } from '../db/shared/knex';
import { createDataConverter } from '../platform/data-converter';
import { resolveCodecKeyring } from '../platform/payload-codec';
import type { ApiServices } from './build';

export interface ProcessServices extends ApiServices {
  close(): Promise<void>;
}

export async function connectProcessServices(config: Config, name: string): Promise<ProcessServices> {
  const { databaseUrl, temporalAddress } = requireServices(config);
  const merchant = requireGateway(config);
  const logger = createLogger(config.LOG_LEVEL, name);
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
  return {
    db,
    temporal,
    logger,
    merchant,
    keyring,
    temporalUi: { origins: config.TEMPORAL_UI_ORIGIN ? [config.TEMPORAL_UI_ORIGIN] : [] },
    close: async () => {
      await Promise.all([connection.close(), db.destroy()]);
    },
  };
}
