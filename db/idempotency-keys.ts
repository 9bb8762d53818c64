import type { Db } from './knex';

export interface IdempotencyRecord {
  request_hash: string;
  method: string;
  path: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
}

/** Claims the key for this request; false when another request already holds it. */
export async function claimIdempotencyKey(
  db: Db,
  claim: { keyId: string; idempotencyKey: string; method: string; path: string; requestHash: string },
): Promise<boolean> {
  const inserted = await db('idempotency_keys')
    .insert({
      key_id: claim.keyId,
      idempotency_key: claim.idempotencyKey,
      method: claim.method,
      path: claim.path,
      request_hash: claim.requestHash,
      state: 'in_progress',
    })
    .onConflict(['key_id', 'idempotency_key'])
    .ignore()
    .returning('key_id');
  return inserted.length === 1;
}

export async function findIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
): Promise<IdempotencyRecord | undefined> {
  return db('idempotency_keys').where({ key_id: keyId, idempotency_key: idempotencyKey }).first();
}

export async function completeIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  response: { status: number; body: unknown },
): Promise<void> {
  await db('idempotency_keys')
    .where({ key_id: keyId, idempotency_key: idempotencyKey })
    .update({
      state: 'done',
      response_status: response.status,
      response_body: JSON.stringify(response.body ?? null),
      completed_at: db.fn.now(),
    });
}

/** Frees the key after a server-side failure, so the caller's retry runs the request again. */
export async function releaseIdempotencyKey(db: Db, keyId: string, idempotencyKey: string): Promise<void> {
  await db('idempotency_keys')
    .where({ key_id: keyId, idempotency_key: idempotencyKey, state: 'in_progress' })
    .delete();
}
