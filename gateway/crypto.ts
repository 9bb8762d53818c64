import {
  constants,
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  privateDecrypt,
  publicEncrypt,
  type KeyObject,
} from 'node:crypto';
import { GatewayCryptoError } from './errors';

/**
 * RSA for sensitive request fields and AES for `aesToken`.
 *
 * RSA CHOICE (the spec says "padding, key format and output encoding: not shown"): the gateway is
 * recognisably MoMo's, which uses RSA with PKCS#1 v1.5 padding, an X.509 SubjectPublicKeyInfo public
 * key handed out as Base64 DER (we also accept PEM), and Base64 output. This constant is the one
 * place to change if that proves wrong.
 */
export const RSA_SCHEME = {
  padding: constants.RSA_PKCS1_PADDING,
  paddingName: 'PKCS#1 v1.5',
  outputEncoding: 'base64',
  publicKeyFormat: 'X.509 SubjectPublicKeyInfo (PEM or Base64 DER)',
  privateKeyFormat: 'PKCS#8 or PKCS#1 (PEM or Base64 DER)',
} as const;

/** PKCS#1 v1.5 needs 11 bytes of padding per block. */
const PKCS1_OVERHEAD = 11;

export type KeyInput = string | Buffer | KeyObject;

export function toPublicKey(key: KeyInput): KeyObject {
  return loadKey(key, 'public');
}

export function toPrivateKey(key: KeyInput): KeyObject {
  return loadKey(key, 'private');
}

function loadKey(key: KeyInput, kind: 'public' | 'private'): KeyObject {
  if (typeof key === 'object' && !Buffer.isBuffer(key)) return key;
  const textForm = Buffer.isBuffer(key) ? key.toString('latin1') : key;
  const expected = kind === 'public' ? RSA_SCHEME.publicKeyFormat : RSA_SCHEME.privateKeyFormat;
  const attempts: (() => KeyObject)[] = [];
  if (textForm.includes('-----BEGIN')) {
    attempts.push(() => (kind === 'public' ? createPublicKey(textForm) : createPrivateKey(textForm)));
  } else {
    // Base64 DER without armour (how the gateway portal hands keys out), or raw DER bytes.
    const der = /^[A-Za-z0-9+/=\s]+$/.test(textForm)
      ? Buffer.from(textForm.replace(/\s+/g, ''), 'base64')
      : Buffer.from(textForm, 'latin1');
    if (kind === 'public') {
      attempts.push(() => createPublicKey({ key: der, format: 'der', type: 'spki' }));
      attempts.push(() => createPublicKey({ key: der, format: 'der', type: 'pkcs1' }));
    } else {
      attempts.push(() => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
      attempts.push(() => createPrivateKey({ key: der, format: 'der', type: 'pkcs1' }));
    }
  }
  let lastError: unknown;
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (error) {
      lastError = error;
    }
  }
  throw new GatewayCryptoError(`cannot read the RSA ${kind} key (expected ${expected})`, {
    cause: lastError,
  });
}

/** Encrypts a JSON object (serialised compactly) or a string for the gateway. */
export function rsaEncrypt(value: unknown, publicKey: KeyInput): string {
  const key = toPublicKey(publicKey);
  const plaintext = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
  const capacity = modulusBytes(key) - PKCS1_OVERHEAD;
  if (plaintext.length > capacity) {
    throw new GatewayCryptoError(
      `RSA plaintext is ${plaintext.length} bytes; this key encrypts at most ${capacity}`,
    );
  }
  return publicEncrypt({ key, padding: RSA_SCHEME.padding }, plaintext).toString(RSA_SCHEME.outputEncoding);
}

/**
 * Decrypts what `rsaEncrypt` produced (sandbox side). Node 20 refuses PKCS#1 v1.5 in privateDecrypt
 * (Marvin attack hardening), so the padding is removed here; that leaks timing, which is acceptable
 * only because the private key belongs to a simulator, never to payrun's production path.
 */
export function rsaDecryptText(ciphertext: string, privateKey: KeyInput): string {
  const key = toPrivateKey(privateKey);
  let block: Buffer;
  try {
    block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, Buffer.from(ciphertext, 'base64'));
  } catch (cause) {
    throw new GatewayCryptoError('RSA decryption failed', { cause });
  }
  // EM = 0x00 || 0x02 || PS (≥8 non-zero bytes) || 0x00 || M
  const separator = block.indexOf(0, 2);
  if (block[0] !== 0 || block[1] !== 2 || separator < 10)
    throw new GatewayCryptoError('RSA padding is not PKCS#1 v1.5');
  return block.subarray(separator + 1).toString('utf8');
}

export function rsaDecryptJson(ciphertext: string, privateKey: KeyInput): unknown {
  const text = rsaDecryptText(ciphertext, privateKey);
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new GatewayCryptoError('RSA plaintext is not JSON', { cause });
  }
}

function modulusBytes(key: KeyObject): number {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (key.asymmetricKeyType !== 'rsa' || bits === undefined)
    throw new GatewayCryptoError('the gateway public key is not an RSA key');
  return Math.ceil(bits / 8);
}

// ---- AES (document 1, Authentication 6) --------------------------------------------------------

const ZERO_IV = Buffer.alloc(16);

/** AES-CBC with the secret key's UTF-8 bytes as key: its length picks AES-128/192/256. */
function aesAlgorithm(secretKey: string): { algorithm: string; key: Buffer } {
  const key = Buffer.from(secretKey, 'utf8');
  const algorithm = { 16: 'aes-128-cbc', 24: 'aes-192-cbc', 32: 'aes-256-cbc' }[key.length];
  if (!algorithm) {
    throw new GatewayCryptoError(
      `the secret key is ${key.length} bytes in UTF-8; AES needs 16, 24 or 32 (aesToken cannot be decrypted)`,
    );
  }
  return { algorithm, key };
}

/** `aesToken` (Base64) → the token payload JSON. PKCS#7 padding is Node's default (= PKCS#5 here). */
export function decryptAesToken(aesToken: string, secretKey: string): unknown {
  const { algorithm, key } = aesAlgorithm(secretKey);
  let text: string;
  try {
    const decipher = createDecipheriv(algorithm, key, ZERO_IV);
    text = Buffer.concat([decipher.update(Buffer.from(aesToken, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch (cause) {
    throw new GatewayCryptoError('aesToken cannot be decrypted with this secret key', { cause });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new GatewayCryptoError('decrypted aesToken is not JSON', { cause });
  }
}

/** The inverse, for the sandbox and tests. */
export function encryptAesToken(payload: unknown, secretKey: string): string {
  const { algorithm, key } = aesAlgorithm(secretKey);
  const cipher = createCipheriv(algorithm, key, ZERO_IV);
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]).toString('base64');
}
