/**
 * Encryption of every workflow and activity payload (DESIGN decision 6): Temporal's server, its
 * database and anyone reading history without the codec see only ciphertext.
 *
 * Encoded payload layout:
 *   metadata.encoding          = "binary/encrypted"
 *   metadata.encryption-key-id = id of the key that sealed it (so rotated keys still decode)
 *   data                       = iv (12 bytes) | ciphertext | GCM auth tag (16 bytes)
 * The plaintext is the whole original Payload proto (metadata and data), so the original encoding
 * is hidden too. The key id is the GCM additional authenticated data: relabelling a payload with
 * another key id fails authentication instead of silently trying the wrong key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ConfigError } from './config';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA_KEY = 'encryption-key-id';
export const CODEC_KEYS_VARIABLE = 'PAYLOAD_CODEC_KEYS';
export const CODEC_KEY_ID_VARIABLE = 'PAYLOAD_CODEC_KEY_ID';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Ids travel in metadata and in `id:key,id:key` configuration, so keep them free of separators.
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface CodecKeyring {
  /** The key new payloads are sealed with. */
  currentKeyId: string;
  /** Every key that may still be needed to open old payloads, the current one included. */
  keys: ReadonlyMap<string, Buffer>;
}

/** A payload that cannot be opened: unknown key, tampered or truncated data. Never carries key material. */
export class PayloadCodecError extends Error {
  override readonly name = 'PayloadCodecError';
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

export interface PayloadCodecOptions {
  /**
   * Refuse (throw on) a payload that is not encrypted instead of passing it through. Workers and
   * clients set it (`createDataConverter`): a workflow started in plaintext by anyone who reaches the
   * Temporal frontend must not run. The UI's codec endpoint leaves it off: showing a plaintext payload
   * decrypts nothing. Search attributes and headers never pass through a codec (Temporal reads them).
   */
  refuseUnencrypted?: boolean;
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keyring: CodecKeyring;
  private readonly refuseUnencrypted: boolean;

  constructor(keyring: CodecKeyring, options: PayloadCodecOptions = {}) {
    this.refuseUnencrypted = options.refuseUnencrypted ?? false;
    for (const [id, key] of keyring.keys) {
      if (key.length !== KEY_BYTES) {
        throw new PayloadCodecError(`Codec key "${id}" has ${key.length} bytes; AES-256 needs ${KEY_BYTES}`);
      }
    }
    if (!keyring.keys.has(keyring.currentKeyId)) {
      throw new PayloadCodecError(`The current codec key "${keyring.currentKeyId}" is not in the keyring`);
    }
    this.keyring = keyring;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (isEncrypted(payload)) return this.open(payload);
      if (this.refuseUnencrypted) throw unencryptedPayloadError(payload);
      return payload;
    });
  }

  private seal(payload: Payload): Payload {
    const keyId = this.keyring.currentKeyId;
    const key = this.keyring.keys.get(keyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(utf8(keyId));
    const plaintext = ProtoPayload.encode(payload).finish();
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA_KEY]: utf8(keyId) },
      data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
    };
  }

  private open(payload: Payload): Payload {
    const keyIdBytes = payload.metadata?.[KEY_ID_METADATA_KEY];
    if (!keyIdBytes) throw new PayloadCodecError(`Encrypted payload has no ${KEY_ID_METADATA_KEY} metadata`);
    const keyId = Buffer.from(keyIdBytes).toString('utf8');
    const key = this.keyring.keys.get(keyId);
    if (!key) {
      throw new PayloadCodecError(
        `Encrypted payload uses codec key "${keyId}", which is not in the keyring ` +
          `(known: ${[...this.keyring.keys.keys()].join(', ')}); add it to ${CODEC_KEYS_VARIABLE}`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new PayloadCodecError(`Encrypted payload (key "${keyId}") is truncated: ${data.length} bytes`);
    }
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const ciphertext = data.subarray(IV_BYTES, data.length - TAG_BYTES);
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(keyIdBytes);
    decipher.setAuthTag(tag);
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw new PayloadCodecError(
        `Encrypted payload (key "${keyId}") failed authentication: it was altered or sealed with another key`,
      );
    }
    // The decoded message keeps every Payload field, including ones newer SDKs may add.
    return ProtoPayload.decode(plaintext);
  }
}

/** Names the encoding it found, never the data. */
export function unencryptedPayloadError(payload: Payload): PayloadCodecError {
  const encoding = payload.metadata?.encoding;
  const found = encoding ? Buffer.from(encoding).toString('utf8').slice(0, 40) : 'none';
  return new PayloadCodecError(
    `Refused a payload that is not encrypted (encoding "${found}", expected "${ENCRYPTED_ENCODING}"): ` +
      `payrun accepts only payloads sealed by its payload codec; start and signal workflows through a ` +
      `client configured with payrun's data converter (${CODEC_KEYS_VARIABLE})`,
  );
}

function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return (
    encoding !== undefined && encoding !== null && Buffer.from(encoding).toString() === ENCRYPTED_ENCODING
  );
}

/**
 * Reads `PAYLOAD_CODEC_KEYS` (`id:base64,id:base64`) and `PAYLOAD_CODEC_KEY_ID`. Rotation: add the new
 * key to the list, make it current, and keep the old ones until no retained history uses them.
 * Messages name the variable and the key id, never key material.
 */
export function parseCodecKeys(keysText: string | undefined, currentId: string | undefined): CodecKeyring {
  const entries = (keysText ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    throw new ConfigError(`${CODEC_KEYS_VARIABLE} is missing: set it to keyId:base64Key[,keyId:base64Key…]`);
  }
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator === -1 ? '' : entry.slice(0, separator).trim();
    const encoded = separator === -1 ? '' : entry.slice(separator + 1).trim();
    const where = `${CODEC_KEYS_VARIABLE} entry ${index + 1}`;
    if (!id || !encoded) throw new ConfigError(`${where} is not in the form keyId:base64Key`);
    if (!KEY_ID_PATTERN.test(id)) {
      throw new ConfigError(`${where}: key id "${id}" may use only letters, digits, ".", "_" and "-" (1–64)`);
    }
    if (keys.has(id)) throw new ConfigError(`${CODEC_KEYS_VARIABLE}: key id "${id}" appears twice`);
    if (!BASE64_PATTERN.test(encoded))
      throw new ConfigError(`${CODEC_KEYS_VARIABLE}: key "${id}" is not base64`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new ConfigError(
        `${CODEC_KEYS_VARIABLE}: key "${id}" is ${key.length} bytes; AES-256 needs ${KEY_BYTES} (44 base64 characters)`,
      );
    }
    keys.set(id, key);
  });
  const current = currentId?.trim();
  if (!current) {
    throw new ConfigError(
      `${CODEC_KEY_ID_VARIABLE} is missing: set it to the id of the key that encrypts new payloads`,
    );
  }
  if (!keys.has(current)) {
    throw new ConfigError(
      `${CODEC_KEY_ID_VARIABLE} is "${current}", which is not among the ids in ${CODEC_KEYS_VARIABLE} (${[...keys.keys()].join(', ')})`,
    );
  }
  return { currentKeyId: current, keys };
}

/** A fresh `id:base64` entry for PAYLOAD_CODEC_KEYS; the id carries the creation date for operators. */
export function generateCodecKey(now: Date = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `k-${day}-${randomBytes(2).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

export const DEV_CODEC_KEYS_FILE = 'codec-keys.json';

interface DevKeysFile {
  currentKeyId: string;
  keys: Record<string, string>;
}

/**
 * `npm run dev` without PAYLOAD_CODEC_KEYS: a keyring generated once and kept next to the dev
 * databases, so workflows from earlier runs still decode after a restart.
 */
export function loadOrCreateDevCodecKeys(dataDir: string): CodecKeyring {
  const file = path.join(dataDir, DEV_CODEC_KEYS_FILE);
  if (fs.existsSync(file)) {
    let stored: DevKeysFile;
    try {
      stored = JSON.parse(fs.readFileSync(file, 'utf8')) as DevKeysFile;
    } catch (error) {
      throw new ConfigError(
        `${file} is not valid JSON (${(error as Error).message}); delete it to start over`,
      );
    }
    const text = Object.entries(stored.keys ?? {})
      .map(([id, key]) => `${id}:${key}`)
      .join(',');
    try {
      return parseCodecKeys(text, stored.currentKeyId);
    } catch (error) {
      throw new ConfigError(`${file} is unusable: ${(error as Error).message}`);
    }
  }
  const entry = generateCodecKey();
  const separator = entry.indexOf(':');
  const id = entry.slice(0, separator);
  const contents: DevKeysFile = { currentKeyId: id, keys: { [id]: entry.slice(separator + 1) } };
  fs.mkdirSync(dataDir, { recursive: true });
  // Written whole under a temporary name, so an interrupted start never leaves a half file behind.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(contents, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return parseCodecKeys(entry, id);
}

/**
 * The keyring a process runs with: the configured keys when set; otherwise, only when a dev data
 * folder is given (`npm run dev`), the persisted dev keyring. Standalone processes pass no folder,
 * so missing keys stop them at start-up.
 */
export function resolveCodecKeyring(options: {
  keysText: string | undefined;
  currentId: string | undefined;
  devDataDir?: string;
}): CodecKeyring {
  const configured = Boolean(options.keysText?.trim() || options.currentId?.trim());
  if (!configured && options.devDataDir) return loadOrCreateDevCodecKeys(options.devDataDir);
  return parseCodecKeys(options.keysText, options.currentId);
}
