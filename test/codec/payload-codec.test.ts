import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createDataConverter } from '../../platform/data-converter';
import {
  AesGcmPayloadCodec,
  DEV_CODEC_KEYS_FILE,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  generateCodecKey,
  loadOrCreateDevCodecKeys,
  parseCodecKeys,
  resolveCodecKeyring,
  type CodecKeyring,
} from '../../platform/payload-codec';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const ringA: CodecKeyring = { currentKeyId: 'key-a', keys: new Map([['key-a', keyA]]) };
const ringAB: CodecKeyring = {
  currentKeyId: 'key-b',
  keys: new Map([
    ['key-a', keyA],
    ['key-b', keyB],
  ]),
};

const secret = { walletId: 'wallet-0912345678', walletName: 'Nguyen Van An', token: 'tok_live_9f8e7d' };
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const text = (bytes: Uint8Array | null | undefined) =>
  Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

describe('AesGcmPayloadCodec', () => {
  it('round-trips payloads and hides their contents and original encoding', async () => {
    const codec = new AesGcmPayloadCodec(ringA);
    const originals = [plain(secret), plain(null), plain('')];
    const encoded = await codec.encode(originals);

    for (const payload of encoded) {
      expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.metadata?.[KEY_ID_METADATA_KEY])).toBe('key-a');
      expect(Object.keys(payload.metadata ?? {})).toHaveLength(2);
    }
    const sealed = Buffer.from(encoded[0]!.data!);
    for (const value of [...Object.values(secret), 'json/plain']) expect(sealed.includes(value)).toBe(false);

    const decoded = await codec.decode(encoded);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      secret,
      null,
      '',
    ]);
    expect(text(decoded[0]!.metadata?.encoding)).toBe('json/plain');
  });

  it('uses a fresh IV for every payload', async () => {
    const codec = new AesGcmPayloadCodec(ringA);
    const [first, second] = await codec.encode([plain(secret), plain(secret)]);
    expect(Buffer.from(first!.data!).equals(Buffer.from(second!.data!))).toBe(false);
    expect(Buffer.from(first!.data!).subarray(0, 12).equals(Buffer.from(second!.data!).subarray(0, 12))).toBe(
      false,
    );
  });

  it('rejects tampered ciphertext, tag and key-id labels', async () => {
    const codec = new AesGcmPayloadCodec(ringAB);
    const [sealed] = await codec.encode([plain(secret)]);
    const flip = (at: number): Payload => {
      const data = Buffer.from(sealed!.data!);
      data[at]! ^= 0x01;
      return { ...sealed, data };
    };
    await expect(codec.decode([flip(20)])).rejects.toThrow(/key "key-b".*failed authentication/);
    await expect(codec.decode([flip(sealed!.data!.length - 1)])).rejects.toThrow(/failed authentication/);
    const relabelled = {
      ...sealed,
      metadata: { ...sealed!.metadata, [KEY_ID_METADATA_KEY]: Buffer.from('key-a') },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow(/key "key-a".*failed authentication/);
    await expect(codec.decode([{ ...sealed, data: Buffer.alloc(10) }])).rejects.toThrow(/truncated/);
  });

  it('names the unknown key id when it cannot decode', async () => {
    const [sealed] = await new AesGcmPayloadCodec(ringAB).encode([plain(secret)]);
    await expect(new AesGcmPayloadCodec(ringA).decode([sealed!])).rejects.toThrow(
      /codec key "key-b", which is not in the keyring \(known: key-a\)/,
    );
  });

  it('with refuseUnencrypted (every worker and client), refuses a payload that is not encrypted, naming its encoding only', async () => {
    const strict = new AesGcmPayloadCodec(ringA, { refuseUnencrypted: true });
    const [sealed] = await strict.encode([plain(secret)]);
    expect(text((await strict.decode([sealed!]))[0]?.data)).toBe(text(plain(secret).data));
    await expect(strict.decode([sealed!, plain(secret)])).rejects.toThrow(
      /Refused a payload that is not encrypted \(encoding "json\/plain"/,
    );
    await expect(strict.decode([{}])).rejects.toThrow(/encoding "none"/);
    const message = await strict.decode([plain(secret)]).catch((error: Error) => error.message);
    expect(message).not.toContain(secret.walletId);
    expect(createDataConverter(ringA).payloadCodecs?.[0]).toBeInstanceOf(AesGcmPayloadCodec);
    await expect(createDataConverter(ringA).payloadCodecs![0]!.decode([plain(secret)])).rejects.toThrow(
      /not encrypted/,
    );
  });

  it('without it (the UI codec endpoint), passes unencrypted payloads through decode unchanged', async () => {
    const codec = new AesGcmPayloadCodec(ringA);
    const original = plain(secret);
    const binary: Payload = {
      metadata: { encoding: Buffer.from('binary/plain') },
      data: Buffer.from([1, 2]),
    };
    const [decodedJson, decodedBinary, empty] = await codec.decode([original, binary, {}]);
    expect(decodedJson).toBe(original);
    expect(decodedBinary).toBe(binary);
    expect(empty).toEqual({});
  });

  it('after rotation, payloads sealed with the old key decode and new ones use the new key', async () => {
    const [old] = await new AesGcmPayloadCodec(ringA).encode([plain(secret)]);
    const rotated = new AesGcmPayloadCodec(ringAB);
    const [decodedOld] = await rotated.decode([old!]);
    expect(defaultPayloadConverter.fromPayload(decodedOld!)).toEqual(secret);

    const [fresh] = await rotated.encode([plain(secret)]);
    expect(text(fresh!.metadata?.[KEY_ID_METADATA_KEY])).toBe('key-b');
    await expect(new AesGcmPayloadCodec(ringA).decode([fresh!])).rejects.toThrow(/"key-b"/);
  });

  it('refuses a keyring whose current key is missing or the wrong size', () => {
    expect(() => new AesGcmPayloadCodec({ currentKeyId: 'x', keys: new Map([['key-a', keyA]]) })).toThrow(
      /"x"/,
    );
    expect(
      () => new AesGcmPayloadCodec({ currentKeyId: 'k', keys: new Map([['k', randomBytes(16)]]) }),
    ).toThrow(/16 bytes/);
  });
});

describe('parseCodecKeys', () => {
  const b64 = (bytes: Buffer) => bytes.toString('base64');

  it('reads several keys and the current id', () => {
    const ring = parseCodecKeys(` key-a:${b64(keyA)} , key-b:${b64(keyB)} `, 'key-b');
    expect(ring.currentKeyId).toBe('key-b');
    expect([...ring.keys.keys()]).toEqual(['key-a', 'key-b']);
    expect(ring.keys.get('key-a')!.equals(keyA)).toBe(true);
  });

  it.each([
    ['missing keys', undefined, 'k', /^PAYLOAD_CODEC_KEYS is missing/],
    ['empty keys', ' , ', 'k', /^PAYLOAD_CODEC_KEYS is missing/],
    ['no separator', 'just-a-key', 'k', /^PAYLOAD_CODEC_KEYS entry 1 is not in the form keyId:base64Key/],
    ['empty key', 'k:', 'k', /^PAYLOAD_CODEC_KEYS entry 1 is not in the form/],
    ['bad id', `bad id:${b64(keyA)}`, 'k', /^PAYLOAD_CODEC_KEYS entry 1: key id "bad id"/],
    ['not base64', 'k:not*base64!', 'k', /^PAYLOAD_CODEC_KEYS: key "k" is not base64/],
    [
      'short key',
      `k:${b64(randomBytes(16))}`,
      'k',
      /^PAYLOAD_CODEC_KEYS: key "k" is 16 bytes; AES-256 needs 32/,
    ],
    ['duplicate', `k:${b64(keyA)},k:${b64(keyB)}`, 'k', /^PAYLOAD_CODEC_KEYS: key id "k" appears twice/],
    ['missing current', `k:${b64(keyA)}`, undefined, /^PAYLOAD_CODEC_KEY_ID is missing/],
    [
      'unknown current',
      `k:${b64(keyA)}`,
      'other',
      /^PAYLOAD_CODEC_KEY_ID is "other", which is not among .*\(k\)/,
    ],
  ])('%s: the error names the variable', (_name, keysText, currentId, message) => {
    expect(() => parseCodecKeys(keysText, currentId)).toThrow(message);
  });

  it('never echoes key material in its errors', () => {
    const short = b64(randomBytes(16));
    expect(() => parseCodecKeys(`k:${short}`, 'k')).toThrow(expect.objectContaining({ name: 'ConfigError' }));
    try {
      parseCodecKeys(`k:${short}`, 'k');
    } catch (error) {
      expect((error as Error).message).not.toContain(short);
    }
  });
});

describe('key generation and the dev keyring', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });
  const scratch = () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-codec-'));
    folders.push(folder);
    return folder;
  };

  it('generates entries that the parser accepts', () => {
    const entry = generateCodecKey(new Date('2025-03-07T10:00:00Z'));
    expect(entry).toMatch(/^k-20250307-[0-9a-f]{4}:[A-Za-z0-9+/]{43}=$/);
    const id = entry.split(':')[0]!;
    expect(parseCodecKeys(entry, id).keys.get(id)).toHaveLength(32);
    expect(generateCodecKey()).not.toBe(generateCodecKey());
  });

  it('persists one dev keyring with owner-only permissions and reuses it', () => {
    const dataDir = path.join(scratch(), 'nested');
    const first = loadOrCreateDevCodecKeys(dataDir);
    const file = path.join(dataDir, DEV_CODEC_KEYS_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const second = loadOrCreateDevCodecKeys(dataDir);
    expect(second.currentKeyId).toBe(first.currentKeyId);
    expect(second.keys.get(first.currentKeyId)!.equals(first.keys.get(first.currentKeyId)!)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual([DEV_CODEC_KEYS_FILE]);
  });

  it('says which file is broken', () => {
    const dataDir = scratch();
    fs.writeFileSync(path.join(dataDir, DEV_CODEC_KEYS_FILE), '{"currentKeyId":"gone","keys":{}}');
    expect(() => loadOrCreateDevCodecKeys(dataDir)).toThrow(
      /codec-keys\.json is unusable: PAYLOAD_CODEC_KEYS is missing/,
    );
  });

  it('uses configured keys when set, the dev keyring only when unset and allowed', () => {
    const dataDir = scratch();
    const configured = resolveCodecKeyring({
      keysText: `key-a:${keyA.toString('base64')}`,
      currentId: 'key-a',
      devDataDir: dataDir,
    });
    expect(configured.currentKeyId).toBe('key-a');
    expect(fs.existsSync(path.join(dataDir, DEV_CODEC_KEYS_FILE))).toBe(false);

    expect(
      resolveCodecKeyring({ keysText: '', currentId: undefined, devDataDir: dataDir }).currentKeyId,
    ).toMatch(/^k-\d{8}-/);
    expect(() => resolveCodecKeyring({ keysText: undefined, currentId: undefined })).toThrow(
      /PAYLOAD_CODEC_KEYS/,
    );
    // Half-configured is a mistake, not a request for dev keys.
    expect(() =>
      resolveCodecKeyring({ keysText: undefined, currentId: 'key-a', devDataDir: dataDir }),
    ).toThrow(/PAYLOAD_CODEC_KEYS is missing/);
  });
});
