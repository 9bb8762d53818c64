/**
 * One chunk of a desk (the disbursement desk, the payment desk): a single activity that claims queued items and
 * handles up to `concurrency` of them at once for `chunkMs`, then ends after those under way, so the desk's
 * history grows by one activity per chunk rather than by the items. It heartbeats while it works; a retried
 * attempt (its worker lost) is handed first what the attempt before it claimed and left.
 */
import { Context } from '@temporalio/activity';

export interface DeskChunkLoop<Row> {
  concurrency: number;
  chunkMs: number;
  /** How long an idle chunk waits before it claims again, doubling from `first` up to `longest`. */
  idleWaitMs: { first: number; longest: number };
  /** What an earlier attempt of this chunk claimed and left: handled before anything new is claimed. */
  takenBack: Row[];
  claim(room: number): Promise<Row[]>;
  /** Handles one item; a throw ends the chunk (after the items under way) and fails the attempt. */
  handle(row: Row): Promise<void>;
  /** The heartbeat's details: what the chunk has done so far. */
  progress(): unknown;
}

export async function runDeskChunk<Row>(loop: DeskChunkLoop<Row>): Promise<void> {
  const context = Context.current();
  const endsAt = Date.now() + loop.chunkMs;
  const left = [...loop.takenBack];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const start = (row: Row) => {
    const handling: Promise<void> = loop
      .handle(row)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(handling));
    inFlight.add(handling);
  };
  const stopping = () => failure !== undefined || context.cancellationSignal.aborted;
  let idleMs = loop.idleWaitMs.first;
  while (!stopping() && (left.length > 0 || Date.now() < endsAt)) {
    const room = loop.concurrency - inFlight.size;
    if (room > 0) {
      const rows = left.length > 0 ? left.splice(0, room) : await loop.claim(room);
      rows.forEach(start);
      if (rows.length > 0) {
        idleMs = loop.idleWaitMs.first;
        context.heartbeat(loop.progress());
        continue;
      }
    }
    context.heartbeat(loop.progress());
    const waited = inFlight.size === 0;
    await Promise.race([...inFlight, context.sleep(idleMs).catch(() => undefined)]);
    if (waited) idleMs = Math.min(idleMs * 2, loop.idleWaitMs.longest);
  }
  // The items under way end before the chunk does, so no two attempts of it ever handle the same one at once.
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
}

/** A task a chunk runs at its start and then at most every `everyMs`, between its claims (a desk's sweeps). */
export function whenDue(everyMs: number, task: () => Promise<void>): () => Promise<void> {
  let dueAt = 0;
  return async () => {
    if (Date.now() < dueAt) return;
    dueAt = Date.now() + everyMs;
    await task();
  };
}
