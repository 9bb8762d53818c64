/**
 * Text the API refuses when it is only spaces (a name, a holder, a code) is described as such in the
 * OpenAPI document, so a client or schemathesis building a request from the document never meets a 400
 * the document did not predict. Every text field of every route's body, query and path is checked:
 * where the route's own validation refuses blank text of an allowed length, the document must too.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { testApiSettings, testMerchant } from '../support/settings';

const routes = apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies);

interface TextField {
  where: string;
  schema: z.ZodType;
}

/** Every string schema inside `schema`, named by where a client writes it. */
function textFields(schema: z.ZodType, where: string, found: TextField[] = []): TextField[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  const inner = (child: unknown, at = where) => textFields(child as z.ZodType, at, found);
  switch (def.type) {
    case 'string':
      found.push({ where, schema });
      break;
    case 'object':
      for (const [name, child] of Object.entries(def.shape as Record<string, unknown>))
        inner(child, `${where}.${name}`);
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      inner(def.innerType);
      break;
    case 'pipe':
      // What a client sends is the pipe's input.
      inner(def.in);
      break;
    case 'union':
      for (const option of def.options as unknown[]) inner(option);
      break;
    case 'intersection':
      inner(def.left);
      inner(def.right);
      break;
    case 'array':
      inner(def.element, `${where}[]`);
      break;
    case 'record':
      inner(def.valueType, `${where}.*`);
      break;
    case 'lazy':
      break;
  }
  return found;
}

/** Whether the document's description of a text field admits `text`: length, pattern(s), enum. */
function documentAdmits(json: Record<string, unknown>, text: string): boolean {
  const length = [...text].length;
  if (typeof json.minLength === 'number' && length < json.minLength) return false;
  if (typeof json.maxLength === 'number' && length > json.maxLength) return false;
  if (Array.isArray(json.enum) && !json.enum.includes(text)) return false;
  if (json.const !== undefined && json.const !== text) return false;
  // A format (email, uri, date-time…) never admits blank text.
  if (json.format !== undefined) return false;
  const patterns = [
    json.pattern,
    ...((json.allOf as Array<{ pattern?: unknown }> | undefined) ?? []).map((part) => part.pattern),
  ].filter((pattern): pattern is string => typeof pattern === 'string');
  return patterns.every((pattern) => new RegExp(pattern, 'u').test(text));
}

const blanks = (json: Record<string, unknown>) => {
  const shortest = Math.max(1, typeof json.minLength === 'number' ? json.minLength : 1);
  return [' '.repeat(shortest), '\t'.repeat(shortest), `${' '.repeat(shortest)}\n`];
};

describe('blank text in the OpenAPI document', () => {
  const fields = routes.flatMap((route) => {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    return [
      ...(route.body ? textFields(route.body, `${name} body`) : []),
      ...(route.query ? textFields(route.query, `${name} query`) : []),
      ...(route.params ? textFields(route.params, `${name} path`) : []),
    ];
  });

  it('finds the text fields to check, the remittance receiver holder among them', () => {
    expect(fields.length).toBeGreaterThan(50);
    expect(fields.map((field) => field.where)).toContain(
      'POST /v1/remittances body.receiver.bankAccountHolderName',
    );
  });

  it('refuses blank text wherever the route refuses it', () => {
    const gaps = fields.flatMap(({ where, schema }) => {
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      return blanks(json)
        .filter((blank) => !schema.safeParse(blank).success && documentAdmits(json, blank))
        .map((blank) => `${where} ${JSON.stringify(blank)}`);
    });
    expect([...new Set(gaps)]).toEqual([]);
  });
});
