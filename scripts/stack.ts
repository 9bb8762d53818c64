/**
 * The pieces of the local stack, each started only when configuration does not point at a real one:
 * PostgreSQL (embedded unless DATABASE_URL) and the Temporal dev server (unless TEMPORAL_ADDRESS).
 * Each returns a `stop` so the caller can shut down in reverse order.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { startEmbeddedPostgres } from '../db/shared/embedded-postgres';
import { withDatabaseName } from '../db/shared/knex';
import { requireGateway, type GatewaySettings } from '../platform/require-services';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../contracts/shared';
import { ensureSearchAttributes } from './search-attributes';
import { resolveDevServer } from './temporal-binaries';

export interface Started<T> {
  value: T;
  stop(): Promise<void>;
}

export const DEV_DATABASE = 'payrun';

export async function createDatabaseIfMissing(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const existing = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (existing.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

/** Resolves the database URL: DATABASE_URL as given, or an embedded cluster with a `payrun` database. */
export async function startDatabase(config: Config, log: Logger): Promise<Started<string>> {
  if (config.DATABASE_URL) {
    log.info('Using the PostgreSQL at DATABASE_URL');
    return { value: config.DATABASE_URL, stop: async () => {} };
  }
  const dataDir = path.join(config.PAYRUN_DATA_DIR, 'postgres');
  log.info({ dataDir, port: config.EMBEDDED_PG_PORT }, 'Starting embedded PostgreSQL');
  const cluster = await startEmbeddedPostgres({
    dataDir,
    port: config.EMBEDDED_PG_PORT,
    persistent: true,
    onLog: (line) => log.debug({ component: 'postgres' }, line),
  });
  if (cluster.shared)
    log.info({ port: cluster.port }, 'Sharing the embedded PostgreSQL another payrun process started');
  await createDatabaseIfMissing(cluster.url, DEV_DATABASE);
  return { value: withDatabaseName(cluster.url, DEV_DATABASE), stop: cluster.stop };
}

export interface TemporalHandles {
  address: string;
  uiUrl?: string;
  client: Client;
  workerConnection: NativeConnection;
}

/** Connects to TEMPORAL_ADDRESS, or starts the dev server with its Web UI and state in a file. */
export async function startTemporal(
  config: Config,
  log: Logger,
  options: { dataConverter: DataConverter; uiCodecEndpoint?: string },
): Promise<Started<TemporalHandles>> {
  const { dataConverter } = options;
  const namespace = config.TEMPORAL_NAMESPACE;
  if (config.TEMPORAL_ADDRESS) {
    const address = config.TEMPORAL_ADDRESS;
    const connection = await Connection.connect({ address });
    const workerConnection = await NativeConnection.connect({ address });
    await ensureSearchAttributes(connection, namespace).then(
      (added) => added.length && log.info({ added }, 'Registered payrun search attributes'),
      (error: unknown) =>
        log.warn(
          { reason: (error as Error).message },
          'Could not register payrun search attributes; create them with `temporal operator search-attribute create` (README)',
        ),
    );
    return {
      value: { address, client: new Client({ connection, namespace, dataConverter }), workerConnection },
      stop: async () => {
        await workerConnection.close();
        await connection.close();
      },
    };
  }

  const executable = await resolveDevServer({ build: true, log: (line) => log.info(line) });
  const dbFilename = path.join(config.PAYRUN_DATA_DIR, 'temporal', 'dev-server.db');
  fs.mkdirSync(path.dirname(dbFilename), { recursive: true });
  log.info({ dbFilename }, 'Starting the Temporal dev server');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable,
      namespace,
      ip: '127.0.0.1',
      port: config.TEMPORAL_PORT,
      ui: true,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFilename,
      searchAttributes: PAYRUN_SEARCH_ATTRIBUTES,
      // The UI asks a codec to decode payloads: operators see data, the server stores ciphertext. An
      // endpoint given here is served to anyone who asks the UI, so only a key-protected one belongs here.
      extraArgs: options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : [],
    },
    client: { dataConverter },
  });
  const added = await ensureSearchAttributes(env.connection, namespace);
  if (added.length)
    log.info({ added }, 'Registered payrun search attributes in the existing dev server state');
  return {
    value: {
      address: `127.0.0.1:${config.TEMPORAL_PORT}`,
      uiUrl: `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`,
      client: env.client,
      workerConnection: env.nativeConnection,
    },
    stop: () => env.teardown(),
  };
}

/** The real gateway when GATEWAY_BASE_URL is set; otherwise the sandbox, with keys kept in the data folder. */
export async function startGateway(config: Config, log: Logger): Promise<Started<GatewaySettings>> {
  if (config.GATEWAY_BASE_URL) {
    log.info({ baseUrl: config.GATEWAY_BASE_URL }, 'Using the gateway at GATEWAY_BASE_URL');
    return { value: requireGateway(config), stop: async () => {} };
  }
  // Loaded only when needed: a deployment with a real gateway never loads the simulator.
  const { loadOrCreateSandboxIdentity, startSandbox } = await import('../sandbox');
  const identity = loadOrCreateSandboxIdentity(path.join(config.PAYRUN_DATA_DIR, 'sandbox'));
  const sandbox = await startSandbox({
    port: config.SANDBOX_PORT,
    merchant: identity.merchant,
    keyPair: identity.keyPair,
    logger: log.child({ component: 'sandbox' }),
  });
  return {
    value: {
      baseUrl: sandbox.url,
      partnerCode: identity.merchant.partnerCode,
      accessKey: identity.merchant.accessKey,
      secretKey: identity.merchant.secretKey,
      publicKey: identity.keyPair.publicKeyPem,
    },
    stop: () => sandbox.close(),
  };
}
