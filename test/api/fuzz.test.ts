/**
 * A schema-driven fuzz run over the whole API, in `npm test` (node only; `npm run fuzz:schemathesis` runs
 * schemathesis against a started stack). The cases are built from the served OpenAPI document: for every
 * operation, values shaped by its parameters and body schema, then broken in one or more ways (a wrong
 * type, a missing required field, an unknown field, out-of-range numbers, control characters, broken
 * percent-encoding, oversized text, JSON that is not an object, another content type). Every answer must
 * be a client error, never a 5xx, and a clear one: JSON with a code and a message, and for invalid input
 * the field and the rule. Seeded, so a failure replays: PAYRUN_FUZZ_SEED=<seed> npx vitest run <this file>.
 *
 * Every case breaks at least one rule on purpose, so no case reaches a handler that would start work: the
 * API here runs without a worker.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../api/auth/roles';
import { jsonOf, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';

const SEED = Number(process.env.PAYRUN_FUZZ_SEED ?? 20261123);
const CASES_PER_OPERATION = Number(process.env.PAYRUN_FUZZ_CASES ?? 12);

const t = useApiOnDevServer();
let everyRole: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;
let document: Schema;

beforeAll(async () => {
  everyRole = await newKey(t.db, [...ROLES]);
  document = await jsonOf(await fetch(`${t.api.baseUrl}/openapi.json`));
});

/** mulberry32: small, seedable, good enough to pick cases. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof random>;

const NASTY_TEXT = [
  '',
  ' ',
  'a\u0000b',
  'line\nbreak',
  'tab\tin',
  '\u001b[31mred',
  '名前',
  '😀',
  "'; drop table payout_runs; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  'x'.repeat(5000),
  '9'.repeat(40),
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
];
const NASTY_NUMBERS = [-1, 0, 0.5, -0.000001, 1e21, 2 ** 53 + 1, -(2 ** 63), 999_999_999_999];
const NASTY_VALUES = [null, true, false, [], {}, [null], { nested: { deeper: [1, 'a'] } }, 'x'.repeat(300)];

/** A value shaped by a JSON schema: often right in type, not necessarily valid. */
function shaped(schema: Schema | undefined, r: Random, depth = 0): unknown {
  if (!schema || depth > 4) return r.pick(NASTY_VALUES);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return r.pick(schema.enum as unknown[]);
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return shaped(r.pick(variants as Schema[]), r, depth + 1);
  if (schema.allOf) return shaped((schema.allOf as Schema[])[0], r, depth + 1);
  switch (schema.type) {
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        if ((schema.required ?? []).includes(name) || r.chance(0.5))
          object[name] = shaped(property, r, depth + 1);
      }
      return object;
    }
    case 'array':
      return Array.from({ length: r.int(3) }, () => shaped(schema.items as Schema, r, depth + 1));
    case 'integer':
      return r.chance(0.5)
        ? (schema.minimum ?? 0) + r.int(1000)
        : r.pick([...NASTY_NUMBERS, schema.maximum, schema.minimum].filter((n) => n !== undefined));
    case 'number':
      return r.chance(0.5) ? r.next() * 1000 : r.pick(NASTY_NUMBERS);
    case 'boolean':
      return r.chance(0.5);
    case 'string':
      return r.pick(NASTY_TEXT);
    default:
      return r.pick(NASTY_VALUES);
  }
}

/** One rule broken on purpose (the case then cannot reach a handler). */
function broken(value: unknown, schema: Schema | undefined, r: Random): unknown {
  const object =
    value && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  const required = ((schema?.required ?? schema?.oneOf?.[0]?.required ?? []) as string[]).filter(
    (name) => name in object,
  );
  switch (r.int(6)) {
    case 0:
      return { ...object, [`unknown_${r.int(100)}`]: r.pick(NASTY_VALUES) };
    case 1:
      if (required.length) {
        delete object[r.pick(required)];
        return { ...object, unknownToo: 1 };
      }
      return { ...object, unknownField: 'x' };
    case 2: {
      const names = Object.keys(object);
      if (names.length === 0) return r.pick(['null', 42, 'text', []]);
      // A value of the wrong type where the schema has a field.
      return { ...object, [r.pick(names)]: r.pick(NASTY_VALUES), extraneous: true };
    }
    case 3:
      return r.pick([null, 42, 'text', [], [object], true]);
    case 4:
      return { ...object, injected: 'a\u0000b' };
    default:
      return { ...object, tooDeep: JSON.parse('['.repeat(50) + ']'.repeat(50)) };
  }
}

const PATH_VALUES = [
  'probe',
  'a%00b',
  '%E0',
  '%',
  'x'.repeat(400),
  '..%2F..',
  '%F0%9F%98%80',
  ' ',
  '-1',
  'run-2026',
];

interface Case {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

function casesFor(path: string, method: string, operation: Schema, r: Random): Case[] {
  const parameters = (operation.parameters ?? []) as Schema[];
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const json = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  const raw = operation.requestBody
    ? Object.keys(operation.requestBody.content).find((type) => type !== 'application/json')
    : undefined;
  const cases: Case[] = [];
  for (let index = 0; index < CASES_PER_OPERATION; index++) {
    const concrete = path.replace(/\{([A-Za-z0-9_]+)\}/g, () => r.pick(PATH_VALUES));
    const query = new URLSearchParams();
    for (const parameter of queryParameters) {
      if (r.chance(0.5)) query.set(parameter.name, String(shaped(parameter.schema as Schema, r)));
    }
    // GET and DELETE break a rule in the query: an unknown parameter, or a known one of the wrong shape.
    const bodyless = !operation.requestBody;
    if (bodyless) {
      if (queryParameters.length && r.chance(0.5))
        query.set(r.pick(queryParameters).name, r.pick(['abc', '-5', '1e999', 'a\u0000b', '', '%E0']));
      else query.set(`unknown_${r.int(100)}`, r.pick(NASTY_TEXT));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${everyRole}` };
    let body: string | Buffer | undefined;
    if (json) {
      const value = broken(shaped(json, r), json, r);
      headers['content-type'] = r.chance(0.85)
        ? 'application/json'
        : r.pick(['text/plain', 'application/xml']);
      body = r.chance(0.1)
        ? r.pick(['{', '{"a":', '\u0000', '[1,2', '{"a":1}{"b":2}'])
        : JSON.stringify(value);
    } else if (raw) {
      headers['content-type'] = raw;
      body = r.pick([
        Buffer.alloc(0),
        Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]),
        'not,a,payout\nfile',
        'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id\n' + 'x,'.repeat(10) + '\n',
        JSON.stringify({ a: 1 }),
        'a\u0000b\n',
      ]);
    }
    const search = query.toString();
    cases.push({
      what: `${method.toUpperCase()} ${concrete}${search ? `?${search.slice(0, 80)}` : ''}`,
      method: method.toUpperCase(),
      path: `${concrete}${search ? `?${search}` : ''}`,
      headers,
      ...(body === undefined ? {} : { body }),
    });
  }
  return cases;
}

/** What a clear refusal looks like: JSON, a code and a message, and for invalid input the field and rule. */
function unclear(status: number, contentType: string, text: string, html = false): string | undefined {
  if (status >= 500) return `server error ${status}`;
  if (status < 400) return undefined;
  // The customer's redirect page answers its refusal as a page, for a browser (documented as text/html).
  if (html && contentType.includes('text/html')) return undefined;
  if (!contentType.includes('application/json')) return `error answered as ${contentType || 'no type'}`;
  let error: Schema | undefined;
  try {
    error = (JSON.parse(text) as Schema).error;
  } catch {
    return 'error body is not JSON';
  }
  if (typeof error?.code !== 'string' || typeof error?.message !== 'string' || !error.message)
    return 'error without code and message';
  if (error.code === 'invalid_request') {
    const problems = (error.problems ?? []) as Schema[];
    if (problems.length === 0) return 'invalid_request without problems';
    for (const problem of problems) {
      if (typeof problem.field !== 'string' || !/^(body|query|path|header)(\.|$)/.test(problem.field))
        return `problem without a located field: ${JSON.stringify(problem)}`;
      if (typeof problem.rule !== 'string' || !problem.rule)
        return `problem without a rule: ${JSON.stringify(problem)}`;
    }
  }
  return undefined;
}

describe(`fuzzing every operation of the OpenAPI document (seed ${SEED}, ${CASES_PER_OPERATION} cases each)`, () => {
  it('answers every broken request with a clear client error, never a 5xx', async () => {
    const r = random(SEED);
    const findings: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, Schema>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const one of casesFor(path, method, operation, r)) {
          sent++;
          let response: Response;
          try {
            response = await fetch(`${t.api.baseUrl}${one.path}`, {
              method: one.method,
              headers: one.headers,
              ...(one.body === undefined ? {} : { body: one.body }),
              signal: AbortSignal.timeout(15_000),
            });
          } catch (error) {
            findings.push(`${one.what}: no answer (${(error as Error).message})`);
            continue;
          }
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const problem = unclear(
            response.status,
            response.headers.get('content-type') ?? '',
            text,
            path === '/payments/return',
          );
          // A broken request is never accepted (2xx) by a route that creates or changes something (a dry
          // run changes nothing: it answers its report, valid: false).
          const accepted = response.status < 300 && one.method !== 'GET' && !path.endsWith('/dry-run');
          if (problem || accepted)
            findings.push(
              `${one.what}: ${problem ?? 'accepted'} → ${response.status} ${text.slice(0, 200)}` +
                (response.status >= 500 ? ` (sent: ${String(one.body).slice(0, 1500)})` : ''),
            );
        }
      }
    }
    console.info(
      `fuzz: ${sent} requests over ${Object.keys(document.paths).length} paths; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(sent).toBeGreaterThan(500);
    expect(findings).toEqual([]);
  }, 600_000);
});
