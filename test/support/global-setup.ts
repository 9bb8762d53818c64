/**
 * Once per `npm test`: a database of this run's own (dropped afterwards), the Temporal binaries, a
 * dev server for the suites that need a full server, and the workflow bundle built once for every
 * test worker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startEmbeddedPostgres } from '../../db/shared/embedded-postgres';
import { createDb, withDatabaseName } from '../../db/shared/knex';
import { migrateLatest } from '../../db/shared/migrator';
import { createDatabaseIfMissing } from '../../scripts/stack';
import { freePort } from '../../scripts/cluster/readiness';
import { resolveDevServer, resolveTestServer } from '../../scripts/temporal-binaries';
import { workflowBundleOptions } from '../../workers/worker';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../../contracts/shared';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    testServerExecutable: { type: 'existing-path'; path: string } | { type: 'cached-download' };
    devServerAddress: string;
    workflowBundlePath: string;
  }
}

/** Test ports come from the cluster's chooser: outside the ephemeral range, so no connect() takes one. */
export { freePort };

async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${database}" with (force)`);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const log = (line: string) => console.log(`[setup] ${line}`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-test-'));
  // PostgreSQL runs as its own system user and must be able to enter the folder.
  fs.chmodSync(scratch, 0o755);
  const cleanups: Array<() => Promise<void>> = [
    async () => fs.rmSync(scratch, { recursive: true, force: true }),
  ];

  // A database of this run's own: on DATABASE_URL's server when given, else a throwaway cluster.
  let serverUrl: string;
  if (process.env.DATABASE_URL) {
    serverUrl = withDatabaseName(process.env.DATABASE_URL, 'postgres');
  } else {
    const cluster = await startEmbeddedPostgres({
      dataDir: path.join(scratch, 'postgres'),
      port: await freePort(),
      persistent: false,
    });
    serverUrl = cluster.url;
    cleanups.push(cluster.stop);
  }
  const database = `payrun_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await createDatabaseIfMissing(serverUrl, database);
  cleanups.push(() => dropDatabase(serverUrl, database));
  const databaseUrl = withDatabaseName(serverUrl, database);
  const db = createDb(databaseUrl);
  await migrateLatest(db);
  await db.destroy();

  const [testServer, devServer] = await Promise.all([
    resolveTestServer({ build: true, log }),
    resolveDevServer({ build: true, log }),
  ]);

  const devServerPort = await freePort();
  const devEnv = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: devServer,
      ip: '127.0.0.1',
      port: devServerPort,
      searchAttributes: PAYRUN_SEARCH_ATTRIBUTES,
    },
  });
  cleanups.push(() => devEnv.teardown());
  const devServerAddress = `127.0.0.1:${devServerPort}`;

  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions, logger: new DefaultLogger('WARN') });
  const workflowBundlePath = path.join(scratch, 'workflow-bundle.js');
  fs.writeFileSync(workflowBundlePath, code);

  project.provide('databaseUrl', databaseUrl);
  project.provide('testServerExecutable', testServer);
  project.provide('devServerAddress', devServerAddress);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => console.error('[teardown]', error));
    }
  };
}
