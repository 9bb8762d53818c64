/**
 * Four eyes are two people. Until people have identities of their own, a key belongs to the person its
 * name names: two keys of one person count as one, and names are compared as people read them (Unicode
 * NFKC, case folded, runs of whitespace as one space), not as bytes.
 */
export interface Person {
  keyId: string;
  name: string;
}

/** The form two names of one person share. */
export const personOf = (name: string): string =>
  name.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();

export const isSamePerson = (a: Person, b: Person): boolean =>
  a.keyId === b.keyId || personOf(a.name) === personOf(b.name);
