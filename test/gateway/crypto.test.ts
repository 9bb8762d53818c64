import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decryptAesToken,
  encryptAesToken,
  GatewayCryptoError,
  rsaDecryptJson,
  rsaDecryptText,
  rsaEncrypt,
} from '../../gateway';

describe('RSA (PKCS#1 v1.5, Base64, SPKI public key)', () => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const base64Der = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const receiver = { walletId: '0912345678', walletName: 'Nguyễn Văn A', personalId: '001099012345' };

  it('round-trips a JSON object with a PEM key', () => {
    const ciphertext = rsaEncrypt(receiver, pem);
    expect(Buffer.from(ciphertext, 'base64')).toHaveLength(256);
    expect(rsaDecryptJson(ciphertext, privatePem)).toEqual(receiver);
  });

  it('accepts the public key as Base64 DER without PEM armour', () => {
    expect(rsaDecryptJson(rsaEncrypt(receiver, base64Der), pair.privateKey)).toEqual(receiver);
  });

  it('round-trips a plain string (POS paymentCode)', () => {
    expect(rsaDecryptText(rsaEncrypt('MM1234567890', pem), pair.privateKey)).toBe('MM1234567890');
  });

  it('is randomised: the same payload encrypts differently', () => {
    expect(rsaEncrypt(receiver, pem)).not.toBe(rsaEncrypt(receiver, pem));
  });

  it('can be decrypted by openssl with PKCS#1 v1.5 (the padding really is v1.5)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-rsa-'));
    try {
      writeFileSync(join(dir, 'key.pem'), privatePem);
      writeFileSync(join(dir, 'ct.bin'), Buffer.from(rsaEncrypt(receiver, pem), 'base64'));
      const run = spawnSync('openssl', [
        'pkeyutl',
        '-decrypt',
        '-inkey',
        join(dir, 'key.pem'),
        '-in',
        join(dir, 'ct.bin'),
        '-pkeyopt',
        'rsa_padding_mode:pkcs1',
      ]);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout.toString('utf8'))).toEqual(receiver);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a payload longer than the key can carry, and unreadable keys', () => {
    expect(() => rsaEncrypt('x'.repeat(246), pem)).toThrow(GatewayCryptoError);
    expect(() => rsaEncrypt('x', 'not a key')).toThrow(/cannot read the RSA public key/);
  });
});

describe('AES aesToken (CBC, zero IV, key = secret key bytes)', () => {
  const secret32 = 'K951B6PE1waDMi640xX08PD3vg6EkVlz';
  const payload = { value: 'tok-123', cardNumber: '4242', cardType: 'VISA' };

  it('decrypts a token produced by openssl enc -aes-256-cbc', () => {
    const keyHex = Buffer.from(secret32, 'utf8').toString('hex');
    const run = spawnSync(
      'openssl',
      ['enc', '-aes-256-cbc', '-K', keyHex, '-iv', '00000000000000000000000000000000', '-base64', '-A'],
      { input: JSON.stringify(payload) },
    );
    expect(run.status).toBe(0);
    const aesToken = run.stdout.toString().trim();
    expect(decryptAesToken(aesToken, secret32)).toEqual(payload);
    expect(encryptAesToken(payload, secret32)).toBe(aesToken);
  });

  it.each([
    ['AES-128', '0123456789abcdef'],
    ['AES-192', '0123456789abcdef01234567'],
    ['AES-256', secret32],
  ])('round-trips with a %s key', (_name, key) => {
    expect(decryptAesToken(encryptAesToken(payload, key), key)).toEqual(payload);
  });

  it('explains a secret key of the wrong length', () => {
    expect(() => decryptAesToken('AAAA', 'short')).toThrow(/5 bytes in UTF-8; AES needs 16, 24 or 32/);
  });

  it('fails clearly with the wrong key', () => {
    const token = encryptAesToken(payload, secret32);
    expect(() => decryptAesToken(token, 'X'.repeat(32))).toThrow(GatewayCryptoError);
  });
});
