import { createHash } from 'node:crypto';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  interruptIdempotencyKey,
  takeOverIdempotencyKey,
} from '../../db/shared/idempotency-keys';
import type { Db } from '../../db/shared/knex';
import { ApiError, conflict, errorBody } from './errors';

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const WAIT_FOR_FIRST_MS = 15_000;

// Recursive, one frame a level: bodies reach it only after the depth check of mountRoutes (api/http/json-depth.ts
// refuses more than 64 levels), so it never nears the stack's limit.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What a create learns about its request: a stable key of it, and whether it resumes an interrupted one. */
export interface CreateRequest {
  /** Derived from (API key, Idempotency-Key): the same for every retry of one request. */
  requestKey: string;
  /**
   * An earlier attempt of this very request was interrupted (its process died, or it failed with a 5xx):
   * what it created must be found and finished, not created again.
   */
  resumed: boolean;
}

export const requestKeyOf = (keyId: string, idempotencyKey: string) =>
  createHash('sha256').update(`${keyId}\n${idempotencyKey}`).digest('hex').slice(0, 32);

/**
 * Runs a create request at most once per (caller, Idempotency-Key). The first request claims the key
 * with an insert that only one transaction can win; later ones with the same body wait for its answer
 * and replay it, and ones with a different body are refused. A claim is a lease: when its request dies
 * with its process, or fails with a 5xx, a retry with the same body takes the claim over and runs the
 * request again as a resumption (`resumed`), which finishes what the interrupted attempt started. A
 * client error (4xx) is stored and replayed like a success.
 */
export async function runIdempotently(
  db: Db,
  request: { keyId: string; idempotencyKey: string; method: string; path: string; body: unknown },
  run: (create: CreateRequest) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const { keyId, idempotencyKey } = request;
  if (!KEY_PATTERN.test(idempotencyKey)) {
    throw new ApiError(
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 visible ASCII characters.',
      {
        problems: [
          { field: 'header.Idempotency-Key', rule: 'format', message: '1 to 255 visible ASCII characters' },
        ],
      },
    );
  }
  const requestHash = createHash('sha256')
    .update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`)
    .digest('hex');
  const requestKey = requestKeyOf(keyId, idempotencyKey);

  const execute = async (resumed: boolean): Promise<StoredResponse> => {
    try {
      const response = await run({ requestKey, resumed });
      if (response.status >= 500) {
        await interruptIdempotencyKey(db, keyId, idempotencyKey);
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
        await interruptIdempotencyKey(db, keyId, idempotencyKey).catch(() => undefined);
      }
      throw error;
    }
  };

  if (
    await claimIdempotencyKey(db, {
      keyId,
      idempotencyKey,
      method: request.method,
      path: request.path,
      requestHash,
    })
  ) {
    return execute(false);
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
      // The claim is gone (cleaned up): run this one as the first.
      return runIdempotently(db, request, run);
    }
    if (await takeOverIdempotencyKey(db, keyId, idempotencyKey, requestHash)) {
      return execute(true);
    }
    if (Date.now() > deadline) {
      throw conflict(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed; if its answer never comes, ' +
          'retry after a minute and this request is resumed.',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
