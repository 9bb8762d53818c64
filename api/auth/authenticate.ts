import type { RequestHandler } from 'express';
import { findActiveApiKey, touchApiKey } from '../../db/api-keys';
import type { Db } from '../../db/knex';
import { forbidden, unauthorized } from '../http/errors';
import { hasAnyRole, isRole, type Principal, type Role } from './roles';

function presentedKey(header: string | undefined, alternative: string | undefined): string | undefined {
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  return alternative?.trim() || undefined;
}

/** Resolves the caller from `Authorization: Bearer <key>` (or `X-API-Key`) and stores it in res.locals. */
export function authenticate(db: Db): RequestHandler {
  return async (req, res, next) => {
    const key = presentedKey(req.header('authorization'), req.header('x-api-key'));
    if (!key) throw unauthorized();
    const row = await findActiveApiKey(db, key);
    if (!row) throw unauthorized('The API key is unknown or revoked.');
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
export function requireRoles(db: Db, allowed: readonly Role[]): RequestHandler[] {
  return [
    authenticate(db),
    (_req, res, next) => {
      if (!hasAnyRole(principalOf(res.locals), allowed)) {
        throw forbidden(`This action needs one of the roles: ${['admin', ...allowed].join(', ')}.`);
      }
      next();
    },
  ];
}
