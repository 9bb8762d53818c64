/**
 * Rate limits through real HTTP: failed authentications from one address are cut off first (before the
 * key is even looked up), each API key has its own budget, each address has one for everything but the
 * health probes; every refusal is 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { createApp } from '../../api/app';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testApiSettings, testMerchant } from '../support/settings';

let db: Db;
let connection: Connection;
const apis: RunningApi[] = [];

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
});

afterAll(async () => {
  await Promise.all(apis.map((api) => api.close()));
  await connection.close();
  await db.destroy();
});

/** Each test gets its own app: buckets live in the app, so tests cannot spend each other's budget. */
async function apiWith(limits: {
  perAddressPerMinute: number;
  perKeyPerMinute: number;
  authFailuresPerMinute: number;
}) {
  const api = await listen(
    createApp({
      db,
      temporal: new Client({ connection }),
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings(),
      rateLimits: limits,
    }),
  );
  apis.push(api);
  return api;
}

const get = (api: RunningApi, path: string, key?: string) =>
  fetch(`${api.baseUrl}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

async function statuses(count: number, call: () => Promise<Response>) {
  const startedAt = Date.now();
  const answers = await Promise.all(Array.from({ length: count }, call));
  const tookMs = Date.now() - startedAt;
  const tally: Record<number, number> = {};
  for (const answer of answers) tally[answer.status] = (tally[answer.status] ?? 0) + 1;
  return { tally, answers, tookMs };
}

/**
 * A burst against a budget of `perMinute`: the full budget is served, plus what refilled while the
 * burst lasted (a loaded machine stretches it over seconds), and every other call is refused.
 */
function expectBudget(
  { tally, tookMs }: { tally: Record<number, number>; tookMs: number },
  count: number,
  perMinute: number,
) {
  const refilled = Math.ceil((tookMs * perMinute) / 60_000);
  expect(tally[200]).toBeGreaterThanOrEqual(perMinute);
  expect(tally[200]).toBeLessThanOrEqual(perMinute + refilled);
  expect(tally).toEqual({ 200: tally[200], 429: count - tally[200]! });
}

describe('rate limits', () => {
  it('cuts off an address guessing keys after the allowed failures, before looking keys up', async () => {
    const api = await apiWith({ perAddressPerMinute: 0, perKeyPerMinute: 0, authFailuresPerMinute: 5 });
    const viewer = await newKey(db, ['viewer']);
    // Waves of 10: attempts already being looked up when the budget runs out still get their 401.
    const answers: Response[] = [];
    for (let wave = 0; wave < 100; wave++) {
      answers.push(...(await statuses(10, () => get(api, '/v1/payout-runs', 'payrun_wrong_key'))).answers);
    }
    const unauthorized = answers.filter((answer) => answer.status === 401).length;
    expect(unauthorized).toBeGreaterThanOrEqual(5);
    expect(unauthorized).toBeLessThanOrEqual(5 + 10);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(1000 - unauthorized);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await jsonOf(refused)).error.code).toBe('too_many_auth_failures');
    // The address is not heard while it waits, even with a real key.
    expect((await get(api, '/v1/payout-runs', viewer)).status).toBe(429);
  });

  it('gives each API key its own budget', async () => {
    const api = await apiWith({ perAddressPerMinute: 0, perKeyPerMinute: 20, authFailuresPerMinute: 0 });
    const [busy, other] = [await newKey(db, ['viewer']), await newKey(db, ['viewer'])];
    const burst = await statuses(50, () => get(api, '/v1/payout-runs', busy));
    expectBudget(burst, 50, 20);
    const { answers } = burst;
    const refused = answers.find((answer) => answer.status === 429)!;
    expect((await jsonOf(refused)).error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await get(api, '/v1/payout-runs', other)).status).toBe(200);
  });

  it('limits each address across every route but the health probes', async () => {
    const api = await apiWith({ perAddressPerMinute: 30, perKeyPerMinute: 0, authFailuresPerMinute: 0 });
    expectBudget(await statuses(100, () => get(api, '/openapi.json')), 100, 30);
    expect((await get(api, '/healthz')).status).toBe(200);
  });
});
