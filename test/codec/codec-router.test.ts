/** The codec endpoint over real HTTP, the way the Temporal UI and CLI call it. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express, { type RequestHandler } from 'express';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createCodecRouter } from '../../api/codec-router';
import { AesGcmPayloadCodec } from '../../platform/payload-codec';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const AUTH = { authorization: 'Bearer test-key' };
const JSON_HEADERS = { 'content-type': 'application/json', 'x-namespace': 'default' };

const requireTestKey: RequestHandler = (req, res, next) => {
  if (req.get('authorization') === 'Bearer test-key') return next();
  res.status(401).json({ error: { code: 'unauthenticated', message: 'A valid API key is required' } });
};

const codec = new AesGcmPayloadCodec({ currentKeyId: 'key-a', keys: new Map([['key-a', randomBytes(32)]]) });
const secret = { walletId: 'wallet-0912345678', token: 'tok_live_9f8e7d' };

function toWire(payload: Payload) {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value!).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data!).toString('base64'),
  };
}

function fromWire(wire: { metadata: Record<string, string>; data: string }): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(wire.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(wire.data, 'base64'),
  };
}

describe('codec router', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(createCodecRouter({ codec, allowedOrigin: UI_ORIGIN, authenticate: requireTestKey }));
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/codec/${route}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('decodes what the workers encoded, for an authenticated caller', async () => {
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    const response = await post('decode', { payloads: sealed.map(toWire) }, AUTH);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as {
      payloads: Array<{ metadata: Record<string, string>; data: string }>;
    };
    expect(body.payloads).toHaveLength(1);
    expect(Buffer.from(body.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(fromWire(body.payloads[0]!))).toEqual(secret);
  });

  it('encodes for nobody, not even an authenticated caller: only the processes seal payloads', async () => {
    for (const headers of [AUTH, {}, { ...AUTH, origin: UI_ORIGIN }] as Array<Record<string, string>>) {
      const response = await post(
        'encode',
        { payloads: [toWire(defaultPayloadConverter.toPayload(secret))] },
        headers,
      );
      expect(response.status).toBe(403);
      const answer = (await response.json()) as { error: { code: string }; payloads?: unknown };
      expect(answer.error.code).toBe('forbidden');
      expect(answer.payloads).toBeUndefined();
    }
  });

  it('answers 401 without valid credentials and decodes nothing', async () => {
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
      const response = await post('decode', { payloads: sealed.map(toWire) }, headers);
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain(secret.walletId);
    }
  });

  it('gives CORS headers only to the Temporal UI origin', async () => {
    const allowed = await post('decode', { payloads: [] }, { ...AUTH, origin: UI_ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('vary')).toMatch(/origin/i);

    // The UI must be able to read a 401 too, to tell the operator why nothing decoded.
    const unauthenticated = await post('decode', { payloads: [] }, { origin: UI_ORIGIN });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);

    for (const origin of ['http://evil.example', 'http://localhost:8233', 'http://127.0.0.1:8234']) {
      const other = await post('decode', { payloads: [] }, { ...AUTH, origin });
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(other.headers.get('access-control-allow-credentials')).toBeNull();
    }

    // Callers outside a browser (the Temporal CLI) send no Origin and get no CORS headers.
    const cli = await post('decode', { payloads: [] }, AUTH);
    expect(cli.status).toBe(200);
    expect(cli.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the browser preflight without credentials, for the UI origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    const allowedHeaders = allowed.headers.get('access-control-allow-headers')!.split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['content-type', 'x-namespace', 'authorization']));

    const refused = await preflight('http://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each([
    ['not JSON', '{"payloads": [', 'malformed_body'],
    ['no payloads', { items: [] }, 'invalid_request'],
    ['payloads not a list', { payloads: 'x' }, 'invalid_request'],
    ['payload not an object', { payloads: [42] }, 'invalid_request'],
    [
      'metadata value not base64',
      { payloads: [{ metadata: { encoding: 'json/plain' }, data: '' }] },
      'invalid_request',
    ],
    ['data not base64', { payloads: [{ metadata: {}, data: '***' }] }, 'invalid_request'],
  ])('answers 400 for a bad body: %s', async (_name, body, code) => {
    const response = await post('decode', body, AUTH);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe(code);
    expect(answer.error.message).toEqual(expect.any(String));
  });

  it('answers 400 for a body that is not declared as JSON', async () => {
    const response = await post('decode', JSON.stringify({ payloads: [] }), {
      ...AUTH,
      'content-type': 'text/plain',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('answers 422 naming the key id when a payload uses an unknown key', async () => {
    const other = new AesGcmPayloadCodec({
      currentKeyId: 'key-old',
      keys: new Map([['key-old', randomBytes(32)]]),
    });
    const sealed = await other.encode([defaultPayloadConverter.toPayload(secret)]);
    const response = await post('decode', { payloads: sealed.map(toWire) }, AUTH);
    expect(response.status).toBe(422);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    expect(answer.error).toMatchObject({
      code: 'decode_failed',
      message: expect.stringContaining('"key-old"'),
    });
  });

  it('leaves the rest of the API alone', async () => {
    const response = await fetch(`${base}/healthz`, { headers: { origin: 'http://evil.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a throwing authenticate (like the API key check) answer through the app error handler', async () => {
    const app = express();
    app.use(
      createCodecRouter({
        codec,
        allowedOrigin: [UI_ORIGIN, 'http://localhost:8233'],
        authenticate: async () => {
          throw Object.assign(new Error('The API key is unknown or revoked.'), { status: 401 });
        },
      }),
    );
    app.use(((error, _req, res, _next) => {
      res.status((error as { status?: number }).status ?? 500).json({ error: { code: 'unauthorized' } });
    }) as express.ErrorRequestHandler);
    const other = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const response = await fetch(`http://127.0.0.1:${(other.address() as AddressInfo).port}/codec/decode`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, origin: 'http://localhost:8233' },
        body: JSON.stringify({ payloads: [] }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('in dev, opens the codec to the secret path only: a forged UI Origin from this machine still needs a key', async () => {
    const token = randomBytes(32).toString('base64url');
    const app = express();
    app.use(
      createCodecRouter({
        codec,
        allowedOrigin: UI_ORIGIN,
        authenticate: requireTestKey,
        secretPathToken: token,
      }),
    );
    const dev = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const base = `http://127.0.0.1:${(dev.address() as AddressInfo).port}/codec`;
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    const decode = (path: string, headers: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...headers },
        body: JSON.stringify({ payloads: sealed.map(toWire) }),
      });
    try {
      // What any local process could send before: the UI's Origin, from loopback, no key.
      const forged = await decode('/decode', { origin: UI_ORIGIN });
      expect(forged.status).toBe(401);
      expect(await forged.text()).not.toContain('wallet-0912345678');
      expect((await decode(`/${token}-x/decode`, { origin: UI_ORIGIN })).status).toBe(404);
      expect((await decode(`/${token.slice(1)}/decode`, {})).status).toBe(404);
      expect((await decode(`/${token}/decode`, { origin: 'http://evil.example' })).status).toBe(403);

      const viaUi = await decode(`/${token}/decode`, { origin: UI_ORIGIN });
      expect(viaUi.status).toBe(200);
      expect(viaUi.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
      const { payloads } = (await viaUi.json()) as {
        payloads: Array<{ metadata: Record<string, string>; data: string }>;
      };
      expect(defaultPayloadConverter.fromPayload(fromWire(payloads[0]!))).toEqual(secret);
      expect((await decode('/decode', AUTH)).status).toBe(200);
      // The secret path decodes only: the UI can no longer seal a start, signal or update.
      const encode = await decode(`/${token}/encode`, { origin: UI_ORIGIN });
      expect(encode.status).toBe(403);
      expect(((await encode.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    } finally {
      await new Promise<void>((resolve) => dev.close(() => resolve()));
    }
  });

  it('without a secret path (standalone API), every path needs a key', async () => {
    const response = await fetch(`${base}/codec/${randomBytes(32).toString('base64url')}/decode`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, origin: UI_ORIGIN },
      body: '{"payloads":[]}',
    });
    expect(response.status).toBe(404);
  });
});
