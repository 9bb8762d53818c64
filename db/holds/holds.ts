/**
 * Hold episodes and the items held under them (migration 0021). Every change of an episode is one
 * transaction that locks the kind's live row first, so two admins acting at once are taken in turn, and
 * writes its event in the same transaction (the events outbox).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { isSamePerson } from '../../contracts/shared';
import {
  HOLD_KINDS,
  RELEASE_RATE,
  STOPPING_STATUSES,
  type HeldItem,
  type HeldItemPage,
  type HoldEpisodeStatus,
  type HoldKind,
  type HoldPerson,
  type HoldView,
} from '../../contracts/holds';
import type { EventType, HoldSnapshot } from '../../platform/event-catalogue';
import { recordEvent } from '../events/events';

export interface HoldRow {
  hold_id: string;
  kind: HoldKind;
  status: HoldEpisodeStatus;
  reason: string;
  proposed_by_key: string;
  proposed_by: string;
  proposed_at: Date;
  held_by_key: string | null;
  held_by: string | null;
  held_at: Date | null;
  release_rate_per_minute: number | null;
  release_proposed_by_key: string | null;
  release_proposed_by: string | null;
  release_confirmed_by_key: string | null;
  release_confirmed_by: string | null;
  release_started_at: Date | null;
  ended_at: Date | null;
}

const ENDED: readonly HoldEpisodeStatus[] = ['released', 'withdrawn'];

/** Why a change was refused; the API turns each into its answer. */
export type HoldRefusal =
  | { refused: 'state'; status: HoldEpisodeStatus | 'off' }
  | { refused: 'same_person'; proposedBy: string }
  | { refused: 'rate_mismatch'; proposedRate: number };

export type HoldChange = { row: HoldRow } | HoldRefusal;

const liveRow = (trx: Knex.Transaction, kind: HoldKind) =>
  trx('holds').where({ kind }).whereNotIn('status', ENDED).forUpdate().first() as Promise<
    HoldRow | undefined
  >;

/** Serialises changes of one kind, also while it has no live row (two first proposals at once). */
const lockKind = (trx: Knex.Transaction, kind: HoldKind) =>
  trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`holds:${kind}`]);

/** The first admin's call proposes a hold; another person's confirms it (then the kind is held). */
export async function proposeOrConfirmHold(
  db: Db,
  input: { kind: HoldKind; reason: string; by: HoldPerson },
): Promise<HoldChange> {
  return db.transaction(async (trx) => {
    await lockKind(trx, input.kind);
    const live = await liveRow(trx, input.kind);
    if (!live) {
      const [row] = (await trx('holds')
        .insert({
          hold_id: `hold_${input.kind}_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
          kind: input.kind,
          status: 'proposed',
          reason: input.reason,
          proposed_by_key: input.by.keyId,
          proposed_by: input.by.name,
        })
        .returning('*')) as HoldRow[];
      await emit(trx, 'hold.proposed', row!, input.by.name);
      return { row: row! };
    }
    if (live.status !== 'proposed') return { refused: 'state', status: live.status };
    if (isSamePerson(input.by, { keyId: live.proposed_by_key, name: live.proposed_by }))
      return { refused: 'same_person', proposedBy: live.proposed_by };
    const [row] = (await trx('holds')
      .where({ hold_id: live.hold_id })
      .update({
        status: 'held',
        held_by_key: input.by.keyId,
        held_by: input.by.name,
        held_at: trx.fn.now(),
      })
      .returning('*')) as HoldRow[];
    await emit(trx, 'hold.held', row!, input.by.name);
    return { row: row! };
  });
}

/**
 * The first admin's call proposes a release at a rate; another person's confirms it, inside the same
 * transaction as `start` (which starts the release workflow), so `releasing` always has its workflow.
 * The confirmer's rate, when given, must be the proposed one.
 */
export async function proposeOrConfirmRelease(
  db: Db,
  input: { kind: HoldKind; ratePerMinute?: number; by: HoldPerson },
  start: (row: HoldRow) => Promise<void>,
): Promise<HoldChange> {
  return db.transaction(async (trx) => {
    await lockKind(trx, input.kind);
    const live = await liveRow(trx, input.kind);
    if (!live) return { refused: 'state', status: 'off' };
    if (live.status === 'held') {
      const [row] = (await trx('holds')
        .where({ hold_id: live.hold_id })
        .update({
          status: 'release_proposed',
          release_rate_per_minute: input.ratePerMinute ?? RELEASE_RATE.default,
          release_proposed_by_key: input.by.keyId,
          release_proposed_by: input.by.name,
        })
        .returning('*')) as HoldRow[];
      await emit(trx, 'hold.release_proposed', row!, input.by.name);
      return { row: row! };
    }
    if (live.status !== 'release_proposed') return { refused: 'state', status: live.status };
    const proposer = { keyId: live.release_proposed_by_key!, name: live.release_proposed_by! };
    if (isSamePerson(input.by, proposer)) return { refused: 'same_person', proposedBy: proposer.name };
    const proposedRate = live.release_rate_per_minute!;
    if (input.ratePerMinute !== undefined && input.ratePerMinute !== proposedRate)
      return { refused: 'rate_mismatch', proposedRate };
    const [row] = (await trx('holds')
      .where({ hold_id: live.hold_id })
      .update({
        status: 'releasing',
        release_confirmed_by_key: input.by.keyId,
        release_confirmed_by: input.by.name,
        release_started_at: trx.fn.now(),
      })
      .returning('*')) as HoldRow[];
    await start(row!);
    return { row: row! };
  });
}

/** Withdraws the kind's unconfirmed proposal: a hold proposal ends, a release proposal leaves it held. */
export async function withdrawProposal(
  db: Db,
  input: { kind: HoldKind; by: HoldPerson },
): Promise<HoldChange> {
  return db.transaction(async (trx) => {
    await lockKind(trx, input.kind);
    const live = await liveRow(trx, input.kind);
    if (!live || (live.status !== 'proposed' && live.status !== 'release_proposed'))
      return { refused: 'state', status: live?.status ?? 'off' };
    const change =
      live.status === 'proposed'
        ? { status: 'withdrawn', ended_at: trx.fn.now() }
        : {
            status: 'held',
            release_rate_per_minute: null,
            release_proposed_by_key: null,
            release_proposed_by: null,
          };
    const [row] = (await trx('holds')
      .where({ hold_id: live.hold_id })
      .update(change)
      .returning('*')) as HoldRow[];
    await emit(trx, 'hold.withdrawn', row!, input.by.name);
    return { row: row! };
  });
}

/** The release workflow's end: the episode released, with its event. A second call changes nothing. */
export async function finishRelease(db: Db, holdId: string): Promise<void> {
  await db.transaction(async (trx) => {
    const row = (await trx('holds').where({ hold_id: holdId }).forUpdate().first()) as HoldRow | undefined;
    if (!row || row.status !== 'releasing') return;
    const [after] = (await trx('holds')
      .where({ hold_id: holdId })
      .update({ status: 'released', ended_at: trx.fn.now() })
      .returning('*')) as HoldRow[];
    await emit(trx, 'hold.released', after!, after!.release_confirmed_by ?? '');
  });
}

/** The holdId stopping each kind now (held, or held with a release only proposed). */
export async function stoppingHolds(db: Db): Promise<Map<HoldKind, string>> {
  const rows = (await db('holds').whereIn('status', STOPPING_STATUSES).select('kind', 'hold_id')) as Array<
    Pick<HoldRow, 'kind' | 'hold_id'>
  >;
  return new Map(rows.map((row) => [row.kind, row.hold_id]));
}

/** Whether an episode has not ended: its items wait for the release workflow, not for a timer. */
export async function holdNotEnded(db: Db, holdId: string): Promise<boolean> {
  const row = (await db('holds').where({ hold_id: holdId }).first('status')) as
    Pick<HoldRow, 'status'> | undefined;
  return row !== undefined && !ENDED.includes(row.status);
}

export async function recordHeldItem(db: Db, item: HeldItem): Promise<{ holdNotEnded: boolean }> {
  await db('held_items')
    .insert({
      hold_id: item.holdId,
      kind: item.kind,
      workflow_id: item.workflowId,
      object_id: item.objectId,
      amount_vnd: item.amountVnd,
    })
    .onConflict(['hold_id', 'workflow_id'])
    .ignore();
  return { holdNotEnded: await holdNotEnded(db, item.holdId) };
}

export async function markHeldItemReleased(db: Db, input: { holdId: string; workflowId: string }) {
  await db('held_items')
    .where({ hold_id: input.holdId, workflow_id: input.workflowId })
    .whereNull('released_at')
    .update({ released_at: db.fn.now() });
}

/** Held items of an episode in the order they stopped, after a cursor. */
export async function heldItemsAfter(
  db: Db,
  input: { holdId: string; after?: { heldAt: string; id: string }; limit: number },
): Promise<HeldItemPage> {
  const query = db('held_items').where({ hold_id: input.holdId });
  if (input.after)
    query.whereRaw('(held_at, id) > (?::timestamptz, ?::bigint)', [input.after.heldAt, input.after.id]);
  const rows = (await query
    .orderBy([{ column: 'held_at' }, { column: 'id' }])
    .limit(input.limit)
    .select(db.raw(`id::text as id`), 'workflow_id', db.raw(`to_json(held_at)#>>'{}' as held_at`))) as Array<{
    id: string;
    workflow_id: string;
    held_at: string;
  }>;
  return { items: rows.map((row) => ({ id: row.id, workflowId: row.workflow_id, heldAt: row.held_at })) };
}

/** Items of an episode: those still waiting, or all of them. */
async function heldSums(
  db: Db | Knex.Transaction,
  holdId: string,
  waitingOnly: boolean,
): Promise<{ count: number; totalVnd: number }> {
  const query = db('held_items').where({ hold_id: holdId });
  if (waitingOnly) query.whereNull('released_at');
  const [sums] = (await query.select(
    db.raw('count(*)::int as count'),
    db.raw('coalesce(sum(amount_vnd), 0)::bigint as total'),
  )) as Array<{ count: number; total: string }>;
  return { count: sums!.count, totalVnd: Number(sums!.total) };
}

/** Every kind, always, with its live episode and what is held under it now (GET /v1/holds). */
export async function holdsOverview(db: Db): Promise<HoldView[]> {
  const rows = (await db('holds').whereNotIn('status', ENDED)) as HoldRow[];
  return Promise.all(
    HOLD_KINDS.map(async (kind) => {
      const row = rows.find((candidate) => candidate.kind === kind);
      if (!row)
        return {
          kind,
          status: 'off',
          holdId: null,
          reason: null,
          proposedBy: null,
          heldBy: [],
          heldAt: null,
          held: { count: 0, totalVnd: 0 },
        };
      const held = await heldSums(db, row.hold_id, true);
      return {
        kind,
        status: row.status as HoldView['status'],
        holdId: row.hold_id,
        reason: row.reason,
        proposedBy: row.proposed_by,
        heldBy: heldByOf(row),
        heldAt: row.held_at ? new Date(row.held_at).toISOString() : null,
        held,
        ...(row.release_rate_per_minute !== null && {
          release: {
            ratePerMinute: row.release_rate_per_minute,
            proposedBy: row.release_proposed_by,
            confirmedBy: row.release_confirmed_by,
            startedAt: row.release_started_at ? new Date(row.release_started_at).toISOString() : null,
            remaining: held.count,
          },
        }),
      };
    }),
  );
}

const heldByOf = (row: HoldRow) => [row.proposed_by, ...(row.held_by ? [row.held_by] : [])];

async function emit(
  trx: Knex.Transaction,
  type: EventType & `hold.${string}`,
  row: HoldRow,
  by: string,
): Promise<void> {
  const sums = await heldSums(trx, row.hold_id, false);
  const snapshot: HoldSnapshot = {
    holdId: row.hold_id,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    by,
    proposedBy: row.proposed_by,
    heldBy: heldByOf(row),
    heldCount: sums.count,
    heldTotalVnd: sums.totalVnd,
    ratePerMinute: row.release_rate_per_minute,
  };
  await recordEvent(trx, type, row.hold_id, snapshot);
}
