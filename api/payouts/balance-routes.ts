import { z } from 'zod';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { BASE_CURRENCIES } from '../../contracts/remittances';
import { BALANCE_WATCH_WORKFLOW_ID } from '../../contracts/payouts';
import { listThresholds, setThreshold, type BalanceThresholdRow } from '../../db/payouts/balance-thresholds';
import type { Db } from '../../db/shared/knex';
import { CONFIG_DEFAULTS } from '../../platform/config';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import { startWorkflow } from '../workflow-starts';

export interface BalanceWatchDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  /** BALANCE_WATCH_INTERVAL: seconds between two readings of the watcher. */
  intervalSeconds?: number;
}

const CURRENCIES = ['VND', ...BASE_CURRENCIES] as const;
const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;

const view = (row: BalanceThresholdRow) => ({
  currency: row.currency,
  threshold: Number(row.threshold),
  setBy: row.set_by,
  setAt: new Date(row.set_at).toISOString(),
  // What the watcher last saw: null until its first reading.
  low: row.below,
  lastBalance: row.last_balance === null ? null : Number(row.last_balance),
  checkedAt: row.checked_at ? new Date(row.checked_at).toISOString() : null,
});

/**
 * Starts the one watcher once a threshold exists; a watcher already running is the same watcher (its
 * interval is the one it started with, until it is restarted).
 */
async function startWatcher(deps: BalanceWatchDeps): Promise<void> {
  try {
    await startWorkflow(deps.temporal, 'balanceWatch', {
      taskQueue: deps.taskQueue,
      workflowId: BALANCE_WATCH_WORKFLOW_ID,
      args: [{ intervalSeconds: deps.intervalSeconds ?? CONFIG_DEFAULTS.BALANCE_WATCH_INTERVAL }],
      staticSummary: 'Reads the merchant balances against their thresholds',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export function balanceThresholdRoutes(deps: BalanceWatchDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/balance-thresholds',
      summary:
        'The threshold of each watched balance and what the watcher last saw (low: below the threshold or short of the runs waiting for funds).',
      tag: 'payouts',
      access: { roles: READERS },
      handler: async () => ({ body: { thresholds: (await listThresholds(deps.db)).map(view) } }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/balance-thresholds/:currency',
      summary:
        'Set the threshold of a currency balance (major units); below it, or short of the runs waiting for funds, the watcher tells balance.low once, and balance.recovered when it is over.',
      tag: 'payouts',
      access: { roles: ['payouts-approver'] },
      audit: { action: 'balance_threshold.set', target: 'balance_threshold' },
      params: z.object({ currency: z.enum(CURRENCIES) }),
      body: z.object({ threshold: z.number().int().min(0).max(1_000_000_000_000) }),
      responseStatus: 200,
      handler: async ({ params, body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const row = await setThreshold(deps.db, {
          currency: params.currency,
          threshold: body.threshold,
          by: principal.name,
        });
        audit.note({ details: { threshold: body.threshold } });
        await startWatcher(deps);
        return { body: view(row) };
      },
    }),
  ];
}
