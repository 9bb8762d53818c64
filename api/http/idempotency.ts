import { createHash } from 'node:crypto';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
} from '../../db/idempotency-keys';
import type { Db } from '../../db/knex';
import { ApiError, conflict, errorBody } from './errors';

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const WAIT_FOR_FIRST_MS = 15_000;

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Runs a create request at most once per (caller, Idempotency-Key). The first request claims the key
 * with an insert that only one transaction can win; later ones with the same body wait for its answer
 * and replay it, and ones with a different body are refused. A server-side failure frees the key so a
 * retry can run; a client error (4xx) is stored and replayed like a success.
 */
export async function runIdempotently(
  db: Db,
  request: { keyId: string; idempotencyKey: string; method: string; path: string; body: unknown },
  run: () => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const { keyId, idempotencyKey } = request;
  if (!KEY_PATTERN.test(idempotencyKey)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 visible ASCII characters.',
      [{ field: 'header.Idempotency-Key', rule: 'format', message: '1 to 255 visible ASCII characters' }],
    );
  }
  const requestHash = createHash('sha256')
    .update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`)
    .digest('hex');

  if (
    await claimIdempotencyKey(db, {
      keyId,
      idempotencyKey,
      method: request.method,
      path: request.path,
      requestHash,
    })
  ) {
    try {
      const response = await run();
      if (response.status >= 500) {
        await releaseIdempotencyKey(db, keyId, idempotencyKey);
      } else {
        await completeIdempotencyKey(db, keyId, idempotencyKey, response);
      }
      return { ...response, replayed: false };
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        await completeIdempotencyKey(db, keyId, idempotencyKey, {
          status: error.status,
          body: errorBody(error),
        });
      } else {
        await releaseIdempotencyKey(db, keyId, idempotencyKey);
      }
      throw error;
    }
  }

  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const record = await findIdempotencyKey(db, keyId, idempotencyKey);
    if (record && record.request_hash !== requestHash) {
      throw conflict(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    if (record?.state === 'done') {
      return { status: record.response_status ?? 200, body: record.response_body, replayed: true };
    }
    if (!record) {
      // The first request failed and released the key: run this one as the first.
      return runIdempotently(db, request, run);
    }
    if (Date.now() > deadline) {
      throw conflict(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed.',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
