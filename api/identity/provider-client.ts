/**
 * payrun as a confidential OpenID Connect client (openid-client): discovery from the issuer alone, so any
 * standards-conformant provider works by configuration. Discovery is retried on the next sign-in when the
 * provider was unreachable, so an API started before its provider recovers without a restart.
 */
import * as oidc from 'openid-client';
import type { IdentitySettings } from './settings';

export interface ProviderClient {
  configuration(): Promise<oidc.Configuration>;
  /** The provider's JWKS address, for verifying access tokens (the codec). */
  jwksUri(): Promise<string>;
}

export function providerClient(settings: IdentitySettings): ProviderClient {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        oidc.ClientSecretBasic(settings.clientSecret),
        settings.allowHttpIssuer ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };
  return {
    configuration,
    async jwksUri() {
      const uri = (await configuration()).serverMetadata().jwks_uri;
      if (!uri) throw new Error(`The provider at ${settings.issuer} publishes no jwks_uri`);
      return uri;
    },
  };
}
