/**
 * Reading the merchant's balances against their thresholds: on the watcher's timer, and before each payout
 * batch is created, so `balance.low` is told before the gateway refuses the batch for want of funds. A
 * reading moves no money; it only records what it saw (db/payouts/balance-thresholds.ts tells each crossing once).
 */
import { log } from '@temporalio/activity';
import type { GatewayClient } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  listThresholds,
  recordReading,
  runsWaitingForFunds,
  thresholdOf,
  waitingForFunds,
} from '../../db/payouts/balance-thresholds';
import type { BalanceReading, BalanceWatchActivities } from '../../contracts/payouts';
import { bindActivities } from '../shared/bind';
import { callGateway, lookupId } from '../shared/gateway-calls';
import { BALANCE_GROUPS } from '../remittances/remittances';
import { resumeFundedRuns } from './auto-resume';

export interface BalanceWatchDeps {
  db: Db;
  gateway: GatewayClient;
  /** DECISION_SIGNING_KEY: signs the watcher's own resumes (activities/payouts/auto-resume.ts). */
  decisionKey: string;
  /** PAYOUT_AUTO_RESUME_FUNDED: resume runs waiting for funds once the VND balance covers them. */
  autoResumeFunded?: boolean;
}

export const createBalanceWatchActivities = (deps: BalanceWatchDeps): BalanceWatchActivities =>
  bindActivities(deps, { watchBalances });

/** disbursement/balance of one currency's group: a fresh lookup each time, since a balance is read, not made. */
async function readBalance(gateway: GatewayClient, currency: string): Promise<number> {
  const id = lookupId('balance');
  const result = await callGateway(gateway, 'disbursement.balance', {
    requestId: id,
    orderId: id,
    orderGroupId: BALANCE_GROUPS[currency as keyof typeof BALANCE_GROUPS],
  });
  return Number((result.body as { amount?: number }).amount ?? 0);
}

/** Payout runs are VND: only the VND balance owes them anything. */
const waitingOn = (db: Db, currency: string) =>
  currency === 'VND' ? waitingForFunds(db) : Promise.resolve({ amount: 0, runs: 0 });

export async function watchBalances(deps: BalanceWatchDeps): Promise<BalanceReading[]> {
  const { db, gateway } = deps;
  const readings: BalanceReading[] = [];
  for (const row of await listThresholds(db)) {
    // The waiting runs are read before the balance: a batch that draws on the balance in between is then
    // both still counted and already gone from the balance, so the watcher errs towards resuming less.
    const resumable =
      row.currency === 'VND' && deps.autoResumeFunded ? await runsWaitingForFunds(db) : undefined;
    const balance = await readBalance(gateway, row.currency);
    const reading = await recordReading(db, {
      currency: row.currency,
      balance,
      waiting: await waitingOn(db, row.currency),
    });
    if (reading) readings.push(reading);
    // Only the timer's reading resumes: the reading before a batch is taken by a run that is not waiting.
    if (resumable) await resumeFundedRuns(deps, resumable, balance);
  }
  return readings;
}

/**
 * The check before a batch of `amount` VND is created, when a VND threshold is set. It never stops the
 * batch: a reading that fails is logged and the gateway's own check at creation decides, as before.
 */
export async function watchBeforeBatch(
  deps: Pick<BalanceWatchDeps, 'db' | 'gateway'>,
  amount: number,
): Promise<void> {
  try {
    if (!(await thresholdOf(deps.db, 'VND'))) return;
    const balance = await readBalance(deps.gateway, 'VND');
    await recordReading(deps.db, {
      currency: 'VND',
      balance,
      waiting: await waitingForFunds(deps.db),
      extraNeeded: amount,
    });
  } catch (error) {
    log.warn('The balance could not be read before a batch; the batch goes on', { error: String(error) });
  }
}
