import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { MerchantCredentials, RsaKeyPair } from './options';

/** The sandbox's RSA key pair (gateway side): 2048-bit, SPKI public key and PKCS#8 private key, PEM. */
export function generateSandboxKeyPair(): RsaKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** Fresh merchant credentials; the secret key is 32 ASCII characters so that AES-256 can use it. */
export function generateMerchantCredentials(): MerchantCredentials {
  return {
    partnerCode: `SANDBOX${randomBytes(3).toString('hex').toUpperCase()}`,
    accessKey: randomBytes(8).toString('hex'),
    secretKey: randomBytes(16).toString('hex'),
  };
}

export interface SandboxIdentity {
  merchant: MerchantCredentials;
  keyPair: RsaKeyPair;
  /** Where the identity is stored (give this path to whoever configures the merchant side). */
  file: string;
}

export const IDENTITY_FILE_NAME = 'sandbox.json';

/**
 * Loads `<dir>/sandbox.json` (merchant credentials + key pair), creating it with mode 0600 on first
 * use, so the dev stack and the API configured against it agree across restarts.
 */
export function loadOrCreateSandboxIdentity(dir: string): SandboxIdentity {
  const file = path.resolve(dir, IDENTITY_FILE_NAME);
  if (fs.existsSync(file)) {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SandboxIdentity>;
    if (!isIdentity(stored))
      throw new Error(`${file} is not a sandbox identity; delete it to create a new one`);
    return { merchant: stored.merchant, keyPair: stored.keyPair, file };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const identity = { merchant: generateMerchantCredentials(), keyPair: generateSandboxKeyPair() };
  // 'wx' refuses to overwrite an identity another process wrote in the meantime.
  try {
    fs.writeFileSync(file, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSandboxIdentity(dir);
    throw error;
  }
  return { ...identity, file };
}

function isIdentity(value: Partial<SandboxIdentity>): value is SandboxIdentity {
  const m = value.merchant;
  const k = value.keyPair;
  return (
    typeof m?.partnerCode === 'string' &&
    typeof m.accessKey === 'string' &&
    typeof m.secretKey === 'string' &&
    typeof k?.publicKeyPem === 'string' &&
    typeof k.privateKeyPem === 'string'
  );
}
