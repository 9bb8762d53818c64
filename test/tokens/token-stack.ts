/**
 * Saved methods and token payments for one test file: the sandbox (with a movable clock and the unbind
 * URL set), payrun's API and a real worker on a time-skipping environment, logs captured for the leak check.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createApp } from '../../api/app';
import { defaultTokenSettings } from '../../api/tokens/tokens';
import type { Db } from '../../db/knex';
import { createLogger } from '../../platform/logger';
import { ipnPaths } from '../../platform/ipn-paths';
import type { CodecKeyring } from '../../platform/payload-codec';
import { generateSandboxKeyPair, startSandbox, type Sandbox } from '../../sandbox';
import { createInstrumentedGateway } from '../../workers/gateway';
import { durationMs } from '../../workflows/durations';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testMerchant, testPayoutSettings } from '../support/settings';
import { createTestWorker, createTimeSkippingEnv, testDataConverter } from '../support/temporal';

export interface TokenFixture {
  env: TestWorkflowEnvironment;
  db: Db;
  sandbox: Sandbox;
  api: RunningApi;
  payKey: string;
  viewerKey: string;
  keyring: CodecKeyring;
  logs: string[];
  /** Moves the sandbox clock and skips Temporal time together. */
  advance(duration: string): Promise<void>;
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function useTokenStack(): TokenFixture {
  const fixture = { logs: [] as string[] } as TokenFixture;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let offset = 0;
  beforeAll(async () => {
    fixture.env = await createTimeSkippingEnv();
    fixture.db = connectTestDatabase();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        fixture.logs.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('debug', 'tokens-test', sink);
    const keyPair = generateSandboxKeyPair();
    fixture.sandbox = await startSandbox({
      merchant: testMerchant,
      keyPair,
      now: () => Date.now() + offset,
      timing: { ipnDelayMs: 5, pendingSettleMs: 60_000, customerDelayMs: 10 },
    });
    const taskQueue = `tokens-${randomUUID()}`;
    fixture.api = await listen(
      createApp({
        db: fixture.db,
        // A plain client: the API's own waits (delete's result) must not skip time; only advance() does,
        // so workflow time and the sandbox clock move together.
        temporal: new Client({ connection: fixture.env.connection, dataConverter: testDataConverter }),
        logger,
        merchant: testMerchant,
        payouts: testPayoutSettings(taskQueue),
        tokens: defaultTokenSettings(taskQueue, '3 seconds'),
      }),
    );
    fixture.sandbox.admin.setUnbindUrl(`${fixture.api.baseUrl}${ipnPaths.unbind}`);
    fixture.keyring = { currentKeyId: 'tok-test', keys: new Map([['tok-test', randomBytes(32)]]) };
    const activities = createActivities({
      db: fixture.db,
      gateway: createInstrumentedGateway(
        { baseUrl: fixture.sandbox.url, ...testMerchant, publicKey: keyPair.publicKeyPem },
        logger,
      ),
      publicBaseUrl: fixture.api.baseUrl,
      savedMethodSecrets: { merchantSecretKey: testMerchant.secretKey, keyring: fixture.keyring },
    });
    worker = (await createTestWorker(fixture.env, activities, taskQueue)).worker;
    running = worker.run();
    fixture.payKey = await newKey(fixture.db, ['payments'], `payments-${taskQueue}`);
    fixture.viewerKey = await newKey(fixture.db, ['viewer'], `viewer-${taskQueue}`);
    fixture.advance = async (duration) => {
      offset += durationMs(duration);
      await fixture.env.sleep(duration);
    };
    fixture.call = async (method, path, body, key = fixture.payKey) => {
      const response = await fetch(`${fixture.api.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: response.status === 204 ? undefined : await jsonOf(response) };
    };
  }, 60_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await fixture.api?.close();
    await fixture.sandbox?.close();
    await fixture.db?.destroy();
    await fixture.env?.teardown();
  });
  return fixture;
}

/** Polls payrun's records until `read` returns one of `values`. */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
