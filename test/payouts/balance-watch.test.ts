/**
 * Balance warnings over HTTP, with real workflows on the time-skipping server and the sandbox gateway: a
 * threshold on the VND balance, a balance that falls below it, and a run whose batch the gateway would
 * refuse: `balance.low` is told before the run waits for funds, once, and `balance.recovered` once the
 * top-up lets the run go on. The watcher reads every BALANCE_WATCH_INTERVAL seconds (an hour here, so the
 * readings that count are the ones before each batch). A database of the file's own: thresholds are global.
 */
import { describe, expect, it } from 'vitest';
import { BALANCE_WATCH_WORKFLOW_ID } from '../../contracts/payouts';
import { callApi } from '../support/api';
import { captureHistory } from '../support/history-capture';
import { freshId } from '../support/ids';
import { payoutFile, waitForRunStatus } from '../support/payout-stack';
import { testPayoutSettings } from '../support/settings';
import { useScratchStack } from '../support/stack';
import { eventually } from '../support/wait';

type Keys = 'maker' | 'approver';

const taskQueue = `balance-watch-${freshId('', 8)}`;
const t = useScratchStack<Keys>('balance-watch', {
  taskQueue,
  keys: {
    maker: { name: 'maker', roles: ['payouts-maker'] },
    approver: { name: 'approver', roles: ['payouts-approver'] },
  },
  sandbox: { balances: { VND: 100_000_000 }, timing: { batchValidationMs: 20, batchPaymentMs: 20 } },
  app: { payouts: { ...testPayoutSettings(taskQueue), balanceWatchIntervalSeconds: 3_600 } },
  workerTuning: { maxCachedWorkflows: 0 },
});

const balanceEvents = async () =>
  (await t.db('events').where({ object_type: 'balance' }).orderBy(['txid', 'position'])) as Array<{
    type: string;
    snapshot: Record<string, number | string>;
  }>;

describe('balance warnings', () => {
  it('tells balance.low before a batch the balance cannot cover is refused, once, and balance.recovered after the top-up', async () => {
    const refused = await callApi(t.stack.api, t.stack.maker, 'PUT', '/v1/balance-thresholds/VND', {
      threshold: 1_000_000,
    });
    expect(refused.status).toBe(403);
    const negative = await callApi(t.stack.api, t.stack.approver, 'PUT', '/v1/balance-thresholds/VND', {
      threshold: -1,
    });
    expect(negative.status).toBe(400);
    expect(negative.body.error.problems[0].field).toBe('body.threshold');

    const set = await callApi(t.stack.api, t.stack.approver, 'PUT', '/v1/balance-thresholds/VND', {
      threshold: 1_000_000,
    });
    expect(set.status).toBe(200);
    // The watcher's first reading: 100,000,000 VND is above the threshold, and nothing is told.
    await eventually(async () => {
      const listed = await callApi(t.stack.api, t.stack.maker, 'GET', '/v1/balance-thresholds');
      expect(listed.body.thresholds).toEqual([
        expect.objectContaining({
          currency: 'VND',
          threshold: 1_000_000,
          low: false,
          lastBalance: 100_000_000,
        }),
      ]);
    });
    expect(await balanceEvents()).toEqual([]);
    await captureHistory(t.env.client, BALANCE_WATCH_WORKFLOW_ID, 'first-reading-then-timer', {
      stillOpen: true,
    });

    t.stack.sandbox.admin.setBalance('VND', 50_000);
    const csv = payoutFile(freshId('bw-'), 2, () => '0912345678'); // 10,000 + 10,001 VND
    const uploaded = await fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=low.csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.stack.maker}`, 'content-type': 'text/csv' },
      body: csv,
    });
    const runId = ((await uploaded.json()) as { runId: string }).runId;
    // 50,000 VND covers the run (20,001); set it below the batch so the gateway refuses the batch.
    t.stack.sandbox.admin.setBalance('VND', 15_000);
    const approved = await callApi(
      t.stack.api,
      t.stack.approver,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      {},
    );
    expect(approved.status).toBe(200);
    await waitForRunStatus(t.db, runId, ['awaiting_funds']);

    const order = (await t
      .db('events')
      .whereIn('type', ['balance.low', 'payout_run.awaiting_funds'])
      .orderBy(['txid', 'position'])) as Array<{ type: string; object_id: string }>;
    expect(
      order.filter((event) => event.type === 'balance.low' || event.object_id === runId).map((e) => e.type),
    ).toEqual(['balance.low', 'payout_run.awaiting_funds']);
    expect((await balanceEvents())[0]!.snapshot).toEqual({
      currency: 'VND',
      balance: 15_000,
      threshold: 1_000_000,
      // The batch about to be created needs 20,001.
      shortBy: 5_001,
      waitingAmount: 0,
      waitingRuns: 0,
    });

    t.stack.sandbox.admin.setBalance('VND', 100_000_000);
    const resumed = await callApi(
      t.stack.api,
      t.stack.approver,
      'POST',
      `/v1/payout-runs/${runId}/resume`,
      {},
    );
    expect(resumed.status).toBe(200);
    await waitForRunStatus(t.db, runId, ['reconciled']);
    expect((await balanceEvents()).map((event) => event.type)).toEqual(['balance.low', 'balance.recovered']);
  });
});
