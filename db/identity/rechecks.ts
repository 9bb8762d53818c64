/**
 * What payrun keeps to confirm a person at the provider later: their latest refresh token (sealed by the
 * caller) and when the provider last confirmed them.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { sessionHashOf } from './sessions';

export interface RecheckRow {
  person_id: string;
  issuer: string;
  subject: string;
  refresh_token_sealed: string | null;
}

/** After a sign-in or a refresh: the token to refresh with next time (kept when the provider sent none). */
export async function keepConfirmation(
  db: Db | Knex.Transaction,
  personId: string,
  sealedRefreshToken: string | undefined,
): Promise<void> {
  await db('people')
    .where({ person_id: personId })
    .update({
      rechecked_at: db.fn.now(),
      ...(sealedRefreshToken !== undefined && { refresh_token_sealed: sealedRefreshToken }),
    });
}

/**
 * Takes the person for a recheck when they are due (not removed, last confirmed longer than `dueSeconds`
 * ago), locking their row for the transaction. A row another recheck holds is skipped, not waited for:
 * two refreshes racing with one refresh token would make a rotating provider revoke the whole grant, and
 * that would read as the person being removed.
 */
export async function takeDueRecheck(
  trx: Knex.Transaction,
  person: { personId: string; issuer: string },
  dueSeconds: number,
): Promise<RecheckRow | undefined> {
  // Only the configured provider can answer for a person: another issuer's token would read as unknown.
  return trx('people')
    .select('person_id', 'issuer', 'subject', 'refresh_token_sealed')
    .where({ person_id: person.personId, issuer: person.issuer })
    .whereNull('removed_at')
    .whereRaw('(rechecked_at is null or rechecked_at <= now() - make_interval(secs => ?))', [dueSeconds])
    .forUpdate()
    .skipLocked()
    .first();
}

/** The person of a live session cookie when they are due a recheck; undefined otherwise. */
export async function dueSessionPerson(
  db: Db,
  sessionId: string,
  dueSeconds: number,
): Promise<string | undefined> {
  const row = await db('console_sessions as s')
    .join('people as p', 'p.person_id', 's.person_id')
    .where('s.session_hash', sessionHashOf(sessionId))
    .whereNull('s.ended_at')
    .whereNull('p.removed_at')
    .where('s.expires_at', '>', db.fn.now())
    .whereRaw('(p.rechecked_at is null or p.rechecked_at <= now() - make_interval(secs => ?))', [dueSeconds])
    .first('p.person_id');
  return (row as { person_id: string } | undefined)?.person_id;
}

/** Every person of `issuer` (not removed) who owns an active API key: the sweep confirms each. */
export async function peopleOwningActiveKeys(db: Db, issuer: string): Promise<string[]> {
  const rows = await db('api_keys as k')
    .join('people as p', 'p.person_id', 'k.owner')
    .where('k.owner_kind', 'person')
    .where('p.issuer', issuer)
    .whereNull('k.revoked_at')
    .whereNull('p.removed_at')
    .distinct('p.person_id');
  return rows.map((row: { person_id: string }) => row.person_id);
}
