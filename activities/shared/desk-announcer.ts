/**
 * A desk's answers are announced one NOTIFY at a time per process, each naming every item answered since the
 * last: PostgreSQL serialises notifying commits (db/shared/ipn-notifications.ts), so one per item would queue
 * them. A NOTIFY lost with its connection leaves the waiting create call to its own bound (it then answers
 * from the record).
 */
import type { Db } from '../../db/shared/knex';

export function coalescedAnnouncer(
  send: (db: Db, ids: readonly string[]) => Promise<void>,
): (db: Db, id: string) => void {
  const waiting = new WeakMap<Db, { ids: string[]; sending: boolean }>();
  return (db, id) => {
    let state = waiting.get(db);
    if (!state) {
      state = { ids: [], sending: false };
      waiting.set(db, state);
    }
    state.ids.push(id);
    if (state.sending) return;
    state.sending = true;
    const queue = state;
    void (async () => {
      while (queue.ids.length > 0) {
        const ids = queue.ids.splice(0);
        await send(db, ids).catch(() => undefined);
      }
      queue.sending = false;
    })();
  };
}
