/**
 * How every worker is built: `workers/main.ts`, `npm run dev` and the bench harness call this, so a
 * dependency a capability needs (the merchant secret for aesTokens, the keyring for tokens at rest)
 * cannot be left out of one of them. The tests build activities with the same typed `createActivities`.
 */
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities } from '../activities';
import type { Db } from '../db/knex';
import type { Config } from '../platform/config';
import { createDataConverter } from '../platform/data-converter';
import type { Logger } from '../platform/logger';
import type { CodecKeyring } from '../platform/payload-codec';
import type { GatewaySettings } from '../platform/require-services';
import { createInstrumentedGateway } from './gateway';
import { createPayrunWorker } from './worker';

export interface WorkerServices {
  db: Db;
  gateway: GatewaySettings;
  keyring: CodecKeyring;
  /** How the gateway reaches payrun's notification receivers (PUBLIC_BASE_URL, or the API under dev). */
  publicBaseUrl: string;
  logger?: Logger;
}

export function buildActivities(config: Config, services: WorkerServices): Activities {
  return createActivities({
    db: services.db,
    gateway: createInstrumentedGateway(services.gateway, services.logger),
    publicBaseUrl: services.publicBaseUrl,
    merchantSecrets: { merchantSecretKey: services.gateway.secretKey, keyring: services.keyring },
    webhooks: { keyring: services.keyring, allowLoopbackHttp: config.WEBHOOK_ALLOW_LOOPBACK_HTTP },
  });
}

export async function buildWorker(
  config: Config,
  services: WorkerServices & {
    connection: NativeConnection;
    /** A prebuilt bundle (the bench builds one); otherwise the worker bundles `workflows/` itself. */
    workflowBundle?: WorkerOptions['workflowBundle'];
  },
): Promise<Worker> {
  return createPayrunWorker({
    connection: services.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: buildActivities(config, services),
    dataConverter: createDataConverter(services.keyring),
    ...(services.workflowBundle && { workflowBundle: services.workflowBundle }),
  });
}
