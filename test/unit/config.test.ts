import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_CODEC_TOKEN_FILE, resolveDevCodecToken } from '../../platform/dev-codec-token';
import { ConfigError, loadConfig } from '../../platform/config';
import { requireServices } from '../../platform/require-services';

describe('configuration', () => {
  it('defaults everything the dev stack needs', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ API_PORT: 3000, TEMPORAL_UI_PORT: 8233, TEMPORAL_TASK_QUEUE: 'payrun' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', TEMPORAL_ADDRESS: ' ' }).DATABASE_URL).toBeUndefined();
    // docker-compose.yml passes `${NAME:-}`: the default stays the schema's.
    const empty = { PAYOUT_IPN_TIMEOUT_SECONDS: '', SUBSCRIPTION_BILLING_HOUR: '', LOG_LEVEL: '' };
    expect(loadConfig(empty)).toEqual(loadConfig({}));
  });

  it('names each malformed variable', () => {
    expect(() => loadConfig({ API_PORT: 'eighty', DATABASE_URL: 'not a url', LOG_LEVEL: 'loud' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ API_PORT: 'eighty', DATABASE_URL: 'not a url', LOG_LEVEL: 'loud' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('API_PORT');
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('LOG_LEVEL');
    }
  });

  it('standalone processes refuse to start without real services', () => {
    expect(() => requireServices(loadConfig({}))).toThrow(/DATABASE_URL.*TEMPORAL_ADDRESS/);
    expect(
      requireServices(
        loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/payrun', TEMPORAL_ADDRESS: 'temporal:7233' }),
      ),
    ).toEqual({ databaseUrl: 'postgres://u:p@db:5432/payrun', temporalAddress: 'temporal:7233' });
  });

  it('reads TRUSTED_PROXIES as hops or proxy addresses, and stops on anything else', () => {
    expect(loadConfig({}).TRUSTED_PROXIES).toBeUndefined();
    expect(loadConfig({ TRUSTED_PROXIES: '2' }).TRUSTED_PROXIES).toBe(2);
    expect(
      loadConfig({ TRUSTED_PROXIES: ' 10.0.0.5, 10.1.0.0/16 ,loopback,fd00::/8' }).TRUSTED_PROXIES,
    ).toEqual(['10.0.0.5', '10.1.0.0/16', 'loopback', 'fd00::/8']);
    // A host name or a wrong range would silently trust nobody (or everybody): refused at start-up instead.
    for (const wrong of ['proxy.internal', '10.0.0.0/33', '10.0.0.1/8/2', '0', 'true'])
      expect(() => loadConfig({ TRUSTED_PROXIES: wrong }), wrong).toThrow(/TRUSTED_PROXIES/);
  });

  it('refuses a guessable codec token for the Temporal UI', () => {
    expect(() => loadConfig({ TEMPORAL_UI_CODEC_TOKEN: 'secret' })).toThrow(/TEMPORAL_UI_CODEC_TOKEN/);
    const token = 'a'.repeat(16) + 'B_-9'.repeat(5);
    expect(loadConfig({ TEMPORAL_UI_CODEC_TOKEN: token }).TEMPORAL_UI_CODEC_TOKEN).toBe(token);
  });

  it('keeps the dev codec token in an owner-only file and reuses it after a restart', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-token-'));
    try {
      const first = resolveDevCodecToken({ configured: undefined, dataDir });
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fs.statSync(path.join(dataDir, DEV_CODEC_TOKEN_FILE)).mode & 0o077).toBe(0);
      expect(resolveDevCodecToken({ configured: undefined, dataDir })).toBe(first);
      expect(resolveDevCodecToken({ configured: 'x'.repeat(40), dataDir })).toBe('x'.repeat(40));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
