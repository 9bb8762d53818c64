/**
 * Temporal's remote codec protocol, so the Temporal Web UI (and `temporal … --codec-endpoint`) can
 * show operators decoded payloads while the server keeps only ciphertext.
 *
 *   POST /codec/decode
 *   body and answer: { "payloads": [{ "metadata": { "<key>": "<base64>" }, "data": "<base64>" }] }
 *
 * Decoding only: `POST /codec/encode` is refused (403 forbidden) to every caller, admin keys included.
 * Whoever can encode can hand a workflow a start, a signal or an update that the workers take for
 * payrun's own (DESIGN decision 14), so only payrun's processes encode, in-process, with the keyring.
 *
 * This is proto3 JSON: every bytes field, metadata values included, is base64. The UI also sends
 * `X-Namespace`; payrun uses one keyring for every namespace, so it is accepted and not needed.
 */
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { ErrorCode } from '../contracts/shared';
import type { Principal } from './auth/roles';

export interface CodecRouterOptions {
  codec: PayloadCodec;
  /** Exact origin(s) of the Temporal UI, e.g. `http://127.0.0.1:8233`; the only ones given CORS headers. */
  allowedOrigin: string | readonly string[];
  /** Runs after CORS preflight handling (browsers send no credentials on a preflight), before any codec work. */
  authenticate: RequestHandler;
  /**
   * `npm run dev` only: also serve `/codec/<secretPathToken>/decode` without a key, for the Temporal UI,
   * which cannot send one. Unset (standalone API): keys only.
   */
  secretPathToken?: string;
  /** Largest accepted body; the UI sends whole pages of history. */
  bodyLimit?: string;
  /**
   * What the authenticated caller may see of the decoded payloads (masked, or still sealed); unset, or a
   * caller without a principal (the dev secret path): everything decoded.
   */
  view?: (principal: Principal, sealed: Payload[], decoded: Payload[]) => Payload[];
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// The UI adds the person's ID token as `Authorization-Extras` beside the access token; it is not read here
// (the access token alone decides), but a preflight refusing it would block every decode.
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization, authorization-extras';

class BadRequest extends Error {}

function sendError(res: Response, status: number, code: ErrorCode, message: string): void {
  res.status(status).json({ error: { code, message } });
}

function fromBase64(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value))
    throw new BadRequest(`${where} must be a base64 string`);
  return Buffer.from(value, 'base64');
}

function parsePayloads(body: unknown): Payload[] {
  if (
    typeof body !== 'object' ||
    body === null ||
    !Array.isArray((body as { payloads?: unknown }).payloads)
  ) {
    throw new BadRequest('The body must be JSON of the form { "payloads": [...] }');
  }
  return (body as { payloads: unknown[] }).payloads.map((item, index) => {
    const where = `payloads[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new BadRequest(`${where} must be an object`);
    }
    const { metadata = {}, data = '' } = item as { metadata?: unknown; data?: unknown };
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new BadRequest(`${where}.metadata must be an object`);
    }
    const decodedMetadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(metadata)) {
      decodedMetadata[key] = fromBase64(value, `${where}.metadata.${key}`);
    }
    return { metadata: decodedMetadata, data: fromBase64(data, `${where}.data`) };
  });
}

function toJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (value) metadata[key] = Buffer.from(value).toString('base64');
  }
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

function cors(allowedOrigins: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    const allowed = origin !== undefined && allowedOrigins.has(origin);
    if (allowed) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    }
    if (req.method === 'OPTIONS') {
      if (!allowed) {
        sendError(res, 403, 'origin_not_allowed', 'This origin may not call the codec endpoint');
        return;
      }
      res.set({
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      });
      res.status(204).end();
      return;
    }
    // A browser page from elsewhere could not read the answer anyway; refusing it outright also keeps
    // cookie-carrying cross-site requests from reaching the codec. Non-browser callers send no Origin.
    if (origin !== undefined && !allowed) {
      sendError(res, 403, 'origin_not_allowed', 'This origin may not call the codec endpoint');
      return;
    }
    next();
  };
}

// Codes match the API's own error conventions (api/http/errors.ts) without depending on its handler.
const bodyErrors: ErrorRequestHandler = (error: { type?: string }, _req, res, next) => {
  if (error.type === 'entity.too.large') {
    sendError(res, 413, 'body_too_large', 'The body is larger than the codec endpoint accepts.');
  } else if (error.type === 'entity.parse.failed') {
    sendError(res, 400, 'malformed_body', 'The body is not valid JSON.');
  } else if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    sendError(res, 415, 'unsupported_encoding', 'The body must be UTF-8.');
  } else {
    next(error);
  }
};

const originSet = (allowed: string | readonly string[]): ReadonlySet<string> =>
  new Set(typeof allowed === 'string' ? [allowed] : allowed);

const SECRET_PATH = /^\/([^/]+)\/(decode)$/;
/** `/encode` and `/<anything>/encode`: refused before a key or a token is even looked at. */
const ENCODE_PATH = /^\/(?:[^/]+\/)?encode$/;

/**
 * Encoding is refused to every person, the same way by either way in, so no answer tells a valid key or
 * token from a wrong one. The UI can still read the refusal (CORS ran first).
 */
const refuseEncoding: RequestHandler = (req, res, next) => {
  if (!ENCODE_PATH.test(req.path)) return next();
  sendError(
    res,
    403,
    'forbidden',
    "Encoding payloads is not offered: only payrun's processes encode, so a workflow can tell their input " +
      'from input sent through the Temporal frontend. Start and decide through the API.',
  );
};
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * `npm run dev` only: the Temporal UI reaches the codec at `/codec/<token>/…` instead of presenting a key
 * (it cannot). A wrong token answers 404 like any unknown route, compared in constant time; every other
 * path under /codec still needs `authenticate`. Headers such as Origin prove nothing: any local
 * process can send them, which is why the UI's origin alone no longer opens the codec.
 */
function secretPathOrAuthenticate(token: string | undefined, authenticate: RequestHandler): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return (req, res, next) => {
    const match = SECRET_PATH.exec(req.path);
    if (!match) return authenticate(req, res, next);
    if (expected === undefined || !timingSafeEqual(digest(match[1]!), expected)) {
      sendError(res, 404, 'route_not_found', `No endpoint ${req.method} ${req.baseUrl}/…; see /docs.`);
      return;
    }
    // The rest of the router serves /decode alike for both ways in.
    req.url = `/${match[2]}`;
    next();
  };
}

export function createCodecRouter(options: CodecRouterOptions): Router {
  const origins = originSet(options.allowedOrigin);
  const codecRoutes = Router();
  codecRoutes.use((_req, res, next) => {
    // Decoded answers are plaintext PII: no browser or proxy may keep a copy.
    res.set('Cache-Control', 'no-store');
    next();
  });
  codecRoutes.use(cors(origins));
  codecRoutes.use(refuseEncoding);
  codecRoutes.use(secretPathOrAuthenticate(options.secretPathToken, options.authenticate));
  codecRoutes.use(express.json({ limit: options.bodyLimit ?? '8mb' }), bodyErrors);

  codecRoutes.post('/decode', async (req, res) => {
    let payloads: Payload[];
    try {
      if (!req.is('application/json')) throw new BadRequest('Content-Type must be application/json');
      payloads = parsePayloads(req.body);
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      sendError(res, 400, 'invalid_request', error.message);
      return;
    }
    let result: Payload[];
    try {
      result = await options.codec.decode(payloads);
    } catch (error) {
      // Unknown key ids and tampered payloads: the message names the key id and never key material.
      sendError(res, 422, 'decode_failed', (error as Error).message);
      return;
    }
    const principal = res.locals.principal as Principal | undefined;
    if (principal && options.view) result = options.view(principal, payloads, result);
    res.json({ payloads: result.map(toJson) });
  });

  // Scoped under /codec so authentication and CORS never touch the rest of the API.
  const router = Router();
  router.use('/codec', codecRoutes);
  return router;
}
