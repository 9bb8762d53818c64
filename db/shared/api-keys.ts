import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './knex';

export interface ApiKeyRow {
  key_id: string;
  name: string;
  roles: string[];
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  /** Keys are for machines, each owned by a named person (their `<issuer>#<sub>`) or a named service. */
  owner_kind: 'person' | 'service' | null;
  owner: string | null;
}

const PREFIX = 'prk';

/**
 * Keys look like `prk_<keyId>_<secret>`. Only a SHA-256 of the whole key is stored: the secret has
 * 256 bits of entropy, so a slow password hash would add cost without adding safety.
 */
function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function parseKeyId(key: string): string | undefined {
  const match = /^prk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/.exec(key);
  return match?.[1];
}

const KEY_COLUMNS = [
  'key_id',
  'name',
  'roles',
  'created_at',
  'revoked_at',
  'last_used_at',
  'owner_kind',
  'owner',
];

export async function createApiKey(
  db: Db,
  name: string,
  roles: string[],
  owner?: { kind: 'person' | 'service'; id: string },
): Promise<{ key: string; row: ApiKeyRow }> {
  const keyId = randomBytes(6).toString('hex');
  const key = `${PREFIX}_${keyId}_${randomBytes(32).toString('base64url')}`;
  const [row] = await db('api_keys')
    .insert({
      key_id: keyId,
      name,
      roles,
      key_hash: hashKey(key),
      owner_kind: owner?.kind ?? null,
      owner: owner?.id ?? null,
    })
    .returning(KEY_COLUMNS);
  return { key, row: row as ApiKeyRow };
}

/** The active key matching `key`, compared in constant time; undefined for unknown or revoked keys. */
export async function findActiveApiKey(db: Db, key: string): Promise<ApiKeyRow | undefined> {
  const keyId = parseKeyId(key);
  if (!keyId) return undefined;
  const row = await db('api_keys').where({ key_id: keyId }).first();
  if (!row || row.revoked_at) return undefined;
  const stored = row.key_hash as Buffer;
  const given = hashKey(key);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return undefined;
  const { key_hash: _hash, ...rest } = row;
  return rest as ApiKeyRow;
}

/**
 * How fine `last_used_at` is: a key's use is written when the last written use is older than this. Every
 * request of a busy key wrote the same row before, one more statement per request and a row lock that
 * concurrent requests of the key queued on; "last used" to the minute is what the key list needs.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Whether a request with this key should write its use (see LAST_USED_RESOLUTION_MS). */
export const useIsWorthRecording = (lastUsedAt: Date | null, now: Date): boolean =>
  lastUsedAt === null || now.getTime() - new Date(lastUsedAt).getTime() >= LAST_USED_RESOLUTION_MS;

export async function touchApiKey(db: Db, keyId: string): Promise<void> {
  await db('api_keys').where({ key_id: keyId }).update({ last_used_at: db.fn.now() });
}

export async function listApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return db('api_keys').select(KEY_COLUMNS).orderBy('created_at');
}

export async function revokeApiKey(db: Db, keyId: string): Promise<boolean> {
  const changed = await db('api_keys')
    .where({ key_id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  return changed > 0;
}

/** Revokes every active key a person owns (offboarding); the ids revoked. */
export async function revokeKeysOwnedBy(db: Db, personIds: readonly string[]): Promise<string[]> {
  if (!personIds.length) return [];
  const rows = await db('api_keys')
    .where({ owner_kind: 'person' })
    .whereIn('owner', personIds)
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() })
    .returning(['key_id']);
  return rows.map((row: { key_id: string }) => row.key_id);
}

/**
 * Gives an owner to an active key that has none. 'owned' when it already has one (an owner is never
 * replaced), 'unknown' when no active key has this id.
 */
export async function setApiKeyOwner(
  db: Db,
  keyId: string,
  owner: { kind: 'person' | 'service'; id: string },
): Promise<'set' | 'owned' | 'unknown'> {
  const changed = await db('api_keys')
    .where({ key_id: keyId })
    .whereNull('revoked_at')
    .whereNull('owner')
    .update({ owner_kind: owner.kind, owner: owner.id });
  if (changed > 0) return 'set';
  const row = await db('api_keys').where({ key_id: keyId }).whereNull('revoked_at').first('key_id');
  return row ? 'owned' : 'unknown';
}
