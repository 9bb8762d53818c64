import type { Db } from '../shared/knex';

export interface PersonRow {
  person_id: string;
  issuer: string;
  subject: string;
  name: string;
  email: string | null;
  roles: string[];
  first_seen_at: Date;
  last_seen_at: Date;
  removed_at: Date | null;
  removed_by: string | null;
}

/** `<issuer>#<sub>`: a subject is unique only within its issuer. */
export const personIdOf = (issuer: string, subject: string): string => `${issuer}#${subject}`;

export async function findPerson(db: Db, personId: string): Promise<PersonRow | undefined> {
  return db('people').where({ person_id: personId }).first();
}

/**
 * Records a sign-in: the person as the provider describes them now. A removed person stays removed (the
 * row is returned unchanged, and the caller refuses the sign-in): offboarding is undone by an admin, not
 * by the provider still knowing the person.
 */
export async function recordSignIn(
  db: Db,
  person: { issuer: string; subject: string; name: string; email: string | null; roles: string[] },
): Promise<PersonRow> {
  const personId = personIdOf(person.issuer, person.subject);
  const [row] = await db('people')
    .insert({ person_id: personId, ...person })
    .onConflict('person_id')
    .merge({
      name: db.raw('case when people.removed_at is null then excluded.name else people.name end'),
      email: db.raw('case when people.removed_at is null then excluded.email else people.email end'),
      roles: db.raw('case when people.removed_at is null then excluded.roles else people.roles end'),
      last_seen_at: db.fn.now(),
    })
    .returning('*');
  return row as PersonRow;
}

/** Marks a person removed; false when they were already removed or never signed in. */
export async function markPersonRemoved(db: Db, personId: string, removedBy: string): Promise<boolean> {
  const changed = await db('people')
    .where({ person_id: personId })
    .whereNull('removed_at')
    .update({ removed_at: db.fn.now(), removed_by: removedBy });
  return changed > 0;
}

/** Every person with this subject, whichever issuer (normally one). */
export async function peopleWithSubject(db: Db, subject: string): Promise<PersonRow[]> {
  return db('people').where({ subject });
}
