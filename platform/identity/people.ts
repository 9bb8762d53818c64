/**
 * The people the embedded provider knows: a subject (stable, never reused), a display name, an email and
 * the groups the provider puts in tokens. A company's own provider replaces all of this; payrun itself
 * never reads this directory, only the tokens the provider issues from it.
 *
 * A file directory is read again whenever the file changes, so deleting a person from the file is
 * enough for the provider to stop signing them in, without a restart.
 */
import fs from 'node:fs';

export interface DirectoryPerson {
  subject: string;
  name: string;
  email: string;
  groups: string[];
}

export interface PeopleDirectory {
  find(subject: string): DirectoryPerson | undefined;
  list(): DirectoryPerson[];
}

/** One named demo person per role of api/auth/roles.ts; their groups are the role names (the default mapping). */
export const DEMO_PEOPLE: readonly DirectoryPerson[] = [
  { subject: 'an.admin', name: 'Trần Thị An', email: 'an.admin@payrun.test', groups: ['admin'] },
  { subject: 'binh.maker', name: 'Lê Văn Bình', email: 'binh.maker@payrun.test', groups: ['payouts-maker'] },
  {
    subject: 'chi.approver',
    name: 'Phạm Minh Chi',
    email: 'chi.approver@payrun.test',
    groups: ['payouts-approver'],
  },
  { subject: 'dung.billing', name: 'Hoàng Dung', email: 'dung.billing@payrun.test', groups: ['billing'] },
  {
    subject: 'giang.remittance',
    name: 'Vũ Thu Giang',
    email: 'giang.remittance@payrun.test',
    groups: ['remittance'],
  },
  { subject: 'hoa.payments', name: 'Đỗ Thanh Hoa', email: 'hoa.payments@payrun.test', groups: ['payments'] },
  { subject: 'lan.viewer', name: 'Ngô Lan', email: 'lan.viewer@payrun.test', groups: ['viewer'] },
];

export function isDirectoryPerson(value: unknown): value is DirectoryPerson {
  if (typeof value !== 'object' || value === null) return false;
  const person = value as Record<string, unknown>;
  return (
    typeof person.subject === 'string' &&
    person.subject.length > 0 &&
    typeof person.name === 'string' &&
    typeof person.email === 'string' &&
    Array.isArray(person.groups) &&
    person.groups.every((group) => typeof group === 'string')
  );
}

export function memoryDirectory(people: readonly DirectoryPerson[]): PeopleDirectory {
  return {
    find: (subject) => people.find((person) => person.subject === subject),
    list: () => [...people],
  };
}

/**
 * The directory kept in `file` (a JSON array of people). A file that cannot be read or parsed is an empty
 * directory: nobody signs in on a broken list, which is the safe reading for a list of who may.
 */
export function fileDirectory(file: string): PeopleDirectory {
  let cached: { mtimeMs: number; people: DirectoryPerson[] } | undefined;
  const read = (): DirectoryPerson[] => {
    try {
      const { mtimeMs } = fs.statSync(file);
      if (cached?.mtimeMs === mtimeMs) return cached.people;
      const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      const people = Array.isArray(parsed) ? parsed.filter(isDirectoryPerson) : [];
      cached = { mtimeMs, people };
      return people;
    } catch {
      cached = undefined;
      return [];
    }
  };
  return {
    find: (subject) => read().find((person) => person.subject === subject),
    list: read,
  };
}
