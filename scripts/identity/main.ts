/**
 * payrun's own identity provider as its own process (compose's `identity` service, or by hand):
 * `tsx scripts/identity/main.ts`. It answers at OIDC_ISSUER (the address browsers and the API both reach)
 * on IDENTITY_PORT, listening on API_HOST, and registers payrun's console as its client
 * (OIDC_CLIENT_ID / OIDC_CLIENT_SECRET, redirecting to PUBLIC_BASE_URL), and the Temporal UI's when
 * IDENTITY_TEMPORAL_UI_CLIENT_SECRET and TEMPORAL_UI_URL are set. Keys persist in PAYRUN_DATA_DIR.
 */
import { ConfigError, loadConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { launchIdentity, temporalUiClient } from '../../platform/identity/launch';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'payrun-identity');
  // A separate API must be given the same secret and password: generating them here would hide a mismatch.
  for (const name of [
    'OIDC_ISSUER',
    'OIDC_CLIENT_SECRET',
    'IDENTITY_DEMO_PASSWORD',
    'PUBLIC_BASE_URL',
  ] as const) {
    if (!config[name]) throw new ConfigError(`${name} is required by the standalone identity provider.`);
  }
  const launched = await launchIdentity(config, {
    host: config.API_HOST,
    apiBaseUrl: config.PUBLIC_BASE_URL!,
    extraClients: [temporalUiClient(config)].filter((client) => client !== undefined),
  });
  log.info({ issuer: launched.issuer, port: config.IDENTITY_PORT }, 'Identity provider listening');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      void launched.close().then(() => process.exit(0));
    });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
