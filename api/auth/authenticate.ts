import type { RequestHandler } from 'express';
import { findActiveApiKey, touchApiKey } from '../../db/shared/api-keys';
import type { Db } from '../../db/shared/knex';
import { forbidden, unauthorized } from '../http/errors';
import type { RateLimits } from '../http/rate-limits';
import { hasAnyRole, isRole, type Principal, type Role } from './roles';

/** The one documented way to pass a key: `Authorization: Bearer <key>`. */
function presentedKey(header: string | undefined): string | undefined {
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim() || undefined;
  return undefined;
}

/**
 * Resolves the caller from `Authorization: Bearer <key>` (the only way; an `X-API-Key` header is refused
 * with a message saying so) and stores it in res.locals.
 * With rate limits: every failure counts against the address, and past its budget a failure is answered
 * 429 instead of 401; a valid key is always heard and spends one of its own requests. Refusing the address
 * outright would let one careless client behind a shared proxy lock out every other client of it. Guessing
 * stays hopeless: a secret has 256 bits, a malformed key is refused without a lookup, and every attempt
 * spends a token of the address's own budget.
 */
export function authenticate(db: Db, limits?: RateLimits): RequestHandler {
  return async (req, res, next) => {
    const key = presentedKey(req.header('authorization'));
    if (!key) {
      limits?.refuseAuthFailure(req);
      throw unauthorized(
        req.header('x-api-key') !== undefined
          ? 'X-API-Key is not accepted: pass the key as Authorization: Bearer <key>.'
          : undefined,
      );
    }
    const row = await findActiveApiKey(db, key);
    if (!row) {
      limits?.refuseAuthFailure(req);
      throw unauthorized('The API key is unknown or revoked.');
    }
    limits?.perKey(row.key_id);
    const principal: Principal = { keyId: row.key_id, name: row.name, roles: row.roles.filter(isRole) };
    res.locals.principal = principal;
    // Attribution, not security: a failed write here must not refuse the request.
    touchApiKey(db, row.key_id).catch(() => {});
    next();
  };
}

export function principalOf(locals: Record<string, unknown>): Principal {
  const principal = locals.principal as Principal | undefined;
  if (!principal) throw unauthorized();
  return principal;
}

/** Authentication then a role check (admin always passes): the guard of every non-public endpoint. */
export function requireRoles(db: Db, allowed: readonly Role[], limits?: RateLimits): RequestHandler[] {
  return [
    authenticate(db, limits),
    (_req, res, next) => {
      if (!hasAnyRole(principalOf(res.locals), allowed)) {
        throw forbidden(`This action needs one of the roles: ${['admin', ...allowed].join(', ')}.`);
      }
      next();
    },
  ];
}
