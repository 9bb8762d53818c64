/**
 * Rate limits through real HTTP: failed authentications from one address are answered 429 past their
 * budget while a valid key from it is still served, each API key has its own budget, each address has one
 * for everything but the health probes and the gateway's notifications; validly signed notifications are
 * never refused by a limit made for people, forged ones are; behind a trusted proxy each client is its own
 * address, behind an untrusted one X-Forwarded-For is ignored. Every refusal is 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { rateLimitSettingsFrom } from '../../api/http/rate-limit-settings';
import type { RateLimitSettings } from '../../api/http/rate-limits';
import type { Db } from '../../db/shared/knex';
import { CONFIG_DEFAULTS, loadConfig } from '../../platform/config';
import { ipnPaths } from '../../platform/ipn-paths';
import { createLogger } from '../../platform/logger';
import type { TrustedProxies } from '../../platform/trusted-proxies';
import { jsonOf, newKey, serveApi, type RunningApi } from '../support/api';
import { eventually } from '../support/wait';
import { connectTestDatabase } from '../support/database';
import { listeningDisbursement, payoutResult } from '../support/notifications';
import { testApiSettings, testMerchant } from '../support/settings';
import { testDataConverter } from '../support/temporal';

let db: Db;
let connection: Connection;
let temporal: Client;
const apis: RunningApi[] = [];

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  temporal = new Client({ connection, dataConverter: testDataConverter });
});

afterAll(async () => {
  await Promise.all(apis.map((api) => api.close()));
  await connection.close();
  await db.destroy();
});

/** No limit at all: each test turns on the ones it exercises. */
const NO_LIMITS: RateLimitSettings = {
  perAddressPerMinute: 0,
  perKeyPerMinute: 0,
  authFailuresPerMinute: 0,
  notificationsPerMinute: 0,
  forgedNotificationsPerMinute: 0,
};

/** Each test gets its own app: buckets live in the app, so tests cannot spend each other's budget. */
async function apiWith(limits: Partial<RateLimitSettings>, trustedProxies?: TrustedProxies) {
  const api = await serveApi({
    db,
    temporal,
    logger: createLogger('silent'),
    merchant: testMerchant,
    ...testApiSettings(),
    rateLimits: { ...NO_LIMITS, ...limits },
    ...(trustedProxies !== undefined && { trustedProxies }),
  });
  apis.push(api);
  return api;
}

const get = (api: RunningApi, path: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${api.baseUrl}${path}`, {
    headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });

const notify = (api: RunningApi, body: unknown) =>
  fetch(`${api.baseUrl}${ipnPaths.disbursement}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

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
  it('answers an address guessing keys 429 after the allowed failures', async () => {
    const api = await apiWith({ authFailuresPerMinute: 5 });
    const viewer = await newKey(db, ['viewer']);
    // Waves of 10 at once; the budget refills while they run (one more failure every 12 s).
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
    // Someone else's wrong keys do not lock a valid key out; a wrong one is still refused.
    expect((await get(api, '/v1/payout-runs', viewer)).status).toBe(200);
    expect((await get(api, '/v1/payout-runs', 'payrun_wrong_key')).status).toBe(429);
  });

  it('serves a valid key from an address that has just sent 10 wrong keys (the default budget)', async () => {
    const api = await apiWith(rateLimitSettingsFrom(CONFIG_DEFAULTS));
    const viewer = await newKey(db, ['viewer']);
    // Well-formed keys that exist nowhere: each is looked up and found unknown.
    const wrong = (n: number) => `prk_${'0'.repeat(11)}${n % 10}_${'x'.repeat(43)}`;
    const failures: number[] = [];
    for (let n = 0; n < CONFIG_DEFAULTS.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE; n++)
      failures.push((await get(api, '/v1/payout-runs', wrong(n))).status);
    expect(failures).toEqual(Array(10).fill(401));

    const answer = await get(api, '/v1/payout-runs', viewer);
    expect(answer.status).toBe(200);
    expect(Array.isArray((await jsonOf(answer)).runs)).toBe(true);
    // Guessing stays refused: the 11th wrong key is answered 429, not looked at as a fresh attempt.
    const guess = await get(api, '/v1/payout-runs', wrong(10));
    expect(guess.status).toBe(429);
    expect((await jsonOf(guess)).error.code).toBe('too_many_auth_failures');
  });

  it('gives each API key its own budget', async () => {
    const api = await apiWith({ perKeyPerMinute: 20 });
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
    const api = await apiWith({ perAddressPerMinute: 30 });
    expectBudget(await statuses(100, () => get(api, '/openapi.json')), 100, 30);
    expect((await get(api, '/healthz')).status).toBe(200);
  });
});

describe('the gateway is never throttled as a client', () => {
  it('accepts 700 signed notifications from one address at once, none 429, each recorded once', async () => {
    // The defaults, with a general per-address limit ten times tighter: a loaded machine stretches the
    // burst over seconds, and the default's refill would then hide a notification counted against it.
    const api = await apiWith({ ...rateLimitSettingsFrom(CONFIG_DEFAULTS), perAddressPerMinute: 60 });
    const { disbursementId, signals } = await listeningDisbursement(db, temporal);
    // 700 distinct notifications (each its own requestId, so its own signature), as a busy day sends them.
    const notifications = Array.from({ length: 700 }, (_, n) =>
      payoutResult(disbursementId, { requestId: `${disbursementId}-pay-${n}` }),
    );
    const startedAt = Date.now();
    const answers = await Promise.all(notifications.map((notification) => notify(api, notification)));
    const tookMs = Date.now() - startedAt;
    const tally: Record<number, number> = {};
    for (const answer of answers) tally[answer.status] = (tally[answer.status] ?? 0) + 1;
    expect(tally, `answered in ${tookMs} ms`).toEqual({ 204: 700 });

    const rows = await db('ipn_notifications').where({ order_id: disbursementId }).select('dedupe_key');
    expect(rows).toHaveLength(700);
    expect(new Set(rows.map((row) => row.dedupe_key as string)).size).toBe(700);
    // The relay signals one workflow's notifications one at a time, in the order they were stored.
    await eventually(async () => expect(await signals()).toHaveLength(700), { timeout: 150_000 });
  }, 180_000);

  it('answers forged notifications 429 past their budget, and a signed one from the same address still passes', async () => {
    const api = await apiWith({
      ...rateLimitSettingsFrom(CONFIG_DEFAULTS),
      forgedNotificationsPerMinute: 20,
    });
    const { disbursementId, signals } = await listeningDisbursement(db, temporal);
    const forged = {
      ...payoutResult(disbursementId),
      amount: 50_000,
      resultCode: 0,
      signature: 'f'.repeat(64),
    };
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, () => notify(api, forged)));
    const refilled = Math.ceil(((Date.now() - startedAt) * 20) / 60_000);
    const tally: Record<number, number> = {};
    for (const answer of answers) tally[answer.status] = (tally[answer.status] ?? 0) + 1;
    expect(tally[400]).toBeGreaterThanOrEqual(20);
    expect(tally[400]).toBeLessThanOrEqual(20 + refilled);
    expect(tally).toEqual({ 400: tally[400], 429: 100 - tally[400]! });
    const limited = answers.find((answer) => answer.status === 429)!;
    expect((await jsonOf(limited)).error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    // The forgeries changed nothing and pushed out nothing: the real notification is heard at once.
    expect(await db('ipn_notifications').where({ order_id: disbursementId })).toHaveLength(0);
    expect((await notify(api, payoutResult(disbursementId))).status).toBe(204);
    expect(await db('ipn_notifications').where({ order_id: disbursementId })).toHaveLength(1);
    await eventually(async () => expect(await signals()).toHaveLength(1));
  });

  it('stops reading large bodies from an address that spent its forgery budget, and still hears a real one', async () => {
    const api = await apiWith({ forgedNotificationsPerMinute: 2 });
    const { disbursementId } = await listeningDisbursement(db, temporal);
    // Above the route's body limit (256 kB): read, such a body is answered 413; refused unread, 429.
    const huge = { ...payoutResult(disbursementId), extraData: 'x'.repeat(300_000) };
    expect((await notify(api, huge)).status).toBe(413);
    const forged = { ...payoutResult(disbursementId), signature: 'f'.repeat(64) };
    expect((await notify(api, forged)).status).toBe(400);
    expect((await notify(api, forged)).status).toBe(400);

    const unread = await notify(api, huge);
    expect(unread.status).toBe(429);
    expect((await jsonOf(unread)).error.code).toBe('rate_limited');
    // A small forgery is still read and verified (and refused), and a real notification is still heard.
    expect((await notify(api, forged)).status).toBe(429);
    expect((await notify(api, payoutResult(disbursementId))).status).toBe(204);
  });

  it('gives signed notifications their own limit, outside the general one', async () => {
    const api = await apiWith({ perAddressPerMinute: 1, notificationsPerMinute: 5 });
    const { disbursementId } = await listeningDisbursement(db, temporal);
    const answers: Response[] = [];
    for (let n = 0; n < 8; n++)
      answers.push(
        await notify(api, payoutResult(disbursementId, { requestId: `${disbursementId}-pay-${n}` })),
      );
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204, 204, 429, 429, 429]);
    expect((await jsonOf(answers[5]!)).error.code).toBe('rate_limited');
    // A refused notification is not recorded: the gateway's redelivery, or payrun's own query, brings it.
    expect(await db('ipn_notifications').where({ order_id: disbursementId })).toHaveLength(5);
  });

  it('exempts only the gateway’s POSTs: other methods at a notification path spend the address’s budget', async () => {
    const api = await apiWith({ perAddressPerMinute: 3 });
    const { tally } = await statuses(10, () => get(api, ipnPaths.disbursement));
    expect(tally[405]).toBeGreaterThanOrEqual(3);
    expect(tally).toEqual({ 405: tally[405], 429: 10 - tally[405]! });
  });

  it('limits each client behind a trusted proxy (TRUSTED_PROXIES) by its X-Forwarded-For', async () => {
    const trusted = loadConfig({ TRUSTED_PROXIES: 'loopback' }).TRUSTED_PROXIES;
    expect(trusted).toEqual(['loopback']);
    const api = await apiWith({ perAddressPerMinute: 5 }, trusted);
    const from = (client: string) => () =>
      get(api, '/openapi.json', undefined, { 'x-forwarded-for': client });
    expectBudget(await statuses(20, from('203.0.113.7')), 20, 5);
    // Another client behind the same proxy has its own budget.
    expect((await from('203.0.113.8')()).status).toBe(200);
  });

  it('ignores X-Forwarded-For when no proxy is trusted (the default): a client cannot choose its address', async () => {
    expect(CONFIG_DEFAULTS.TRUSTED_PROXIES).toBeUndefined();
    const api = await apiWith({ perAddressPerMinute: 5 });
    const from = (client: string) => () =>
      get(api, '/openapi.json', undefined, { 'x-forwarded-for': client });
    expectBudget(await statuses(20, from('203.0.113.7')), 20, 5);
    // A new header is not a new address: the socket's address has spent its budget.
    expect((await from('203.0.113.8')()).status).toBe(429);
  });
});
