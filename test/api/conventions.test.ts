import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorHandler } from '../../api/http/errors';
import { observeRequests } from '../../api/http/observability';
import { defineRoute, mountRoutes } from '../../api/http/routes';
import type { Db } from '../../db/knex';
import { createLogger } from '../../platform/logger';
import { authHeaders, jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';

/**
 * The request conventions through a real HTTP server, on routes defined for the test with the same
 * `defineRoute`/`mountRoutes` every real endpoint uses.
 */
let db: Db;
let api: RunningApi;
let key: string;
const table = `widgets_${Date.now()}`;

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

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${api.baseUrl}/v1/widgets`, { method: 'POST', headers: { ...authHeaders(key), ...headers }, body });

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

  it('answers a repeated invalid request the same way', async () => {
    const body = JSON.stringify({ name: 'bad', amount: 1 });
    const first = await post(body, { 'idempotency-key': 'bad-1' });
    const second = await post(body, { 'idempotency-key': 'bad-1' });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
  });
});
