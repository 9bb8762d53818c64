/**
 * The provider's signing key and cookie keys, generated once into the data folder (0600) and read back on
 * every start: tokens and provider sessions issued before a restart still verify after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

export interface ProviderKeys {
  /** Private JWKs (RS256) the provider signs ID and access tokens with; the first one signs. */
  jwks: { keys: JWK[] };
  /** Keys of the provider's own signed cookies. */
  cookieKeys: string[];
}

function isProviderKeys(value: unknown): value is ProviderKeys {
  const keys = value as Partial<ProviderKeys> | null;
  return (
    Array.isArray(keys?.jwks?.keys) &&
    keys.jwks.keys.length > 0 &&
    Array.isArray(keys.cookieKeys) &&
    keys.cookieKeys.length > 0
  );
}

export async function resolveProviderKeys(dataDir: string): Promise<ProviderKeys> {
  const file = path.join(dataDir, 'identity-keys.json');
  if (fs.existsSync(file)) {
    const stored: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isProviderKeys(stored)) return stored;
  }
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = {
    ...(await exportJWK(privateKey)),
    kid: randomBytes(8).toString('hex'),
    alg: 'RS256',
    use: 'sig',
  };
  const keys: ProviderKeys = { jwks: { keys: [jwk] }, cookieKeys: [randomBytes(32).toString('base64url')] };
  fs.mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(keys), { mode: 0o600 });
  fs.renameSync(temporary, file);
  return keys;
}
