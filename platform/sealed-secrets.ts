/**
 * Secrets kept at rest in PostgreSQL (saved-method and subscription tokens): AES-256-GCM under the
 * payload codec's keyring, so one configuration and one rotation cover workflow payloads and stored
 * tokens alike. Sealed text is `<keyId>.<base64(iv | tag | ciphertext)>`; the `context` (for example the
 * owning row's id) is authenticated data, so a ciphertext copied to another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CodecKeyring } from './payload-codec';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealSecret(plaintext: string, keyring: CodecKeyring, context: string): string {
  const key = keyring.keys.get(keyring.currentKeyId);
  if (!key) throw new Error(`Key ${keyring.currentKeyId} is missing from the keyring`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${keyring.currentKeyId}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function openSecret(sealed: string, keyring: CodecKeyring, context: string): string {
  const dot = sealed.indexOf('.');
  const keyId = sealed.slice(0, dot);
  const key = keyring.keys.get(keyId);
  if (dot < 1 || !key) throw new Error(`Key ${keyId || '(none)'} of a sealed secret is not in the keyring`);
  const bytes = Buffer.from(sealed.slice(dot + 1), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(
    Buffer.from(context, 'utf8'),
  );
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    'utf8',
  );
}
