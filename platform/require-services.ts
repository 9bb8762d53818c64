import { ConfigError, type Config } from './config';
import { DECISION_SIGNING_KEY_VARIABLE } from './decision-key';

/** Standalone processes (not `npm run dev`) never start local services: these settings must be given. */
export function requireServices(config: Config): { databaseUrl: string; temporalAddress: string } {
  const missing = [
    !config.DATABASE_URL && 'DATABASE_URL (the PostgreSQL connection string)',
    !config.TEMPORAL_ADDRESS && 'TEMPORAL_ADDRESS (host:port of the Temporal frontend)',
  ].filter(Boolean);
  if (missing.length) {
    throw new ConfigError(
      `Missing configuration: ${missing.join('; ')}. npm run dev starts local ones instead.`,
    );
  }
  return { databaseUrl: config.DATABASE_URL!, temporalAddress: config.TEMPORAL_ADDRESS! };
}

export interface GatewaySettings {
  baseUrl: string;
  partnerCode: string;
  accessKey: string;
  secretKey: string;
  publicKey: string;
}

/** The real gateway's settings, all or nothing: a half-configured gateway would fail on the first payout. */
export function requireGateway(config: Config): GatewaySettings {
  const names = [
    'GATEWAY_BASE_URL',
    'GATEWAY_PARTNER_CODE',
    'GATEWAY_ACCESS_KEY',
    'GATEWAY_SECRET_KEY',
    'GATEWAY_PUBLIC_KEY',
  ] as const;
  const missing = names.filter((name) => !config[name]);
  if (missing.length) throw new ConfigError(`Missing gateway configuration: ${missing.join(', ')}.`);
  return {
    baseUrl: config.GATEWAY_BASE_URL!,
    partnerCode: config.GATEWAY_PARTNER_CODE!,
    accessKey: config.GATEWAY_ACCESS_KEY!,
    secretKey: config.GATEWAY_SECRET_KEY!,
    publicKey: config.GATEWAY_PUBLIC_KEY!.replaceAll('\\n', '\n'),
  };
}

/**
 * DECISION_SIGNING_KEY, which the API and every worker need (the same value): without it a decision that
 * moves money could be taken on the word of whoever reached the Temporal frontend, so neither starts.
 */
export function requireDecisionKey(config: Config, who: 'API' | 'worker'): string {
  if (config.DECISION_SIGNING_KEY) return config.DECISION_SIGNING_KEY;
  throw new ConfigError(
    `${DECISION_SIGNING_KEY_VARIABLE} is missing: the ${who} needs it (the same value in the API and every ` +
      'worker) to sign and verify decisions that move money; set it to 32 or more random characters ' +
      `(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))").`,
  );
}
