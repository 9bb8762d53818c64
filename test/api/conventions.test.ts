import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorHandler } from '../../api/http/errors';
import { observeRequests } from '../../api/http/observability';
import { defineRoute, mountRoutes } from '../../api/http/routes';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { authHeaders, jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { eventually } from '../support/wait';

/**
 * The request conventions through a real HTTP server, on routes defined for the test with the same
 * `defineRoute`/`mountRoutes` every real endpoint uses.
 */
let db: Db;
let api: RunningApi;
let key: string;
const table = `widgets_${Date.now()}`;
/** What the gadget route saw of each attempt, and how the next attempts end. */
const attempts: unknown[] = [];
const endings: Array<'answer' | 'fail' | 'die'> = [];

beforeAll(async () => {
  db = connectTestDatabase();
  await db.schema.createTable(table, (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.integer('amount').notNullable();
  });
  key = await newKey(db, ['payouts-maker']);
  const routes = [
    defineRoute({
      method: 'post',
      path: '/v1/widgets',
      summary: 'Create a widget',
      tag: 'test',
      access: { roles: ['payouts-maker'] },
      idempotent: true,
      body: z.object({ name: z.string().min(1), amount: z.number().int().min(1000).max(50_000_000) }),
      handler: async ({ body }) => {
        // Slow enough that concurrent requests overlap.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const [row] = await db(table).insert(body).returning('*');
        return { body: row };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/gadgets',
      summary: 'Create a gadget; the test decides how each attempt ends',
      tag: 'test',
      access: { roles: ['payouts-maker'] },
      idempotent: true,
      body: z.object({ name: z.string() }),
      handler: async ({ create }) => {
        attempts.push(create);
        const ending = endings.shift() ?? 'answer';
        if (ending === 'die') return new Promise<never>(() => {});
        if (ending === 'fail') throw new Error('Temporal is unreachable');
        return { body: { attempts: attempts.length } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boom',
      summary: 'Fails',
      tag: 'test',
      access: { roles: ['payouts-maker'] },
      handler: () => {
        throw new Error('secret detail: sk_live_123 at /internal/path');
      },
    }),
  ];
  const app = express();
  app.use(observeRequests(createLogger('silent')));
  const router = express.Router();
  mountRoutes(router, routes, { db, jsonLimit: '1kb' });
  app.use(router);
  app.use(errorHandler());
  api = await listen(app);
});

afterAll(async () => {
  await api.close();
  await db.schema.dropTable(table);
  await db.destroy();
});

const post = (
  body: string,
  headers: Record<string, string> = {},
  path = '/v1/widgets',
  signal?: AbortSignal,
) =>
  fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...authHeaders(key), ...headers },
    body,
    ...(signal && { signal }),
  });

describe('errors', () => {
  it('names the field and the rule, and creates nothing', async () => {
    const before = await db(table).count({ n: '*' }).first();
    const response = await post(JSON.stringify({ name: '', amount: 999 }));
    expect(response.status).toBe(400);
    const body = await jsonOf(response);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.error.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'body.name', rule: 'too_small' }),
        expect.objectContaining({ field: 'body.amount', rule: 'too_small' }),
      ]),
    );
    expect(await db(table).count({ n: '*' }).first()).toEqual(before);
  });

  it('refuses unknown fields', async () => {
    const response = await post(JSON.stringify({ name: 'a', amount: 1000, admin: true }));
    expect(response.status).toBe(400);
    expect((await jsonOf(response)).error.problems).toEqual([
      { field: 'body.admin', rule: 'unknown_field', message: 'Unknown field "admin".' },
    ]);
  });

  it('answers malformed JSON and oversized bodies in the same shape', async () => {
    const malformed = await post('{"name":');
    expect(malformed.status).toBe(400);
    expect((await jsonOf(malformed)).error.code).toBe('malformed_body');
    const large = await post(JSON.stringify({ name: 'x'.repeat(2000), amount: 1000 }));
    expect(large.status).toBe(413);
    expect((await jsonOf(large)).error.code).toBe('body_too_large');
  });

  it('hides internals of unexpected failures', async () => {
    const response = await fetch(`${api.baseUrl}/v1/boom`, { headers: authHeaders(key) });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe('internal_error');
    expect(text).not.toMatch(/sk_live|internal\/path|at .*\.ts/);
  });
});

describe('Idempotency-Key', () => {
  it('returns the first answer for the same key and body', async () => {
    const body = JSON.stringify({ name: 'first', amount: 1000 });
    const first = await post(body, { 'idempotency-key': 'same-1' });
    const second = await post(body, { 'idempotency-key': 'same-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await jsonOf(second)).toEqual(await jsonOf(first));
    expect(await db(table).where({ name: 'first' }).count({ n: '*' }).first()).toEqual({ n: '1' });
  });

  it('refuses the same key with a different body', async () => {
    await post(JSON.stringify({ name: 'k2', amount: 1000 }), { 'idempotency-key': 'same-2' });
    const reused = await post(JSON.stringify({ name: 'k2', amount: 2000 }), { 'idempotency-key': 'same-2' });
    expect(reused.status).toBe(409);
    expect((await jsonOf(reused)).error.code).toBe('idempotency_key_reused');
  });

  it('creates one object for 20 concurrent requests with one key', async () => {
    const body = JSON.stringify({ name: 'concurrent', amount: 5000 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(body, { 'idempotency-key': 'concurrent-key' })),
    );
    const bodies = await Promise.all(responses.map((response) => jsonOf(response)));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies.map((created) => created.id)).size).toBe(1);
    expect(await db(table).where({ name: 'concurrent' }).count({ n: '*' }).first()).toEqual({ n: '1' });
  });

  it('a retry after a 5xx resumes the request: same request key, marked resumed', async () => {
    attempts.length = 0;
    endings.push('fail');
    const body = JSON.stringify({ name: 'flaky' });
    const failed = await post(body, { 'idempotency-key': 'gadget-1' }, '/v1/gadgets');
    expect(failed.status).toBe(500);
    const retried = await post(body, { 'idempotency-key': 'gadget-1' }, '/v1/gadgets');
    expect(retried.status).toBe(201);
    expect(attempts).toEqual([
      { requestKey: expect.stringMatching(/^[0-9a-f]{32}$/), resumed: false },
      { requestKey: (attempts[0] as { requestKey: string }).requestKey, resumed: true },
    ]);
  });

  it('a request whose process died is resumed by its retry once the claim lapses', async () => {
    attempts.length = 0;
    endings.push('die');
    const body = JSON.stringify({ name: 'orphan' });
    // The first attempt never answers: as if its API process was killed while it ran.
    const abandoned = new AbortController();
    const first = post(body, { 'idempotency-key': 'gadget-2' }, '/v1/gadgets', abandoned.signal).catch(
      () => undefined,
    );
    await eventually(() => expect(attempts).toHaveLength(1));
    abandoned.abort();
    await first;
    // Its claim is a lease; once it lapses (a minute in production), the retry takes it over.
    await db('idempotency_keys')
      .where({ idempotency_key: 'gadget-2' })
      .update({ claimed_until: db.raw(`now() - interval '1 second'`) });
    const retried = await post(body, { 'idempotency-key': 'gadget-2' }, '/v1/gadgets');
    expect(retried.status).toBe(201);
    expect(attempts.map((attempt) => (attempt as { resumed: boolean }).resumed)).toEqual([false, true]);
    const replayed = await post(body, { 'idempotency-key': 'gadget-2' }, '/v1/gadgets');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(attempts).toHaveLength(2);
  });

  it('answers a repeated invalid request the same way', async () => {
    const body = JSON.stringify({ name: 'bad', amount: 1 });
    const first = await post(body, { 'idempotency-key': 'bad-1' });
    const second = await post(body, { 'idempotency-key': 'bad-1' });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
  });
});
