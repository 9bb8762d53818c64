/**
 * The codec's TLS front (scripts/cluster/codec-tls.ts, as the cluster and compose run it) names each browser
 * in X-Forwarded-For, and the API (TRUSTED_PROXIES=loopback) counts the codec's rate limits per browser,
 * not per front: one address guessing tokens is refused 429 while another is still heard. Real processes
 * over real TLS; two client addresses are two loopback addresses (127.0.0.2, 127.0.0.3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitSettingsFrom } from '../../api/http/rate-limit-settings';
import { loadConfig } from '../../platform/config';
import { AesGcmPayloadCodec } from '../../platform/payload-codec';
import { freePort } from '../../scripts/cluster/readiness';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { testCodecKeyring } from '../support/temporal';
import { eventually } from '../support/wait';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const t = useApiOnDevServer({
  codec: { codec: new AesGcmPayloadCodec(testCodecKeyring), allowedOrigins: [UI_ORIGIN] },
  rateLimits: rateLimitSettingsFrom(loadConfig({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' })),
  trustedProxies: ['loopback'],
});

let front: ChildProcess | undefined;
let frontPort: number;
beforeAll(async () => {
  frontPort = await freePort();
  front = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster/codec-tls.ts'], {
    env: {
      ...process.env,
      CODEC_TLS_PORT: String(frontPort),
      CODEC_TLS_TARGET: t.api.baseUrl,
      CODEC_TLS_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-codec-tls-')),
    },
    stdio: 'ignore',
  });
  await eventually(
    () =>
      new Promise<void>((resolve, reject) => {
        const socket = net.connect(frontPort, '127.0.0.1', () => socket.end(resolve));
        socket.once('error', reject);
      }),
  );
});
afterAll(() => {
  front?.kill('SIGTERM');
});

/** A wrong token sent to the codec through the front, from `localAddress`. */
function decodeFrom(localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: frontPort,
        path: '/codec/decode',
        method: 'POST',
        localAddress,
        // The front's certificate is self-signed, made for this run.
        rejectUnauthorized: false,
        headers: {
          'content-type': 'application/json',
          'x-namespace': 'default',
          origin: UI_ORIGIN,
          authorization: 'Bearer prk_000000000000_' + 'x'.repeat(43),
          ...headers,
        },
      },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
      },
    );
    request.once('error', reject);
    request.end(JSON.stringify({ payloads: [] }));
  });
}

describe('the codec behind its TLS front', () => {
  it('counts failures per browser: one guessing address is refused 429, another is still heard', async () => {
    const guesser: number[] = [];
    for (let n = 0; n < 5; n++) guesser.push(await decodeFrom('127.0.0.2'));
    expect(guesser.slice(0, 3)).toEqual([401, 401, 401]);
    expect(guesser.slice(3)).toEqual([429, 429]);
    // The header a client writes itself is replaced by the front: it cannot pick another budget.
    expect(await decodeFrom('127.0.0.2', { 'x-forwarded-for': '198.51.100.7' })).toBe(429);
    expect(await decodeFrom('127.0.0.3')).toBe(401);
  });
});
