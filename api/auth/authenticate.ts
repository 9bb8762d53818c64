import type { Request, RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { findActiveApiKey, touchApiKey, useIsWorthRecording, type ApiKeyRow } from '../../db/shared/api-keys';
import type { Db } from '../../db/shared/knex';
import { findPerson } from '../../db/identity/people';
import { useSession } from '../../db/identity/sessions';
import { CSRF_HEADER, needsCsrfToken, sessionIdOf } from '../identity/session-cookie';
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
      const sessionId = req.header('authorization') === undefined ? sessionIdOf(req) : undefined;
      if (sessionId) {
        res.locals.principal = await sessionPrincipal(db, req, sessionId, limits);
        return next();
      }
      limits?.refuseAuthFailure(req);
      throw unauthorized(
        req.header('x-api-key') !== undefined
          ? 'X-API-Key is not accepted: pass the key as Authorization: Bearer <key>.'
          : undefined,
      );
    }
    const row = await findActiveApiKey(db, key);
    const principal = row && (await keyPrincipal(db, row));
    if (!row || !principal) {
      limits?.refuseAuthFailure(req);
      throw unauthorized('The API key is unknown or revoked.');
    }
    limits?.perKey(row.key_id);
    res.locals.principal = principal;
    // Attribution, not security: a failed write here must not refuse the request.
    if (useIsWorthRecording(row.last_used_at, new Date())) touchApiKey(db, row.key_id).catch(() => {});
    next();
  };
}

/**
 * A key a person owns acts as that person (four eyes see one person whichever way they come in) and
 * stops with them: a removed person's keys are refused even if one escaped revocation.
 */
async function keyPrincipal(db: Db, row: ApiKeyRow): Promise<Principal | undefined> {
  const roles = row.roles.filter(isRole);
  if (row.owner_kind !== 'person' || !row.owner) return { keyId: row.key_id, name: row.name, roles };
  const person = await findPerson(db, row.owner);
  if (person?.removed_at) return undefined;
  return { keyId: row.owner, name: person?.name ?? row.name, roles, personId: row.owner };
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * The person behind the console's session cookie. A mutating request must echo the session's CSRF token:
 * the cookie alone proves only that a browser holding it sent the request, not that payrun's page did.
 */
async function sessionPrincipal(
  db: Db,
  req: Request,
  sessionId: string,
  limits?: RateLimits,
): Promise<Principal> {
  const session = await useSession(db, sessionId);
  if (!session) {
    limits?.refuseAuthFailure(req);
    throw unauthorized('The session has ended (signed out, timed out or removed): sign in again.');
  }
  if (needsCsrfToken(req.method)) {
    const given = req.header(CSRF_HEADER) ?? '';
    if (!timingSafeEqual(digest(given), digest(session.csrf_token))) {
      throw forbidden(`A request made with the session cookie must carry its CSRF token in ${CSRF_HEADER}.`);
    }
  }
  limits?.perKey(session.person_id);
  return {
    keyId: session.person_id,
    name: session.name,
    roles: session.roles.filter(isRole),
    personId: session.person_id,
    viaSession: true,
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
