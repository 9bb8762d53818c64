/**
 * Payout runs: upload a CSV (a maker), approve it (an approver), let the run pay and reconcile. Some
 * rows go to sandbox scenario receivers: ineligible (1007, 4002), pending that settles later (7000),
 * pending that fails (7099), failed (1008). Each row's expected final state is kept for the check.
 */
import type { ItemState } from '../../../contracts/payouts';
import { describeAnswer, inPool, waitUntil, type DriveFailure, type WorkloadContext } from './context';

export interface PayoutRowIntent {
  payoutId: string;
  wallet: string;
  amount: number;
  expected: ItemState;
}

export interface PayoutRunIntent {
  file: string;
  runId?: string;
  rows: PayoutRowIntent[];
}

export interface PayoutsDriven {
  runs: PayoutRunIntent[];
  failures: DriveFailure[];
}

const SCENARIOS: Array<{ share: number; lastFour: string; expected: ItemState }> = [
  { share: 0.03, lastFour: '1007', expected: 'INELIGIBLE' },
  { share: 0.02, lastFour: '4002', expected: 'INELIGIBLE' },
  { share: 0.03, lastFour: '7000', expected: 'SUCCEEDED' },
  { share: 0.01, lastFour: '7099', expected: 'FAILED' },
  { share: 0.03, lastFour: '1008', expected: 'FAILED' },
];
/** Receivers ending in 55 are no scenario: the payout succeeds. */
const PLAIN = { lastFour: '55', expected: 'SUCCEEDED' as ItemState };

export const FINAL_RUN_STATUSES = ['reconciled', 'needs_attention', 'rejected', 'expired'];

export async function drivePayouts(
  ctx: WorkloadContext,
  counts: { runs: number; rowsPerRun: number },
): Promise<PayoutsDriven> {
  const failures: DriveFailure[] = [];
  const runs: PayoutRunIntent[] = Array.from({ length: counts.runs }, (_, run) => {
    const file = `${ctx.tag}-run${run + 1}`;
    const rows = Array.from({ length: counts.rowsPerRun }, (_, index) => {
      let roll = ctx.random.next();
      const scenario = SCENARIOS.find((candidate) => (roll -= candidate.share) < 0) ?? PLAIN;
      const serial = String(run * 10_000 + index).padStart(6, '0');
      return {
        payoutId: `${file}-${index + 1}`,
        wallet: scenario === PLAIN ? `09${serial}55` : `09${serial}${scenario.lastFour}`,
        amount: 10_000 + index,
        expected: scenario.expected,
      };
    });
    return { file, rows };
  });

  await inPool(runs, runs.length, async (run) => {
    const csv = [
      'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
      ...run.rows.map(
        (row, index) => `${row.payoutId},${row.wallet},Receiver ${index + 1},,${row.amount},Chaos payout,`,
      ),
    ].join('\n');
    const uploaded = await ctx.api.call(ctx.keys.maker, 'POST', `/v1/payout-runs?fileName=${run.file}.csv`, {
      body: csv,
      contentType: 'text/csv',
      idempotencyKey: `upload-${run.file}`,
    });
    if (uploaded.status !== 201) {
      failures.push({ id: run.file, step: 'upload', detail: describeAnswer(uploaded) });
      return;
    }
    run.runId = uploaded.body.runId as string;
    const approved = await ctx.api.call(ctx.keys.approver, 'POST', `/v1/payout-runs/${run.runId}/approve`, {
      body: {},
    });
    // 409 after a retry: the first approval was applied and its answer lost with the API process.
    if (approved.status !== 200 && approved.body?.error?.code !== 'run_not_awaiting_approval')
      failures.push({ id: run.runId, step: 'approve', detail: describeAnswer(approved) });
    ctx.log(`payout run ${run.runId} (${run.rows.length} rows) uploaded and approved`);
  });

  const runIds = runs.flatMap((run) => (run.runId ? [run.runId] : []));
  await waitUntil(ctx.deadline, async () => {
    const open = await ctx
      .db('payout_runs')
      .whereIn('run_id', runIds)
      .whereNotIn('status', FINAL_RUN_STATUSES);
    return open.length === 0 ? true : undefined;
  });
  return { runs, failures };
}
