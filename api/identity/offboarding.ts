/**
 * Removing a person: every session of theirs ends, every key they own is revoked, and the people table
 * remembers them as removed, so a provider that still lists them cannot sign them back in. All in one
 * transaction: a half-done offboarding would leave a way in.
 */
import type { Db } from '../../db/shared/knex';
import { revokeKeysOwnedBy } from '../../db/shared/api-keys';
import { markPersonRemoved, peopleWithSubject, personIdOf, recordSignIn } from '../../db/identity/people';
import { endSessionsOf } from '../../db/identity/sessions';

export interface Offboarded {
  subject: string;
  personIds: string[];
  sessionsEnded: number;
  keysRevoked: string[];
}

export async function offboardPerson(
  db: Db,
  input: {
    subject: string;
    issuer?: string;
    removedBy: string;
    /** Only the person of `issuer`: one provider's answer speaks for its own people, not another's. */
    onlyIssuer?: boolean;
  },
): Promise<Offboarded> {
  return db.transaction(async (trx) => {
    const known = (await peopleWithSubject(trx, input.subject))
      .filter((person) => !input.onlyIssuer || person.issuer === input.issuer)
      .map((person) => person.person_id);
    // Someone who never signed in is recorded as removed too, so their first sign-in is refused.
    if (input.issuer && !known.includes(personIdOf(input.issuer, input.subject))) {
      await recordSignIn(trx, {
        issuer: input.issuer,
        subject: input.subject,
        name: input.subject,
        email: null,
        roles: [],
      });
      known.push(personIdOf(input.issuer, input.subject));
    }
    let sessionsEnded = 0;
    for (const personId of known) {
      await markPersonRemoved(trx, personId, input.removedBy);
      sessionsEnded += await endSessionsOf(trx, personId);
    }
    const keysRevoked = await revokeKeysOwnedBy(trx, known);
    return { subject: input.subject, personIds: known, sessionsEnded, keysRevoked };
  });
}
