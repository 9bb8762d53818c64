/**
 * Thresholds per currency balance and what the watcher last saw (migration 0024). A reading is recorded in
 * one transaction that locks the currency's row, so two readings at once (the timer's and a batch's) tell a
 * crossing once: the second finds the state already changed.
 */
import type { Db } from '../shared/knex';
import type { BalanceReading } from '../../contracts/payouts';
import type { BalanceSnapshot } from '../../platform/event-catalogue';
import { recordEvent } from '../events/events';

export interface BalanceThresholdRow {
  currency: string;
  threshold: string;
  set_by: string;
  set_at: Date;
  below: boolean | null;
  last_balance: string | null;
  checked_at: Date | null;
}

export async function setThreshold(db: Db, input: { currency: string; threshold: number; by: string }) {
  const [row] = (await db('balance_thresholds')
    .insert({ currency: input.currency, threshold: input.threshold, set_by: input.by })
    .onConflict('currency')
    .merge({ threshold: input.threshold, set_by: input.by, set_at: db.fn.now() })
    .returning('*')) as BalanceThresholdRow[];
  return row!;
}

export const listThresholds = (db: Db) =>
  db('balance_thresholds').orderBy('currency') as Promise<BalanceThresholdRow[]>;

export const thresholdOf = (db: Db, currency: string) =>
  db('balance_thresholds').where({ currency }).first() as Promise<BalanceThresholdRow | undefined>;

/** What the payout runs waiting for funds need (VND): their total and how many. */
export async function waitingForFunds(db: Db): Promise<{ amount: number; runs: number }> {
  const [sums] = (await db('payout_runs')
    .where({ status: 'awaiting_funds' })
    .select(
      db.raw('coalesce(sum(total_amount), 0)::bigint as amount'),
      db.raw('count(*)::int as runs'),
    )) as Array<{
    amount: string;
    runs: number;
  }>;
  return { amount: Number(sums!.amount), runs: sums!.runs };
}

/**
 * Records a reading. Low: below the threshold, or short of what waits (`needed`: the runs awaiting funds,
 * plus a batch about to be created). A change of low-ness is told with its event, in the same transaction.
 */
export async function recordReading(
  db: Db,
  input: {
    currency: string;
    balance: number;
    waiting: { amount: number; runs: number };
    extraNeeded?: number;
  },
): Promise<BalanceReading | undefined> {
  return db.transaction(async (trx) => {
    const row = (await trx('balance_thresholds').where({ currency: input.currency }).forUpdate().first()) as
      BalanceThresholdRow | undefined;
    if (!row) return undefined;
    const threshold = Number(row.threshold);
    const needed = input.waiting.amount + (input.extraNeeded ?? 0);
    const low = input.balance < threshold || input.balance < needed;
    const told = low === (row.below ?? false) ? null : low ? 'balance.low' : 'balance.recovered';
    await trx('balance_thresholds')
      .where({ currency: input.currency })
      .update({ below: low, last_balance: input.balance, checked_at: trx.fn.now() });
    if (told) {
      const snapshot: BalanceSnapshot = {
        currency: input.currency,
        balance: input.balance,
        threshold,
        shortBy: Math.max(0, needed - input.balance),
        waitingAmount: input.waiting.amount,
        waitingRuns: input.waiting.runs,
      };
      await recordEvent(trx, told, input.currency, snapshot);
    }
    return { currency: input.currency, balance: input.balance, threshold, low, told };
  });
}

/** Batch statuses that have not drawn on the balance yet: what a waiting run still needs. */
const NOT_YET_DRAWN = [
  'queued',
  'initiating',
  'creating',
  'validating',
  'checking_balance',
  'awaiting_funds',
];

export interface WaitingRun {
  runId: string;
  workflowId: string;
  remaining: number;
}

/** Runs waiting for funds, oldest upload first, each with the amount its batches still need. */
export async function runsWaitingForFunds(db: Db): Promise<WaitingRun[]> {
  const rows = (await db('payout_runs as r')
    .leftJoin('payout_batches as b', function () {
      this.on('b.run_id', 'r.run_id').onIn('b.status', NOT_YET_DRAWN);
    })
    .where('r.status', 'awaiting_funds')
    .groupBy('r.run_id', 'r.workflow_id', 'r.uploaded_at')
    .orderBy([
      { column: 'r.uploaded_at', order: 'asc' },
      { column: 'r.run_id', order: 'asc' },
    ])
    .select(
      'r.run_id',
      'r.workflow_id',
      db.raw('coalesce(sum(b.total_amount), 0)::bigint as remaining'),
    )) as Array<{ run_id: string; workflow_id: string; remaining: string }>;
  return rows.map((row) => ({
    runId: row.run_id,
    workflowId: row.workflow_id,
    remaining: Number(row.remaining),
  }));
}
