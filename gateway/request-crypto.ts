import { rsaDecryptJson, rsaDecryptText, rsaEncrypt, type KeyInput } from './crypto';
import { operationSpec, type OperationName } from './operations';
import type { EncryptedField } from './operations/types';

/**
 * Applies the table's `encrypted` fields to a whole request: the client encrypts plaintext before
 * signing; the sandbox decrypts after verifying. String payloads (paymentCode) travel as raw text,
 * object payloads as compact JSON.
 */

function encryptedEntries(operation: OperationName): [string, EncryptedField][] {
  return Object.entries(operationSpec(operation).request).filter(
    (entry): entry is [string, EncryptedField] => entry[1].kind === 'encrypted',
  );
}

export function encryptRequestFields(
  operation: OperationName,
  plain: Readonly<Record<string, unknown>>,
  publicKey: KeyInput,
): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...plain };
  for (const [name] of encryptedEntries(operation)) {
    if (wire[name] !== undefined && wire[name] !== null) wire[name] = rsaEncrypt(wire[name], publicKey);
  }
  return wire;
}

export function decryptRequestFields(
  operation: OperationName,
  wire: Readonly<Record<string, unknown>>,
  privateKey: KeyInput,
): Record<string, unknown> {
  const plain: Record<string, unknown> = { ...wire };
  for (const [name, field] of encryptedEntries(operation)) {
    const ciphertext = wire[name];
    if (typeof ciphertext !== 'string' || ciphertext === '') continue;
    plain[name] =
      field.payload.kind === 'string'
        ? rsaDecryptText(ciphertext, privateKey)
        : rsaDecryptJson(ciphertext, privateKey);
  }
  return plain;
}
