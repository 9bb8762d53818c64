/**
 * The in-process wake-up from the receiver to the relay: a notification committed to the inbox rings, and
 * the relay of the same process sweeps at once instead of at its next interval. Keyed by the database
 * handle, which each API process builds once and hands to both its routes and its relay, so the two meet
 * without either knowing how the other was built. Relays of other processes hear the same commit through
 * PostgreSQL's NOTIFY (relay.ts).
 */
import type { Db } from '../../db/shared/knex';

const listeners = new WeakMap<Db, Set<() => void>>();

/** Tells every relay on this database handle that the inbox has a new row. */
export function ringInbox(db: Db): void {
  for (const listener of listeners.get(db) ?? []) listener();
}

/** Calls `listener` on every ring until the returned function is called. */
export function onInboxRing(db: Db, listener: () => void): () => void {
  const set = listeners.get(db) ?? new Set();
  listeners.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}
