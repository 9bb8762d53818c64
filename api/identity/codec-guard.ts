/**
 * Who is asking the codec: a person's access token from the Temporal UI (a JWT from the provider), a
 * person's console session, or an API key (a machine; admins only, as before). The answer's masking is
 * decided afterwards from the principal found here (payload-view.ts).
 */
import type { RequestHandler } from 'express';
import type { Db } from '../../db/shared/knex';
import type { RateLimits } from '../http/rate-limits';
import { unauthorized } from '../http/errors';
import { accessTokenVerifier, looksLikeJwt } from './access-tokens';
import type { ProviderClient } from './provider-client';
import { sessionIdOf } from './session-cookie';
import type { IdentitySettings } from './settings';

export function codecGuard(deps: {
  db: Db;
  identity?: { settings: IdentitySettings; provider: ProviderClient };
  /** API keys: the admin-only check every other key caller of the codec passes. */
  keys: RequestHandler;
  /** The console's session (cookie and CSRF token). */
  session: RequestHandler;
  limits?: RateLimits;
}): RequestHandler {
  const verify = deps.identity ? accessTokenVerifier({ db: deps.db, ...deps.identity }) : undefined;
  return async (req, res, next) => {
    const header = req.header('authorization');
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    if (verify && bearer && looksLikeJwt(bearer)) {
      const principal = await verify(bearer);
      if (!principal) {
        deps.limits?.refuseAuthFailure(req);
        throw unauthorized(
          'The access token is not valid here (signature, issuer, audience or expiry), or its person was offboarded.',
        );
      }
      res.locals.principal = principal;
      return next();
    }
    if (header === undefined && sessionIdOf(req)) return deps.session(req, res, next);
    return deps.keys(req, res, next);
  };
}
