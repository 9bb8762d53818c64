/**
 * Walks every registered route: a route added without an access rule, or with a check that lets the
 * wrong caller through, fails here.
 */
import { describe, expect, it } from 'vitest';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { ROLES, type Role } from '../../api/auth/roles';
import { revokeApiKey, parseKeyId } from '../../db/shared/api-keys';
import { jsonOf, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { testApiSettings, testMerchant } from '../support/settings';

const t = useApiOnDevServer();

const concretePath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, 'probe-$1');

async function call(method: string, path: string, key?: string) {
  const response = await fetch(`${t.api.baseUrl}${concretePath(path)}`, {
    method: method.toUpperCase(),
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
  });
  return { status: response.status, body: await response.text() };
}

describe('access to every route', () => {
  // Building the table reads only settings; handlers (not run here) would use the database.
  const routes = apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies);

  it('has routes to check, and each declares who may call it', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const declared = 'public' in route.access ? route.access.public : route.access.roles;
      expect(declared.length, `${route.method} ${route.path}`).toBeGreaterThan(0);
    }
  });

  for (const route of routes) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    if ('public' in route.access) {
      it(`${name} is public (${route.access.public})`, async () => {
        expect([401, 403]).not.toContain((await call(route.method, route.path)).status);
      });
      continue;
    }
    const allowed = route.access.roles;
    it(`${name} refuses no key, a wrong key, a revoked key and a wrong role; admits ${allowed.join('/')}`, async () => {
      expect((await call(route.method, route.path)).status).toBe(401);
      expect((await call(route.method, route.path, 'prk_000000000000_' + 'x'.repeat(43))).status).toBe(401);
      expect((await call(route.method, route.path, 'not-a-key')).status).toBe(401);

      const revoked = await newKey(t.db, [allowed[0]!]);
      await revokeApiKey(t.db, parseKeyId(revoked)!);
      expect((await call(route.method, route.path, revoked)).status).toBe(401);

      const wrongRoles = ROLES.filter((role): role is Role => role !== 'admin' && !allowed.includes(role));
      if (wrongRoles.length) {
        const wrong = await call(route.method, route.path, await newKey(t.db, wrongRoles));
        expect(wrong.status).toBe(403);
        expect(JSON.parse(wrong.body)).toMatchObject({ error: { code: 'forbidden' } });
      }
      for (const roles of [[allowed[0]!], ['admin' as Role]]) {
        const admitted = await call(route.method, route.path, await newKey(t.db, roles));
        expect([401, 403], `${roles.join(',')} on ${name}`).not.toContain(admitted.status);
      }
    });
  }
});

describe('one documented way to pass a key', () => {
  it('accepts Authorization: Bearer and refuses a valid key in X-API-Key, saying which header to use', async () => {
    const viewer = await newKey(t.db, ['viewer']);
    const bearer = await fetch(`${t.api.baseUrl}/v1/payout-runs`, {
      headers: { authorization: `Bearer ${viewer}` },
    });
    expect(bearer.status).toBe(200);
    const header = await fetch(`${t.api.baseUrl}/v1/payout-runs`, { headers: { 'x-api-key': viewer } });
    expect(header.status).toBe(401);
    expect((await jsonOf(header)).error.message).toBe(
      'X-API-Key is not accepted: pass the key as Authorization: Bearer <key>.',
    );
  });

  it('the OpenAPI document declares the bearer scheme only', async () => {
    const document = await jsonOf(await fetch(`${t.api.baseUrl}/openapi.json`));
    expect(document.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(JSON.stringify(document)).not.toMatch(/x-api-key/i);
  });
});
