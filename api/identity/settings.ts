/** How the API signs people in: the provider, the client it is there, and the session's timeouts. */
import { ConfigError, type Config } from '../../platform/config';
import { parseRoleMap, type RoleMap } from './role-mapping';

export interface IdentitySettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The audience the provider's access tokens carry for payrun (the codec checks it). */
  audience: string;
  roleClaim: string;
  roleMap: RoleMap;
  idleSeconds: number;
  maxSeconds: number;
  /**
   * A session whose person was confirmed at the provider longer ago than this is confirmed again (a token
   * refresh) on its next request; the sweep confirms every owner of an active key every `sweepSeconds`.
   */
  recheckSeconds: number;
  sweepSeconds: number;
  /** payrun's own public address: the provider sends the browser back to `<base>/auth/callback`. */
  publicBaseUrl: string;
  /** Development only: the issuer is plain http (the embedded provider on this machine). */
  allowHttpIssuer: boolean;
}

/** Undefined when OIDC_ISSUER is unset: the console then offers no sign-in, API keys still work. */
export function identitySettingsFrom(config: Config, publicBaseUrl: string): IdentitySettings | undefined {
  if (!config.OIDC_ISSUER) return undefined;
  if (!config.OIDC_CLIENT_SECRET) {
    throw new ConfigError('OIDC_CLIENT_SECRET is missing: the API signs people in as a confidential client.');
  }
  const { map, problems } = parseRoleMap(config.OIDC_ROLE_MAP);
  if (problems.length) throw new ConfigError(`OIDC_ROLE_MAP: ${problems.join('; ')}`);
  const issuerUrl = new URL(config.OIDC_ISSUER);
  return {
    issuer: config.OIDC_ISSUER,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    audience: config.OIDC_AUDIENCE,
    roleClaim: config.OIDC_ROLE_CLAIM,
    roleMap: map,
    idleSeconds: config.SESSION_IDLE_MINUTES * 60,
    maxSeconds: config.SESSION_MAX_HOURS * 3600,
    recheckSeconds: config.SESSION_RECHECK_MINUTES * 60,
    sweepSeconds: config.IDENTITY_RECHECK_MINUTES * 60,
    publicBaseUrl,
    allowHttpIssuer: issuerUrl.protocol === 'http:',
  };
}
