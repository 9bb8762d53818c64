import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../shared/knex';

export interface SessionRow {
  person_id: string;
  roles: string[];
  csrf_token: string;
  id_token: string | null;
  created_at: Date;
  last_seen_at: Date;
  idle_seconds: number;
  expires_at: Date;
  ended_at: Date | null;
}

export interface LiveSession extends SessionRow {
  name: string;
  subject: string;
  issuer: string;
}

const hashOf = (sessionId: string): Buffer => createHash('sha256').update(sessionId, 'utf8').digest();
/** How a cookie's value is found in `console_sessions` (only its SHA-256 is kept). */
export const sessionHashOf = hashOf;

export async function createSession(
  db: Db,
  input: { personId: string; roles: string[]; idToken?: string; idleSeconds: number; maxSeconds: number },
): Promise<{ sessionId: string; csrfToken: string }> {
  const sessionId = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  await db('console_sessions').insert({
    session_hash: hashOf(sessionId),
    person_id: input.personId,
    roles: input.roles,
    csrf_token: csrfToken,
    id_token: input.idToken ?? null,
    idle_seconds: input.idleSeconds,
    expires_at: db.raw(`now() + make_interval(secs => ?)`, [input.maxSeconds]),
  });
  return { sessionId, csrfToken };
}

/**
 * The session behind a cookie value, if it is still alive: not ended, not past its absolute end, used
 * within its idle time, and its person not removed. Using it moves its idle clock (in the same statement,
 * so two requests racing an idle timeout cannot revive a dead session).
 */
export async function useSession(db: Db, sessionId: string): Promise<LiveSession | undefined> {
  const result = await db.raw(
    `update console_sessions s set last_seen_at = now()
       from people p
      where s.session_hash = ? and p.person_id = s.person_id
        and s.ended_at is null and p.removed_at is null
        and s.expires_at > now()
        and s.last_seen_at + make_interval(secs => s.idle_seconds) > now()
      returning s.person_id, s.roles, s.csrf_token, s.id_token, s.created_at, s.last_seen_at,
                s.idle_seconds, s.expires_at, s.ended_at, p.name, p.subject, p.issuer`,
    [hashOf(sessionId)],
  );
  return (result.rows as LiveSession[])[0];
}

/** Ends one session; its ID token (for the provider's end-session hint) when it was alive. */
export async function endSession(
  db: Db,
  sessionId: string,
): Promise<{ id_token: string | null } | undefined> {
  const [row] = await db('console_sessions')
    .where({ session_hash: hashOf(sessionId) })
    .whereNull('ended_at')
    .update({ ended_at: db.fn.now() })
    .returning(['id_token']);
  return row as { id_token: string | null } | undefined;
}

export async function endSessionsOf(db: Db, personId: string): Promise<number> {
  return db('console_sessions')
    .where({ person_id: personId })
    .whereNull('ended_at')
    .update({ ended_at: db.fn.now() });
}

/** A sign-in under way: what the callback must check the provider's answer against. */
export async function saveSignInAttempt(
  db: Db,
  attempt: { state: string; codeVerifier: string; nonce: string },
): Promise<void> {
  await db('sign_in_attempts').insert({
    state: attempt.state,
    code_verifier: attempt.codeVerifier,
    nonce: attempt.nonce,
  });
  // Abandoned sign-ins are of no use to anyone after ten minutes.
  await db('sign_in_attempts').where('created_at', '<', db.raw(`now() - interval '10 minutes'`)).delete();
}

/** Takes the attempt of `state` once: a replayed callback finds nothing. */
export async function takeSignInAttempt(
  db: Db,
  state: string,
): Promise<{ codeVerifier: string; nonce: string } | undefined> {
  const [row] = await db('sign_in_attempts')
    .where({ state })
    .where('created_at', '>', db.raw(`now() - interval '10 minutes'`))
    .delete()
    .returning(['code_verifier', 'nonce']);
  return row ? { codeVerifier: row.code_verifier as string, nonce: row.nonce as string } : undefined;
}
