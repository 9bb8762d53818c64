import { createHash } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../../platform/logger';
import type { Db } from '../../db/shared/knex';
import { requireRoles } from '../auth/authenticate';
import type { Principal, Role } from '../auth/roles';
import { ApiError, invalidInput, fromParserError } from './errors';
import { refuseUnsafeText } from './control-characters';
import { runIdempotently, type CreateRequest } from './idempotency';
import { keptDetails, RequestAuditTrail, type AuditSpec, type AuditTrail } from './audit-trail';
import { nestsDeeperThan, tooDeep } from './json-depth';
import type { RateLimits } from './rate-limits';

/** Who may call a route: API keys with one of these roles (admin always), or nobody needs one, and why. */
export type Access = { roles: readonly Role[] } | { public: string };

export interface RouteContext<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  /** Present on every authenticated route. */
  principal: Principal;
  log: Logger;
  req: Request;
  res: Response;
  /** On routes that declare `audit`: the entry being built for the audit log. */
  audit: AuditTrail;
  /** Create routes called with an Idempotency-Key: the request's stable key, and whether it resumes. */
  create?: CreateRequest;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  /** For non-JSON answers (CSV downloads, HTML pages). */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteSpec<
  Body extends z.ZodType = z.ZodType,
  Query extends z.ZodType = z.ZodType,
  Params extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path syntax, e.g. `/v1/payout-runs/:runId`. */
  path: string;
  /**
   * Where this route was served before its capability was renamed. It is still served there, for the
   * clients and gateway notifications of the previous release, with `Deprecation` and a `Link` to `path`
   * (see `withFormerPaths`); the OpenAPI document marks it deprecated.
   */
  formerPath?: string;
  /** Set on the route `withFormerPaths` makes: the path that replaced this one. */
  successorPath?: string;
  summary: string;
  tag: string;
  access: Access;
  body?: Body;
  /**
   * The body as bytes instead of JSON (signed notifications), with its own size limit; or, with `read`,
   * streamed by the route itself (uploads: parsed off the event loop as they arrive). `read` gets the
   * validated query and answers the handler's body and a fingerprint of the bytes for Idempotency-Key
   * comparisons.
   */
  rawBody?: {
    /** What a client may send, for the OpenAPI document (the route reads the bytes whatever it is told). */
    contentTypes: readonly string[];
    limit: string;
    read?(req: Request, query: unknown): Promise<{ body: unknown; fingerprint: string }>;
  };
  query?: Query;
  params?: Params;
  response?: z.ZodType;
  responseStatus?: number;
  /**
   * Create endpoints: honour `Idempotency-Key`. `'required'`: money-moving creates whose identity payrun
   * makes up (no caller-supplied business id): without a key a retried request would move money twice,
   * so a request without one is refused with 400 `idempotency_key_required`.
   */
  idempotent?: boolean | 'required';
  /** An action a person takes: every call is recorded in the audit log, succeeded or refused. */
  audit?: AuditSpec;
  /**
   * The content types a route answers instead of JSON (pages, CSV, metrics), for the OpenAPI document;
   * `errors: true` when its refusals are that type too (a page a customer's browser shows).
   */
  produces?: { types: readonly string[]; errors?: boolean };
  handler(
    ctx: RouteContext<
      Body extends z.ZodType ? z.infer<Body> : undefined,
      Query extends z.ZodType ? z.infer<Query> : Record<string, never>,
      Params extends z.ZodType ? z.infer<Params> : Record<string, string>
    >,
  ): Promise<RouteResult> | RouteResult;
}

// The generic parameters are erased in the registry; each spec was checked where it was defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any>;

export function defineRoute<Body extends z.ZodType, Query extends z.ZodType, Params extends z.ZodType>(
  spec: RouteSpec<Body, Query, Params>,
): AnyRoute {
  return spec as AnyRoute;
}

/**
 * The routes, and a copy of each renamed one at its former path. The copy answers exactly as the route
 * does (same roles, validation, idempotency and audit); `mountRoutes` adds `Deprecation: true` and
 * `Link: <path>; rel="successor-version"` to every answer it gives, refusals included.
 */
export function withFormerPaths(routes: readonly AnyRoute[]): AnyRoute[] {
  const former = routes
    .filter((route) => route.formerPath !== undefined)
    .map((route): AnyRoute => ({
      ...route,
      path: route.formerPath as string,
      formerPath: undefined,
      successorPath: route.path,
      summary: `Former path of ${route.method.toUpperCase()} ${route.path}: ${route.summary}`,
    }));
  return [...routes, ...former];
}

/** Marks an answer at a former path, with the successor's path filled in with this request's parameters. */
function deprecatedFor(successorPath: string): express.RequestHandler {
  return (req, res, next) => {
    const successor = successorPath.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
      encodeURIComponent(String((req.params as Record<string, string>)[name] ?? '')),
    );
    res.setHeader('Deprecation', 'true');
    res.setHeader('Link', `<${successor}>; rel="successor-version"`);
    next();
  };
}

/**
 * Unknown fields are refused: an object schema is made strict at its top level (the OpenAPI says so too).
 * Made once per schema: a new strict copy for every request cost 0.25 ms of the API's thread to build, and
 * zod compiles a schema's parser on its first use, so a fresh copy parsed slowly every time.
 */
const strictCopies = new WeakMap<z.ZodType, z.ZodType>();
function strict(schema: z.ZodType): z.ZodType {
  if (!(schema instanceof z.ZodObject)) return schema;
  let copy = strictCopies.get(schema);
  if (!copy) {
    copy = schema.strict();
    strictCopies.set(schema, copy);
  }
  return copy;
}

function parse(location: string, schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return value;
  const result = strict(schema).safeParse(value);
  if (!result.success) throw invalidInput(location, result.error.issues);
  return result.data;
}

function send(res: Response, result: RouteResult, defaultStatus: number): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.status(result.status ?? defaultStatus);
  if (result.body === undefined) {
    res.end();
  } else if (result.contentType) {
    res.type(result.contentType).send(result.body);
  } else {
    res.json(result.body);
  }
}

export interface MountOptions {
  db: Db;
  jsonLimit: string;
  limits?: RateLimits;
}

/** Mounts routes with their authentication, role check, validation and idempotency, in that order. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], options: MountOptions): void {
  for (const route of routes) {
    const handlers: express.RequestHandler[] = [];
    if (route.successorPath) handlers.push(deprecatedFor(route.successorPath));
    if ('roles' in route.access)
      handlers.push(...requireRoles(options.db, route.access.roles, options.limits));
    if (route.rawBody?.read) {
      // The route reads the stream itself, after authentication, so strangers never occupy a parser.
    } else if (route.rawBody) {
      handlers.push(express.raw({ type: () => true, limit: route.rawBody.limit }));
    } else if (route.method !== 'get' && route.method !== 'delete') {
      const json = express.json({ limit: options.jsonLimit, strict: true, type: () => true });
      handlers.push(route.audit ? recordingBodyErrors(json) : json);
    }
    handlers.push(async (req, res) => {
      // Depth first, before anything walks the body (the audit entry's details included): a body nested
      // past the limit is refused with 400 and recorded without the body.
      const deep = !route.rawBody && nestsDeeperThan(req.body);
      const trail = route.audit
        ? new RequestAuditTrail(route.audit, {
            principal: res.locals.principal as Principal,
            requestId: res.locals.requestId as string | undefined,
            method: route.method,
            path: req.path,
            targetId:
              route.audit.targetOf?.(req.params as Record<string, string>) ??
              Object.values(req.params as Record<string, string>)[0] ??
              idInBody(req.body),
            details: keptDetails(req.query, route.rawBody || deep ? undefined : req.body),
          })
        : undefined;
      try {
        if (deep) throw tooDeep();
        const bodyError = res.locals.bodyError as ApiError | undefined;
        if (bodyError) throw bodyError;
        const answered = await answer(route, req, res, options, trail ?? NO_TRAIL, () =>
          trail ? trail.begin(options.db) : Promise.resolve(),
        );
        // The outcome is committed before the answer leaves. Should completing it fail, the action still
        // took effect: the entry stays `requested` (never "refused"), and the caller gets the true answer.
        await trail
          ?.finish(options.db, 'succeeded', answered.status)
          .catch((auditError: unknown) =>
            (res.locals.log as Logger | undefined)?.error({ err: auditError }, 'Audit entry not completed'),
          );
        answered.send();
      } catch (error) {
        if (trail) {
          // Below 500 the API refused and nothing changed; a 5xx may have changed something (a record
          // stored, its workflow not started), so it is recorded as failed, not as refused.
          const known = error instanceof ApiError;
          const status = known ? error.status : 500;
          await trail
            .finish(
              options.db,
              status < 500 ? 'refused' : 'failed',
              status,
              known ? error.code : 'internal_error',
            )
            .catch((auditError: unknown) =>
              (res.locals.log as Logger | undefined)?.error({ err: auditError }, 'Audit entry not written'),
            );
        }
        throw error;
      }
    });
    router[route.method](route.path, ...handlers);
  }
}

/**
 * On an audited route, a body the parser refuses (not JSON, a raw control byte, too large) is refused by
 * the route's own handler, so the refusal is recorded like any other; the body itself is not kept.
 */
function recordingBodyErrors(parser: express.RequestHandler): express.RequestHandler {
  return (req, res, next) =>
    parser(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const known = fromParserError(error as { type?: string; status?: number; limit?: number });
      if (!known) return next(error);
      res.locals.bodyError = known;
      req.body = undefined;
      next();
    });
}

/** A create's own id, named by its body (`paymentId`, `subscriptionId`…), for the audit entry. */
function idInBody(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return null;
  const entry = Object.entries(body).find(
    ([name, value]) => /^[a-z]+Id$/.test(name) && typeof value === 'string',
  );
  return (entry?.[1] as string | undefined) ?? null;
}

/** The audit trail of a route that declares none: notes go nowhere. */
const NO_TRAIL: AuditTrail = {
  note: () => undefined,
  recordIn: async () => undefined,
  answered: () => undefined,
};

/** The handler's answer, not sent yet: the mount completes the audit entry first. */
interface Answered {
  status: number;
  send(): void;
}

/**
 * Validates, then runs the handler (idempotently when asked) once `beforeActing` has resolved (the audit
 * entry is written by then); answers what to send.
 */
async function answer(
  route: AnyRoute,
  req: Request,
  res: Response,
  options: MountOptions,
  audit: AuditTrail,
  beforeActing: () => Promise<void>,
): Promise<Answered> {
  // Before anything is written or started. Raw bodies have their own rules: a notification is verified
  // over its raw values, then normalised (api/ipn/receiver.ts); a payout file's cells are checked by row.
  refuseUnsafeText({
    path: req.params,
    query: req.query,
    // The one header payrun stores as given (X-Request-Id is replaced when it is not plain ASCII).
    ...(req.header('idempotency-key') === undefined
      ? {}
      : { header: { 'Idempotency-Key': req.header('idempotency-key') } }),
    ...(route.rawBody ? {} : { body: req.body }),
  });
  const query = parse('query', route.query, req.query);
  const params = parse('path', route.params, req.params);
  const streamed = route.rawBody?.read ? await route.rawBody.read(req, query) : undefined;
  const ctx = {
    body: streamed
      ? streamed.body
      : route.rawBody
        ? Buffer.isBuffer(req.body)
          ? req.body
          : Buffer.alloc(0)
        : parse('body', route.body, req.body ?? {}),
    query,
    params,
    principal: res.locals.principal as Principal,
    log: res.locals.log as Logger,
    req,
    res,
    audit,
  };
  const status = route.responseStatus ?? (route.method === 'post' ? 201 : 200);
  const idempotencyKey = req.header('idempotency-key');
  if (route.idempotent === 'required' && idempotencyKey === undefined) {
    throw new ApiError(
      'idempotency_key_required',
      'This request moves money and payrun gives it its identity, so it needs an Idempotency-Key header: a retry with the same key returns the first answer instead of paying twice.',
      {
        problems: [
          {
            field: 'header.Idempotency-Key',
            rule: 'required',
            message: 'required on this create (1 to 255 visible ASCII characters)',
          },
        ],
      },
    );
  }
  await beforeActing();
  if (route.idempotent && idempotencyKey !== undefined) {
    const stored = await runIdempotently(
      options.db,
      {
        keyId: ctx.principal.keyId,
        idempotencyKey,
        method: route.method,
        path: req.path,
        // A file is fingerprinted by its hash, not carried whole into the comparison.
        body: streamed
          ? streamed.fingerprint
          : Buffer.isBuffer(ctx.body)
            ? createHash('sha256').update(ctx.body).digest('hex')
            : req.body,
      },
      async (create) => {
        const result = await route.handler({ ...ctx, create });
        if (result.contentType) throw new ApiError('internal_error', 'Idempotent routes answer JSON.');
        return { status: result.status ?? status, body: result.body };
      },
    );
    if (stored.replayed) {
      res.setHeader('Idempotent-Replayed', 'true');
      audit.note({ details: { replayed: true } });
    }
    audit.answered(stored.body);
    return {
      status: stored.status,
      send: () => send(res, { status: stored.status, body: stored.body }, status),
    };
  }
  const result = await route.handler(ctx);
  audit.answered(result.body);
  return { status: result.status ?? status, send: () => send(res, result, status) };
}
