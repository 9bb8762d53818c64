/**
 * payrun's API alone (no worker, no sandbox) on the run's database and dev server, for the suites that
 * walk the route table: access control, bad input.
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createApp, type ApiDependencies } from '../../api/app';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { listen, type RunningApi } from './api';
import { connectTestDatabase } from './database';
import { testApiSettings, testMerchant } from './settings';
import { testCodecKeyring } from './temporal';
import { DEFAULT_WEBHOOK_TIMING } from '../../contracts/events';

export interface ApiFixture {
  db: Db;
  api: RunningApi;
  deps: ApiDependencies;
}

/** Started before the file's tests, closed after them; read the fields inside tests. */
export function useApiOnDevServer(overrides: Partial<ApiDependencies> = {}): ApiFixture {
  const fixture = {} as ApiFixture;
  let connection: Connection | undefined;
  beforeAll(async () => {
    fixture.db = connectTestDatabase();
    connection = await Connection.connect({ address: inject('devServerAddress') });
    fixture.deps = {
      db: fixture.db,
      temporal: new Client({ connection }),
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings(),
      webhooks: {
        taskQueue: 'payrun-test',
        timing: DEFAULT_WEBHOOK_TIMING,
        keyring: testCodecKeyring,
        allowLoopbackHttp: true,
      },
      ...overrides,
    };
    fixture.api = await listen(createApp(fixture.deps));
  });
  afterAll(async () => {
    await fixture.api?.close();
    await connection?.close();
    await fixture.db?.destroy();
  });
  return fixture;
}
