/**
 * The Temporal UI passes the person's access token to the codec (TEMPORAL_CODEC_PASS_ACCESS_TOKEN). It is
 * checked here like any resource server checks one: signature against the issuer's published keys,
 * issuer, audience (payrun's), expiry; and the person must not be offboarded. Roles come from the token's
 * groups through the same mapping as a console sign-in.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Db } from '../../db/shared/knex';
import { findPerson, personIdOf } from '../../db/identity/people';
import type { Principal } from '../auth/roles';
import type { ProviderClient } from './provider-client';
import { rolesFromClaims } from './role-mapping';
import type { IdentitySettings } from './settings';

/** A compact JWS: three base64url parts. API keys (`prk_…`) never look like one. */
export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

export type VerifyAccessToken = (token: string) => Promise<Principal | undefined>;

export function accessTokenVerifier(deps: {
  db: Db;
  settings: IdentitySettings;
  provider: ProviderClient;
}): VerifyAccessToken {
  let keys: JWTVerifyGetKey | undefined;
  return async (token) => {
    keys ??= createRemoteJWKSet(new URL(await deps.provider.jwksUri()));
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: deps.settings.issuer,
        audience: deps.settings.audience,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch {
      return undefined;
    }
    const subject = payload.sub as string;
    const personId = personIdOf(deps.settings.issuer, subject);
    const person = await findPerson(deps.db, personId);
    if (person?.removed_at) return undefined;
    return {
      keyId: personId,
      name: typeof payload.name === 'string' ? payload.name : (person?.name ?? subject),
      roles: rolesFromClaims(payload, deps.settings.roleClaim, deps.settings.roleMap),
      personId,
    };
  };
}
