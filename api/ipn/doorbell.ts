/**
 * The wake-up from the receiver to the relays: a notification committed to the inbox rings, and relays
 * sweep at once instead of at their next interval. The relay of the same process hears it directly, keyed
 * by the database handle (each API process builds one and hands it to both its routes and its relay, so
 * the two meet without either knowing how the other was built). Relays of other processes hear it through
 * PostgreSQL's NOTIFY, sent after the commit and coalesced: one NOTIFY at a time per process, at most one
 * per `ANNOUNCE_GAP_MS`, and every ring that arrives meanwhile makes one more after it. A process receiving
 * hundreds of notifications a second so sends ten NOTIFYs a second, not one per row (PostgreSQL serialises
 * notifying commits, and each is a round trip the receiver's thread pays for); another process's relay
 * hears of a row at most that much later, where its interval would be seconds.
 * A NOTIFY that fails wakes nobody: the relays' interval sweeps find the row, since it was committed first.
 */
import { announceInboxCommits } from '../../db/shared/ipn-notifications';
import type { Db } from '../../db/shared/knex';

const ANNOUNCE_GAP_MS = 100;
const listeners = new WeakMap<Db, Set<() => void>>();
const announcing = new WeakMap<Db, { again: boolean }>();

/** Tells every relay on this database, in this process and others, that the inbox has new rows. */
export function ringInbox(db: Db): void {
  for (const listener of listeners.get(db) ?? []) listener();
  announce(db);
}

function announce(db: Db): void {
  const under = announcing.get(db);
  if (under) {
    under.again = true;
    return;
  }
  const state = { again: false };
  announcing.set(db, state);
  void (async () => {
    do {
      state.again = false;
      await announceInboxCommits(db).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, ANNOUNCE_GAP_MS).unref());
    } while (state.again);
    announcing.delete(db);
  })();
}

/** Calls `listener` on every ring until the returned function is called. */
export function onInboxRing(db: Db, listener: () => void): () => void {
  const set = listeners.get(db) ?? new Set();
  listeners.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}
