import { z } from 'zod';
import type { AnyRoute } from './routes';

type JsonSchema = Record<string, unknown>;

/**
 * Text payrun refuses before any route sees it (`control-characters.ts`): NUL and the other C0 controls
 * but tab, line feed and carriage return, and DEL. Stated on every string the document describes, so a
 * client (or a fuzzer) reading the schema knows the rule instead of meeting a 400 it could not predict.
 */
/** For the OpenAPI document: text that is not only spaces (what `.trim().min(1)` accepts). */
export const NOT_BLANK = { pattern: '\\S' };

export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';

function withTextRules(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => withTextRules(item, io));
  if (node === null || typeof node !== 'object') return node;
  const schema = Object.fromEntries(
    Object.entries(node as JsonSchema).map(([key, value]) => [
      key,
      // `properties` maps names to schemas; every other object value is a schema or a list of them.
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withTextRules(item, io)]))
        : withTextRules(value, io),
    ]),
  ) as JsonSchema;
  // `type` may be a list (a union of primitives); a pattern applies to the strings among them.
  const takesText =
    schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  if (io === 'input' && takesText && schema.enum === undefined && schema.const === undefined) {
    if (schema.pattern === undefined) schema.pattern = NO_CONTROL_CHARACTERS;
    else if (!/^\^.*\$$/.test(String(schema.pattern)))
      schema.allOf = [...((schema.allOf as unknown[]) ?? []), { pattern: NO_CONTROL_CHARACTERS }];
  }
  // Keys of free-form objects (extraData) are checked too.
  if (io === 'input' && schema.type === 'object' && schema.additionalProperties !== false)
    schema.propertyNames = { pattern: NO_CONTROL_CHARACTERS };
  return schema;
}

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return withTextRules(rest, io) as JsonSchema;
};

const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(route: AnyRoute): JsonSchema[] {
  const fromObject = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!schema) return [];
    const json = toSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    return Object.entries(json.properties ?? {}).map(([name, property]) => ({
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      schema: property,
    }));
  };
  const list: JsonSchema[] = [...fromObject(route.params, 'path'), ...fromObject(route.query, 'query')];
  if (route.idempotent) {
    const required = route.idempotent === 'required';
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required,
      description:
        'The same key with the same body returns the first answer; with another body, 409.' +
        (required ? ' Required: this create moves money and has no caller-supplied id.' : ''),
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  return list;
}

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        problems: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** `mountRoutes` refuses unknown top-level fields (`strict`); the document says so. */
const strictTop = (schema: JsonSchema): JsonSchema =>
  schema.type === 'object' && schema.additionalProperties === undefined
    ? { ...schema, additionalProperties: false }
    : schema;

/** The read operation of what a create at `path` makes: `GET <path>/:id`. */
function readAfter(
  routes: readonly AnyRoute[],
  path: string,
): { route: AnyRoute; param: string } | undefined {
  for (const candidate of routes) {
    const match = /^(.*)\/:([A-Za-z0-9_]+)$/.exec(candidate.path);
    if (candidate.method === 'get' && match && match[1] === path)
      return { route: candidate, param: match[2]! };
  }
  return undefined;
}

/** A stable id per operation, from its method and path (`get_v1_payout-runs_runId`). */
const operationId = (route: AnyRoute) =>
  `${route.method}${route.path.replace(/[:{}]/g, '').replace(/\//g, '_')}`;

/** What a raw body is, by media type: each is one entry of the request's `content`, never a list in one key. */
function rawSchema(type: string): JsonSchema {
  // A signed notification is an object whose trust comes from its signature, not from a schema.
  if (type === 'application/json')
    return {
      type: 'object',
      description: 'A notification signed by the gateway (verified, not schema-checked)',
    };
  // Any non-empty text is a file to read (an empty body is 400 `missing_body`); what it must contain is
  // reported row by row (a dry run's report, an upload's 422), not stated here.
  if (type.startsWith('text/')) return { type: 'string', minLength: 1 };
  return { type: 'string', format: 'binary', minLength: 1 };
}

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas that validate requests. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const status = String(route.responseStatus ?? (route.method === 'post' ? 201 : 200));
    const isPublic = 'public' in route.access;
    const text = { type: 'string' };
    const errorContent = route.produces?.errors
      ? { [route.produces.types[0]!]: { schema: text } }
      : { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
    const hasBody = Boolean(route.body || route.rawBody);
    // Every refusal payrun answers, by status, so a client (and a fuzzer) knows what to expect.
    const errors: Array<[string, string, boolean]> = [
      ['400', 'Invalid input: `problems` names each field and the rule it breaks', true],
      ['401', 'No API key, or an unknown or revoked one', !isPublic],
      ['403', 'The key has none of the roles this operation needs', !isPublic],
      ['404', 'Not found', true],
      [
        '409',
        'Conflict: an id already used, an Idempotency-Key reused with another body, or a state that forbids it',
        true,
      ],
      ['413', 'The body is larger than the limit', hasBody],
      ['422', 'Well-formed, but refused by a business rule or by the gateway', true],
      ['429', 'Rate limited: retry after `Retry-After` seconds', true],
    ];
    const success: JsonSchema = route.produces
      ? {
          description: 'Success',
          content: Object.fromEntries(
            route.produces.types.map((type) => [
              type,
              {
                schema:
                  type === 'application/json' && route.response
                    ? toSchema(route.response, 'output')
                    : type === 'application/json'
                      ? {}
                      : text,
              },
            ]),
          ),
        }
      : {
          description: 'Success',
          ...(route.response
            ? { content: { 'application/json': { schema: toSchema(route.response, 'output') } } }
            : {}),
        };
    const operation: JsonSchema = {
      operationId: operationId(route),
      summary: route.summary,
      ...(route.successorPath ? { deprecated: true } : {}),
      tags: [route.tag],
      security: isPublic ? [] : [{ apiKey: [] }],
      ...(isPublic ? {} : { 'x-roles': ['admin', ...(route.access as { roles: string[] }).roles] }),
      parameters: parameters(route),
      responses: {
        [status]: success,
        ...Object.fromEntries(
          errors
            .filter(([code, , applies]) => applies && code !== status)
            .map(([code, description]) => [code, { description, content: errorContent }]),
        ),
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: strictTop(toSchema(route.body, 'input')) } },
      };
    } else if (route.rawBody) {
      operation.requestBody = {
        required: true,
        content: Object.fromEntries(
          route.rawBody.contentTypes.map((type) => [type, { schema: rawSchema(type) }]),
        ),
      };
    }
    // Create → read: the id the create answers is the read's path parameter (OpenAPI links, which
    // stateful fuzzers follow).
    const read = route.method === 'post' ? readAfter(routes, route.path) : undefined;
    if (read) {
      (operation.responses as Record<string, JsonSchema>)[status] = {
        ...success,
        links: {
          [`read_${read.param}`]: {
            operationId: operationId(read.route),
            parameters: { [read.param]: `$response.body#/${read.param}` },
          },
        },
      };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'payrun API',
      version,
      description: 'Payouts, billing, remittance and payments on a wallet gateway, orchestrated by Temporal.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A payrun API key (npm run keys).' },
      },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A plain, dependency-free reference page for people; machines read /openapi.json. */
export function renderDocsPage(routes: readonly AnyRoute[]): string {
  const rows = routes
    .map((route) => {
      const access =
        'public' in route.access
          ? `public (${route.access.public})`
          : ['admin', ...route.access.roles].join(', ');
      return `<tr><td><code>${route.method.toUpperCase()}</code></td><td><code>${escapeHtml(route.path)}</code></td><td>${escapeHtml(route.summary)}</td><td>${escapeHtml(access)}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>payrun API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}code{font-size:.95em}</style></head>
<body><h1>payrun API</h1>
<p>Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>. Errors answer
<code>{"error":{"code","message","requestId","problems":[{"field","rule","message"}]}}</code>.
Create endpoints accept <code>Idempotency-Key</code>. The machine-readable document is <a href="/openapi.json">/openapi.json</a>.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>What it does</th><th>Roles</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
