/**
 * Saved methods and saved-method payments for one test file: the sandbox (with a movable clock and the unbind
 * URL set), payrun's API and a real worker on a time-skipping environment, logs captured for the leak check.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { defaultSavedMethodSettings } from '../../api/saved-methods/saved-methods';
import { createLogger } from '../../platform/logger';
import type { CodecKeyring } from '../../platform/payload-codec';
import { callApi } from '../support/api';
import { testMerchant } from '../support/settings';
import { useStack, type StackFixture } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';

export type SavedMethodFixture = StackFixture<'payKey' | 'viewerKey'> & {
  keyring: CodecKeyring;
  logs: string[];
  call(method: string, path: string, body?: unknown, key?: string): ReturnType<typeof callApi>;
};

export function useSavedMethodStack(): SavedMethodFixture {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const keyring: CodecKeyring = { currentKeyId: 'tok-test', keys: new Map([['tok-test', randomBytes(32)]]) };
  const taskQueue = `tokens-${randomUUID()}`;
  const fixture = useStack(createTimeSkippingEnv, {
    taskQueue,
    // advance() moves the sandbox clock and skips Temporal time together.
    clock: 'movable',
    logger: createLogger('debug', 'tokens-test', sink),
    sandbox: { timing: { pendingSettleMs: 60_000, customerDelayMs: 10 } },
    // A plain client: the API's own waits (delete's result) must not skip time; only advance() does,
    // so workflow time and the sandbox clock move together.
    plainApiClient: true,
    unbindToApi: true,
    app: { savedMethods: defaultSavedMethodSettings(taskQueue, '3 seconds') },
    activities: { merchantSecrets: { merchantSecretKey: testMerchant.secretKey, keyring } },
    keys: {
      payKey: { name: 'payments', roles: ['payments'] },
      viewerKey: { name: 'viewer', roles: ['viewer'] },
    },
    hookTimeoutMs: 60_000,
  });
  return Object.assign(fixture, {
    keyring,
    logs,
    call: (method: string, path: string, body?: unknown, key = fixture.payKey) =>
      callApi(fixture.api, key, method, path, body),
  });
}

/** Polls payrun's records until `read` returns one of `values`. */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
): Promise<T> {
  return eventually(async () => {
    const value = await read();
    if (accept(value)) return value;
    throw new Error(`${what}: still ${JSON.stringify(value)}`);
  });
}
