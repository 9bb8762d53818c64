/**
 * Four eyes are two people. Until people have identities of their own, an API key belongs to the person it
 * is named after: two keys with the same person's name are one person, however the name was typed. So names
 * are compared as people read them, not as bytes: Unicode compatibility forms folded (NFKC: "Ｍａｉ" and a
 * decomposed "Mạ" are the letters they show), invisible format characters dropped (a zero-width space
 * makes no new person), every run of white space one space, ends trimmed, and case folded (upper then lower,
 * so "Straße" and "STRASSE" meet). Pure code: the API and the workflows compare with the same function.
 */

/** The form of a person's name two keys are compared by. */
export function personKey(name: string): string {
  const folded = name
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase()
    .toLowerCase();
  return folded.normalize('NFKC');
}

/** Whether two keys belong to one person: the same key, or the same person's name. */
export function isSamePerson(
  a: { keyId: string; name: string },
  b: { keyId: string; name: string },
): boolean {
  return a.keyId === b.keyId || personKey(a.name) === personKey(b.name);
}
