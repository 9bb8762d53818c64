/**
 * Four eyes are two people: a key and the person it belongs to (the shape of a DecisionMaker), compared as
 * people by `isSamePerson` / `personKey` in contracts/shared/persons.ts, the one comparison payout runs use
 * too. Declared here rather than imported: contracts/shared already depends on this module.
 */
export interface Person {
  keyId: string;
  name: string;
}
