/**
 * No input makes the API answer 5xx: every route, public or not, is sent what a careless or hostile
 * client sends (a NUL character in a path parameter, the query or the body; broken percent-encoding in
 * the path; JSON that is not an object), with a key that holds every role so that input, not access,
 * is what the route sees. Text with control characters is refused with 400 naming the field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { ROLES } from '../../api/auth/roles';
import { ipnPaths, paymentReturnPath } from '../../platform/ipn-paths';
import { newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { testApiSettings, testMerchant } from '../support/settings';

const t = useApiOnDevServer();
let everyRole: string;
beforeAll(async () => {
  everyRole = await newKey(t.db, [...ROLES]);
});

async function send(method: string, path: string, body?: string) {
  const response = await fetch(`${t.api.baseUrl}${path}`, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${everyRole}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

// Building the table reads only settings; handlers run with the test database behind them.
const routes = apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies);
const hasBody = (method: string) => method !== 'get' && method !== 'delete';
const withParams = (path: string, value: string) => path.replace(/:([A-Za-z0-9_]+)/g, value);

describe('no input makes the API answer 5xx', () => {
  for (const route of routes) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    it(`${name}: NUL, broken encoding and non-object JSON are client errors`, async () => {
      const attempts: Array<{ what: string; answer: { status: number; text: string } }> = [];
      const attempt = async (what: string, method: string, path: string, body?: string) =>
        attempts.push({ what, answer: await send(method, path, body) });
      const body = hasBody(route.method) ? '{}' : undefined;

      await attempt('NUL in the query', route.method, `${withParams(route.path, 'probe')}?q=a%00b`, body);
      if (route.path.includes(':')) {
        await attempt('NUL in a path parameter', route.method, withParams(route.path, 'a%00b'), body);
        await attempt('broken percent-encoding', route.method, withParams(route.path, '%E0'), body);
      }
      if (hasBody(route.method)) {
        const path = withParams(route.path, 'probe');
        await attempt('NUL in a body field', route.method, path, JSON.stringify({ orderInfo: 'a\u0000b' }));
        for (const value of ['null', '42', '"text"', '[]'])
          await attempt(`JSON body ${value}`, route.method, path, value);
      }
      const serverErrors = attempts.filter(({ answer }) => answer.status >= 500);
      expect(serverErrors.map(({ what, answer }) => `${what}: ${answer.status} ${answer.text}`)).toEqual([]);
      for (const { what, answer } of attempts.filter(({ what }) => what.startsWith('NUL in a path'))) {
        expect(answer.status, what).toBe(400);
        expect(JSON.parse(answer.text).error.problems[0]).toMatchObject({ rule: 'control_character' });
      }
    });
  }

  it('public pages and every notification receiver refuse bad input without a 5xx', async () => {
    const labelled = async (what: string, method: string, path: string, body?: string) => ({
      what,
      ...(await send(method, path, body)),
    });
    const answers = [
      await labelled('console, broken encoding', 'get', '/console/%E0'),
      await labelled('payment return, NUL', 'get', `${paymentReturnPath}?orderId=%00`),
      ...(await Promise.all(
        Object.values(ipnPaths).flatMap((path) =>
          ['null', '42', '[]', '"text"', JSON.stringify({ orderId: 'a\u0000b' })].map((body) =>
            labelled(`${path} ${body}`, 'post', path, body),
          ),
        ),
      )),
    ];
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => answer.what)).toEqual([]);
    expect(answers.every((answer) => answer.status >= 400)).toBe(true);
  });
});

/** A body nested `depth` arrays deep: 2 bytes a level. */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('no nesting depth answers 5xx (issue 33: 2,000 deep answered 500 from a stack overflow)', () => {
  // 100,000 levels are 200 kB, past the default 100 kB JSON limit (refused 413 before it is parsed), so
  // these routes run with a limit that lets the parser build them.
  const wide = useApiOnDevServer({ jsonLimit: '1mb' });
  const sendTo = async (baseUrl: string, method: string, path: string, body: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${everyRole}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: Record<string, unknown> } };
  };
  const maxDepth = {
    code: 'invalid_request',
    problems: [expect.objectContaining({ field: 'body', rule: 'max_depth' })],
  };

  it('2,000 and 100,000 deep, arrays or objects: 400 max_depth on every JSON route', async () => {
    const bodies = {
      'arrays 2,000': nestedArrays(2_000),
      'arrays 100,000': nestedArrays(100_000),
      'objects 2,000': '{"note":'.repeat(2_000) + '1' + '}'.repeat(2_000),
      'objects 100,000': '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000),
    };
    const jsonRoutes = routes.filter((route) => hasBody(route.method) && !route.rawBody);
    expect(jsonRoutes.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const route of jsonRoutes) {
      for (const [what, body] of Object.entries(bodies)) {
        const answer = await sendTo(wide.api.baseUrl, route.method, withParams(route.path, 'probe'), body);
        const problems = (answer.body.error?.problems ?? []) as Array<{ rule?: string }>;
        if (answer.status !== 400 || problems[0]?.rule !== 'max_depth')
          wrong.push(
            `${route.method} ${route.path} ${what}: ${answer.status} ${JSON.stringify(answer.body)}`,
          );
      }
    }
    expect(wrong).toEqual([]);
    const one = await sendTo(wide.api.baseUrl, 'post', '/v1/disbursements', nestedArrays(100_000));
    expect(one.body.error).toMatchObject(maxDepth);
  });

  it('with the default limit: 2,000 deep is 400 max_depth, 100,000 deep is 413; notifications 400', async () => {
    const deep = await sendTo(t.api.baseUrl, 'post', '/v1/disbursements', nestedArrays(2_000));
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject(maxDepth);
    expect((await sendTo(t.api.baseUrl, 'post', '/v1/disbursements', nestedArrays(100_000))).status).toBe(
      413,
    );
    for (const path of Object.values(ipnPaths)) {
      const body = `{"orderId":${nestedArrays(100_000)}}`;
      expect((await sendTo(t.api.baseUrl, 'post', path, body)).status, path).toBe(400);
    }
  });
});

describe('a method a path does not serve', () => {
  it('answers 405 with Allow naming the methods it does, and 404 for a path payrun does not serve', async () => {
    const put = await fetch(`${t.api.baseUrl}/healthz`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    expect(((await put.json()) as { error: unknown }).error).toMatchObject({ code: 'method_not_allowed' });
    const patch = await fetch(`${t.api.baseUrl}/v1/payout-runs`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${everyRole}` },
    });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
    const withParameter = await fetch(`${t.api.baseUrl}/v1/saved-methods/m-1`, { method: 'PUT' });
    expect(withParameter.headers.get('allow')).toBe('DELETE');
    expect((await fetch(`${t.api.baseUrl}/v1/nothing-here`, { method: 'PUT' })).status).toBe(404);
    // OPTIONS lists what the path itself serves, not a parameter route that matches the same text.
    const options = await fetch(`${t.api.baseUrl}/v1/payout-runs/dry-run`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST');
  });
});
