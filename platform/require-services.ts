import { ConfigError, type Config } from './config';

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
