import { createHash } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../../platform/logger';
import type { Db } from '../../db/knex';
import { requireRoles } from '../auth/authenticate';
import type { Principal, Role } from '../auth/roles';
import { ApiError, invalidInput } from './errors';
import { refuseControlCharacters } from './control-characters';
import { runIdempotently, type CreateRequest } from './idempotency';
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
  summary: string;
  tag: string;
  access: Access;
  body?: Body;
  /**
   * The body as bytes instead of JSON (signed notifications), with its own size limit; or, with `read`,
   * streamed by the route itself (uploads: parsed off the event loop as they arrive). `read` answers the
   * handler's body and a fingerprint of the bytes for Idempotency-Key comparisons.
   */
  rawBody?: {
    contentType: string;
    limit: string;
    read?(req: Request): Promise<{ body: unknown; fingerprint: string }>;
  };
  query?: Query;
  params?: Params;
  response?: z.ZodType;
  responseStatus?: number;
  /** Create endpoints: honour `Idempotency-Key`. */
  idempotent?: boolean;
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

/** Unknown fields are refused: an object schema is made strict at its top level. */
function strict(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodObject ? schema.strict() : schema;
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
    if ('roles' in route.access)
      handlers.push(...requireRoles(options.db, route.access.roles, options.limits));
    if (route.rawBody?.read) {
      // The route reads the stream itself, after authentication, so strangers never occupy a parser.
    } else if (route.rawBody) {
      handlers.push(express.raw({ type: () => true, limit: route.rawBody.limit }));
    } else if (route.method !== 'get' && route.method !== 'delete') {
      handlers.push(express.json({ limit: options.jsonLimit, strict: true, type: () => true }));
    }
    handlers.push(async (req, res) => {
      refuseControlCharacters({
        path: req.params,
        query: req.query,
        ...(route.rawBody ? {} : { body: req.body }),
      });
      const query = parse('query', route.query, req.query);
      const params = parse('path', route.params, req.params);
      const streamed = route.rawBody?.read ? await route.rawBody.read(req) : undefined;
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
      };
      const status = route.responseStatus ?? (route.method === 'post' ? 201 : 200);
      const idempotencyKey = req.header('idempotency-key');
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
            if (result.contentType)
              throw new ApiError(500, 'internal_error', 'Idempotent routes answer JSON.');
            return { status: result.status ?? status, body: result.body };
          },
        );
        if (stored.replayed) res.setHeader('Idempotent-Replayed', 'true');
        send(res, { status: stored.status, body: stored.body }, status);
        return;
      }
      send(res, await route.handler(ctx), status);
    });
    router[route.method](route.path, ...handlers);
  }
}
