/**
 * `npm run dev`: the whole stack in one terminal. PostgreSQL (embedded unless DATABASE_URL),
 * migrations, the Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS), a worker and the API.
 * Ctrl-C stops everything it started, newest first: once it runs, and while it still starts.
 */
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ConfigError, loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { createDb } from '../db/shared/knex';
import { migrateLatest } from '../db/shared/migrator';
import { createDataConverter } from '../platform/data-converter';
import { resolveCodecKeyring } from '../platform/payload-codec';
import { buildApi } from '../api/build';
import { buildWorker } from '../workers/build';
import { resolveDevCodecToken } from '../platform/dev-codec-token';
import { resolveDevCustomerKeySecret } from '../platform/customer-key';
import { resolveDevDecisionKey } from '../platform/decision-key';
import { launchIdentity } from '../platform/identity/launch';
import { STACK_CHECK_WORKFLOW, stackCheckWorkflowId, type StackCheckWorkflow } from '../contracts/shared';
import { startDatabase, startGateway, startTemporal } from './stack';
import { StartedParts, StartInterrupted } from './started-parts';
import { startMailCatcher } from '../platform/mail-catcher';

async function main(): Promise<void> {
  const loaded = loadConfig();
  // The customer key's secret, generated once into the data folder when not configured (dev only).
  const config = {
    ...loaded,
    CUSTOMER_KEY_SECRET: resolveDevCustomerKeySecret({
      configured: loaded.CUSTOMER_KEY_SECRET,
      dataDir: loaded.PAYRUN_DATA_DIR,
    }),
    // One key for the API and the worker this process runs: decisions signed by one, verified by the other.
    DECISION_SIGNING_KEY: resolveDevDecisionKey({
      configured: loaded.DECISION_SIGNING_KEY,
      dataDir: loaded.PAYRUN_DATA_DIR,
    }),
  };
  const log = createLogger(config.LOG_LEVEL, 'payrun-dev');
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const parts = new StartedParts();
  const shutdown = async (reason: string, exitCode = 0) => {
    if (parts.stopping) return;
    log.info({ reason }, 'Stopping the dev stack');
    await parts.stopAll((name, error) => log.error({ err: error }, `Stopping ${name} failed`));
    log.info('Stopped');
    process.exit(exitCode);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void shutdown(signal));
  }

  try {
    const databaseUrl = await parts.start('PostgreSQL', () => startDatabase(config, log));
    const db = await parts.start('database pool', async () => {
      const pool = createDb(databaseUrl);
      return { value: pool, stop: () => pool.destroy() };
    });
    const applied = await migrateLatest(db);
    log.info({ applied }, applied.length ? 'Applied migrations' : 'Database schema is up to date');

    const keyring = resolveCodecKeyring({
      keysText: config.PAYLOAD_CODEC_KEYS,
      currentId: config.PAYLOAD_CODEC_KEY_ID,
      devDataDir: config.PAYRUN_DATA_DIR,
    });
    const dataConverter = createDataConverter(keyring);
    const apiUrl = `http://${config.API_HOST === '0.0.0.0' ? '127.0.0.1' : config.API_HOST}:${config.API_PORT}`;
    // Not given to the dev server: its UI publishes its codec endpoint to anyone (/api/v1/settings).
    const codecToken = resolveDevCodecToken({
      configured: config.TEMPORAL_UI_CODEC_TOKEN,
      dataDir: config.PAYRUN_DATA_DIR,
    });
    const temporal = await parts.start('Temporal', () => startTemporal(config, log, { dataConverter }));
    const gateway = await parts.start('gateway sandbox', () => startGateway(config, log));
    const publicBaseUrl = config.PUBLIC_BASE_URL ?? apiUrl;

    // Every notice goes to a local catcher the console shows, unless SMTP_URL names a real server.
    const catcher = config.SMTP_URL
      ? undefined
      : await parts.start('mail catcher', async () => {
          const started = await startMailCatcher({ port: config.MAIL_CATCHER_PORT });
          return { value: started, stop: started.stop };
        });
    if (catcher) config.SMTP_URL = catcher.url;

    const worker = await buildWorker(config, {
      connection: temporal.workerConnection,
      db,
      gateway,
      keyring,
      publicBaseUrl,
      logger: log,
    });
    // Wrapped: a promise as the part's value would be awaited, and it settles only when the worker ends.
    const { workerRun } = await parts.start('worker', async () => {
      const running = worker.run();
      const stop = async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      };
      return { value: { workerRun: running }, stop };
    });
    workerRun.catch((error: unknown) => {
      log.error({ err: error }, 'The worker stopped unexpectedly');
      void shutdown('worker failure', 1);
    });

    // People sign in through payrun's own provider unless a company provider is configured.
    const identity = config.OIDC_ISSUER
      ? undefined
      : await parts.start('identity provider', async () => {
          const launched = await launchIdentity(config, { host: '127.0.0.1', apiBaseUrl: publicBaseUrl });
          return { value: launched, stop: launched.close };
        });
    const apiConfig = identity
      ? { ...config, OIDC_ISSUER: identity.issuer, OIDC_CLIENT_SECRET: identity.clientSecret }
      : config;

    const { app, relay, listeners } = buildApi(apiConfig, {
      db,
      temporal: temporal.client,
      logger: log.child({ component: 'api' }),
      merchant: gateway,
      keyring,
      ...(catcher && { devMailbox: catcher }),
      temporalUi: {
        origins: [
          `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`,
          `http://localhost:${config.TEMPORAL_UI_PORT}`,
        ],
        // The dev server's own UI unless told otherwise; an external Temporal has none of ours to guess.
        url: config.TEMPORAL_UI_URL ?? temporal.uiUrl,
        uiToken: codecToken,
      },
    });
    await parts.start('API', async () => {
      const server: Server = await new Promise((resolve, reject) => {
        const listening = app.listen(config.API_PORT, config.API_HOST, () => resolve(listening));
        listening.once('error', reject);
      });
      return { value: server, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    });
    await parts.start("the API's listeners", async () => {
      listeners.start();
      return { value: listeners, stop: listeners.stop };
    });
    await parts.start('notification relay', async () => {
      relay.start();
      return { value: relay, stop: relay.stop };
    });

    const checkId = randomUUID();
    const check = await temporal.client.workflow.execute<StackCheckWorkflow>(STACK_CHECK_WORKFLOW, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: stackCheckWorkflowId(checkId),
      args: [{ checkId, wait: '1 second' }],
      workflowExecutionTimeout: '1 minute',
    });
    log.info(
      { checkId: check.checkId },
      'Stack self-check passed: worker, Temporal and PostgreSQL are talking',
    );

    const lines = [
      '',
      'payrun dev stack is running',
      `  API          ${apiUrl}   (health: ${apiUrl}/healthz)`,
      `  Console      ${apiUrl}/console`,
      `  Temporal UI  ${temporal.uiUrl ?? '(external Temporal at ' + temporal.address + ')'}`,
      `  UI codec     ${apiUrl}/codec/${codecToken}   (Temporal UI → Codec Server, in your browser only)`,
      `  Temporal     ${temporal.address}  namespace ${config.TEMPORAL_NAMESPACE}`,
      identity
        ? `  Sign-in      ${identity.issuer}   (demo people in docs/identity.md, password: ${identity.password})`
        : `  Sign-in      ${config.OIDC_ISSUER}`,
      `  PostgreSQL   ${config.DATABASE_URL ? 'DATABASE_URL' : `embedded, port ${config.EMBEDDED_PG_PORT}`}`,
      `  Mail         ${catcher ? `${catcher.url}  (every notice; ${apiUrl}/console#/mail)` : 'SMTP_URL'}`,
      `  Gateway      ${gateway.baseUrl}${config.GATEWAY_BASE_URL ? '' : '  (sandbox; admin API under /__sandbox)'}`,
      'Press Ctrl-C to stop everything.',
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } catch (error) {
    // Interrupted while starting: the stop under way ends the process once everything has stopped.
    if (error instanceof StartInterrupted || parts.stopping) return;
    log.error({ err: error }, 'The dev stack failed to start');
    await shutdown('start-up failure', 1);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
