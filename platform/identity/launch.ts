/**
 * payrun's own provider as `npm run dev`, the cluster and compose start it, from the configuration:
 * its people (IDENTITY_PEOPLE_FILE, or the demo people), their password (IDENTITY_DEMO_PASSWORD, or one
 * generated into the data folder) and payrun's console as its client (OIDC_CLIENT_ID / OIDC_CLIENT_SECRET).
 */
import path from 'node:path';
import type { Config } from '../config';
import { resolveDevSecret } from '../dev-secret';
import { DEMO_PEOPLE, fileDirectory, memoryDirectory } from './people';
import type { ProviderClient } from './provider';
import { startIdentityServer, type IdentityServer } from './server';
import { resolveProviderKeys } from './signing-keys';

const SECRET_PATTERN = /^[\x21-\x7e]{16,256}$/;

export interface LaunchedIdentity extends IdentityServer {
  clientSecret: string;
  password: string;
}

/** The client secret and password `npm run dev` generates once when none is configured. */
export function resolveDevIdentitySecrets(config: Config): { clientSecret: string; password: string } {
  return {
    clientSecret: resolveDevSecret({
      configured: config.OIDC_CLIENT_SECRET,
      dataDir: config.PAYRUN_DATA_DIR,
      file: 'oidc-client-secret',
      pattern: SECRET_PATTERN,
    }),
    password: resolveDevSecret({
      configured: config.IDENTITY_DEMO_PASSWORD,
      dataDir: config.PAYRUN_DATA_DIR,
      file: 'identity-demo-password',
      pattern: SECRET_PATTERN,
    }),
  };
}

/** The Temporal UI server's client id at payrun's own provider. */
export const TEMPORAL_UI_CLIENT_ID = 'temporal-ui';

/**
 * The Temporal UI's client, when the provider is given its secret and the UI's address (the cluster and
 * compose): the UI signs people in here and passes their access token to payrun's codec.
 */
export function temporalUiClient(config: Config): ProviderClient | undefined {
  if (!config.IDENTITY_TEMPORAL_UI_CLIENT_SECRET || !config.TEMPORAL_UI_URL) return undefined;
  return {
    clientId: TEMPORAL_UI_CLIENT_ID,
    clientSecret: config.IDENTITY_TEMPORAL_UI_CLIENT_SECRET,
    redirectUris: [new URL('/auth/sso/callback', config.TEMPORAL_UI_URL).href],
    withoutPkce: true,
  };
}

export async function launchIdentity(
  config: Config,
  options: {
    host: string;
    /** Where payrun's API is reached by browsers: the console's redirect and post-logout addresses. */
    apiBaseUrl: string;
    /** More clients of the same provider (the Temporal UI of the cluster and compose). */
    extraClients?: ProviderClient[];
  },
): Promise<LaunchedIdentity> {
  const { clientSecret, password } = resolveDevIdentitySecrets(config);
  const issuer = config.OIDC_ISSUER ?? `http://127.0.0.1:${config.IDENTITY_PORT}`;
  const server = await startIdentityServer({
    host: options.host,
    port: config.IDENTITY_PORT,
    issuer,
    audience: config.OIDC_AUDIENCE,
    directory: config.IDENTITY_PEOPLE_FILE
      ? fileDirectory(config.IDENTITY_PEOPLE_FILE)
      : memoryDirectory(DEMO_PEOPLE),
    password,
    keys: await resolveProviderKeys(config.PAYRUN_DATA_DIR),
    // Beside its keys: a restart must not forget refresh tokens (a forgotten one reads as a person removed).
    tokenFile: path.join(config.PAYRUN_DATA_DIR, 'identity-tokens.json'),
    clients: [
      {
        clientId: config.OIDC_CLIENT_ID,
        clientSecret,
        redirectUris: [new URL('/auth/callback', options.apiBaseUrl).href],
        postLogoutRedirectUris: [new URL('/console', options.apiBaseUrl).href],
      },
      ...(options.extraClients ?? []),
    ],
  });
  return { ...server, clientSecret, password };
}
