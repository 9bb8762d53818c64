import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApiKey } from '../../db/shared/api-keys';
import type { Db } from '../../db/shared/knex';
import type { Role } from '../../api/auth/roles';
import { apiListeners, createApp, notificationRelay, type ApiDependencies } from '../../api/app';

export interface RunningApi {
  baseUrl: string;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<RunningApi> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * An API process as production runs one: its routes, what it listens for (`apiListeners`) and its notification
 * relay, the only signaller of the notifications its receivers store (`relay: false`: a process started with
 * API_RUNS_RELAY=false, whose notifications another process's relay signals). Closing it stops them after the server.
 */
export async function serveApi(
  deps: ApiDependencies,
  options: { relay?: boolean } = {},
): Promise<RunningApi> {
  const running = await listen(createApp(deps));
  const relay = options.relay === false ? undefined : notificationRelay(deps);
  const listeners = apiListeners(deps);
  relay?.start();
  listeners.start();
  return {
    baseUrl: running.baseUrl,
    async close() {
      await running.close();
      await Promise.all([relay?.stop(), listeners.stop()]);
    },
  };
}

let counter = 0;
export async function newKey(
  db: Db,
  roles: Role[],
  name = `test-${roles.join('+')}-${++counter}`,
): Promise<string> {
  return (await createApiKey(db, name, roles)).key;
}

/** Test code reads answers loosely; the API's schemas are asserted by the expectations themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const jsonOf = async (response: Response): Promise<any> => response.json();

export function authHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/** A request with `key` and a JSON body (if any); a 204 answer has no body. */
export async function callApi(
  api: RunningApi,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  // As a careful client does: every create carries a fresh Idempotency-Key unless the test sets one
  // (or sets it to '' to send none: a test of the refusal).
  const withKey =
    method.toUpperCase() === 'POST' &&
    !Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')
      ? { 'idempotency-key': randomUUID() }
      : {};
  const sent = Object.fromEntries(
    Object.entries({ ...authHeaders(key), ...withKey, ...headers }).filter(
      ([name, value]) => !(name.toLowerCase() === 'idempotency-key' && value === ''),
    ),
  );
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: sent,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: response.status === 204 ? undefined : await jsonOf(response),
  };
}
