/**
 * Every API key is owned: creating one needs an owner (a person `<issuer>#<sub>` or `service:<name>`), the
 * list shows each key's owner and last use and flags keys made before owners existed, and such a key is
 * given an owner once (never moved to another).
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../db/shared/api-keys';
import { jsonOf, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { freshId } from '../support/ids';

const t = useApiOnDevServer();

async function call(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await jsonOf(response) };
}
const listed = async (admin: string, keyId: string) =>
  ((await call(admin, 'GET', '/v1/api-keys')).body.keys as Record<string, unknown>[]).find(
    (key) => key.keyId === keyId,
  );

describe('API keys are owned', () => {
  it('refuses a key without an owner, or with one of neither form (400 naming owner), and makes none', async () => {
    const admin = await newKey(t.db, ['admin']);
    for (const owner of [undefined, 'alice', 'service:', 'service:Payroll Export', 'alice#sub', '']) {
      const name = freshId('unowned-');
      const refused = await call(admin, 'POST', '/v1/api-keys', { name, roles: ['viewer'], owner });
      expect(refused.status, String(owner)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.problems.map((p: { field: string }) => p.field)).toEqual(['body.owner']);
      expect(await t.db('api_keys').where({ name })).toEqual([]);
    }
  });

  it('lists each key with its owner and last use; a person’s key acts as them', async () => {
    const admin = await newKey(t.db, ['admin']);
    const service = `service:export-${freshId('')}`;
    const made = await call(admin, 'POST', '/v1/api-keys', {
      name: freshId('export-'),
      roles: ['viewer'],
      owner: service,
    });
    expect(made.status).toBe(201);
    expect(made.body.owner).toBe(service);
    expect(await listed(admin, made.body.keyId)).toMatchObject({
      owner: service,
      unowned: false,
      lastUsedAt: null,
    });
    expect((await call(made.body.key, 'GET', '/v1/me')).status).toBe(200);
    const used = await listed(admin, made.body.keyId);
    expect(used).toMatchObject({ owner: service });
    expect(new Date(String(used?.lastUsedAt)).getTime()).toBeGreaterThan(0);

    const person = `https://id.example.com/realms/finance#${freshId('p-')}`;
    const personal = await call(admin, 'POST', '/v1/api-keys', {
      name: freshId('scripts-'),
      roles: ['viewer'],
      owner: person,
    });
    expect(personal.status).toBe(201);
    expect((await call(personal.body.key, 'GET', '/v1/me')).body).toMatchObject({ keyId: person });
  });

  it('flags a key made before owners existed, gives it an owner once, and never moves it to another', async () => {
    const admin = await newKey(t.db, ['admin']);
    const { row } = await createApiKey(t.db, freshId('legacy-'), ['viewer']);
    expect(await listed(admin, row.key_id)).toMatchObject({ owner: null, unowned: true });

    const bad = await call(admin, 'POST', `/v1/api-keys/${row.key_id}/owner`, { owner: 'nobody' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems.map((p: { field: string }) => p.field)).toEqual(['body.owner']);
    expect(await listed(admin, row.key_id)).toMatchObject({ owner: null, unowned: true });

    const owner = `service:legacy-${freshId('')}`;
    const given = await call(admin, 'POST', `/v1/api-keys/${row.key_id}/owner`, { owner });
    expect(given).toMatchObject({ status: 200, body: { keyId: row.key_id, owner } });
    expect(await listed(admin, row.key_id)).toMatchObject({ owner, unowned: false });

    const moved = await call(admin, 'POST', `/v1/api-keys/${row.key_id}/owner`, { owner: 'service:other' });
    expect(moved.status).toBe(409);
    expect(moved.body.error.code).toBe('api_key_owned');
    expect(await listed(admin, row.key_id)).toMatchObject({ owner });
    expect((await call(admin, 'POST', '/v1/api-keys/000000000000/owner', { owner })).status).toBe(404);
  });
});
