/**
 * Four eyes are two people: a key and the person it belongs to, compared as people by
 * `isSamePerson` / `personKey` (contracts/shared/persons.ts), the one comparison payout runs use too.
 */
export type { DecisionMaker as Person } from '../shared';
