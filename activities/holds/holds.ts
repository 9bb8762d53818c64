/**
 * The workers' side of the hold switch: the check a money-moving gateway activity makes before it sends
 * anything, and the records held workflows and the release workflow keep.
 *
 * The check costs no write and, per worker, at most one read a second (DESIGN.md decision 16): the holds
 * are read from the database into a cache shared by every activity of the worker (one per Db instance),
 * refreshed when older than HOLD_STATE_MAX_AGE_MS. So a hold stops every step that begins more than a
 * second (plus one read) after it was confirmed; a step that began before may still send.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../db/shared/knex';
import {
  finishRelease,
  heldItemsAfter,
  holdNotEnded,
  markHeldItemReleased,
  recordHeldItem,
  stoppingHolds,
} from '../../db/holds/holds';
import {
  HELD,
  HOLD_STATE_MAX_AGE_MS,
  type HeldDetails,
  type HoldActivities,
  type HoldKind,
} from '../../contracts/holds';
import { bindActivities } from '../shared/bind';

interface CachedHolds {
  readAt: number;
  reading?: Promise<Map<HoldKind, string>>;
  holds: Map<HoldKind, string>;
}

const caches = new WeakMap<Db, CachedHolds>();

/** The holdId stopping `kind` now, as this worker last read it (at most HOLD_STATE_MAX_AGE_MS ago). */
export async function holdStopping(db: Db, kind: HoldKind, now = Date.now()): Promise<string | undefined> {
  let cache = caches.get(db);
  if (!cache) {
    cache = { readAt: -Infinity, holds: new Map() };
    caches.set(db, cache);
  }
  if (now - cache.readAt >= HOLD_STATE_MAX_AGE_MS) {
    // One read at a time per worker: activities that find the cache old together share it.
    const entry = cache;
    entry.reading ??= stoppingHolds(db).finally(() => {
      entry.reading = undefined;
    });
    entry.holds = await entry.reading;
    entry.readAt = now;
  }
  return cache.holds.get(kind);
}

/** This activity's attempt number; 1 outside an activity (a test calling it directly). */
function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * Call first in an activity that makes a money-moving gateway call, before it sends anything. On a first
 * attempt, when its kind is held, throws the non-retryable `held` failure: nothing was sent, so stopping
 * here never leaves a payment half made. A later attempt may be a call already sent whose answer was
 * lost: that is the middle of a call, and it goes on (the gateway answers it as the same order).
 * `releasedHold`: the hold whose release resumed this step; it no longer stops it, whatever the cache says.
 * `amountVnd`: the item's amount when the activity reads it from the record (its workflow does not know it).
 */
export async function stopIfHeld(
  db: Db,
  kind: HoldKind,
  releasedHold?: string,
  amountVnd?: number | (() => Promise<number>),
): Promise<void> {
  if (attemptNow() !== 1) return;
  const holdId = await holdStopping(db, kind);
  if (holdId === undefined || holdId === releasedHold) return;
  // Read only when held: the normal path costs no read for it.
  const amount = typeof amountVnd === 'function' ? await amountVnd() : amountVnd;
  const details: HeldDetails = { holdId, kind, ...(amount !== undefined && { amountVnd: amount }) };
  throw ApplicationFailure.nonRetryable(
    `Outgoing ${kind.replaceAll('_', ' ')}s are held (hold ${holdId}); nothing was sent.`,
    HELD,
    details,
  );
}

export const createHoldActivities = (deps: { db: Db }): HoldActivities =>
  bindActivities(deps, {
    recordHeldItem: ({ db }: { db: Db }, item: Parameters<HoldActivities['recordHeldItem']>[0]) =>
      recordHeldItem(db, item),
    markHeldItemReleased: ({ db }: { db: Db }, input: { holdId: string; workflowId: string }) =>
      markHeldItemReleased(db, input),
    holdStillOn: ({ db }: { db: Db }, input: { holdId: string }) => holdNotEnded(db, input.holdId),
    listHeldItems: ({ db }: { db: Db }, input: Parameters<HoldActivities['listHeldItems']>[0]) =>
      heldItemsAfter(db, input),
    finishHoldRelease: ({ db }: { db: Db }, input: { holdId: string }) => finishRelease(db, input.holdId),
  });
