import type { Db } from './knex';

export interface IdempotencyRecord {
  request_hash: string;
  method: string;
  path: string;
  state: 'in_progress' | 'done';
  /** While in progress: when the claim lapses unless its request answers. */
  claimed_until: Date | null;
  response_status: number | null;
  response_body: unknown;
}

/**
 * How long a claim holds without an answer. Longer than a create request takes (the slowest wait 40 s
 * for the gateway), so a claim that outlives it belongs to a request whose process died; were one still
 * running, the resumed retry is safe anyway (one record per id, one workflow per id).
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;

const leaseEnd = (db: Db) => db.raw(`now() + interval '${IDEMPOTENCY_LEASE_SECONDS} seconds'`);

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
      claimed_until: leaseEnd(db),
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

/**
 * Takes over a claim whose request was interrupted (its lease lapsed: the process died, or it failed
 * with a 5xx) for a retry of the same request. One atomic update, so one retry wins.
 */
export async function takeOverIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  requestHash: string,
): Promise<boolean> {
  const taken = await db('idempotency_keys')
    .where({
      key_id: keyId,
      idempotency_key: idempotencyKey,
      state: 'in_progress',
      request_hash: requestHash,
    })
    .whereRaw('(claimed_until is null or claimed_until < now())')
    .update({ claimed_until: leaseEnd(db) })
    .returning('key_id');
  return taken.length === 1;
}

/**
 * After a server-side failure the claim ends at once: the caller's retry takes it over and resumes the
 * request (whatever the failed attempt created is found and finished, never created twice).
 */
export async function interruptIdempotencyKey(db: Db, keyId: string, idempotencyKey: string): Promise<void> {
  await db('idempotency_keys')
    .where({ key_id: keyId, idempotency_key: idempotencyKey, state: 'in_progress' })
    .update({ claimed_until: db.raw(`now() - interval '1 second'`) });
}
