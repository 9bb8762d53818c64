/**
 * The check a scheduled run makes ahead of its time (docs/payout-runs.md, "Scheduling"): is the money there,
 * counting every run scheduled before it, and does the gateway still know its receivers? It warns (events, the
 * dashboard) and never cancels: a person approved the time, a person decides what to do about a warning.
 */
import { Context } from '@temporalio/activity';
import type { GatewayClient } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import { getRun, recordScheduledWarning, runReceivers, scheduledTotalBefore } from '../../db/payouts/runs';
import type { ScheduledRunCheck } from '../../contracts/payouts';
import { askGateway, callGateway, lookupId } from '../shared/gateway-calls';

/**
 * At most this many distinct receivers are asked per run: the check is a warning that must end well before
 * the run's time, and the gateway validates every row again when the batch is created anyway.
 */
export const MAX_RECEIVERS_CHECKED = 2000;
const CHECKS_AT_ONCE = 4;
const REFUSALS_SHOWN = 50;

export async function checkScheduledRun(
  { db, gateway }: { db: Db; gateway: GatewayClient },
  { runId }: { runId: string },
): Promise<ScheduledRunCheck> {
  const run = await getRun(db, runId);
  if (!run?.execute_at || run.status !== 'scheduled')
    return { balance: null, needed: 0, fundsShort: false, receiversChecked: 0, receiversRefused: 0 };
  const checkedAt = new Date().toISOString();
  const total = Number(run.total_amount);
  const scheduledBefore = await scheduledTotalBefore(db, runId, run.execute_at);
  const needed = total + scheduledBefore;
  const balance = await merchantBalance(gateway, runId);
  const fundsShort = balance.known && balance.amount < needed;
  if (fundsShort)
    await recordScheduledWarning(db, runId, {
      kind: 'funds_short',
      details: { balance: balance.amount, needed, scheduledBefore, checkedAt },
    });

  const receivers = await checkReceivers(gateway, db, runId);
  const problems = [
    ...(balance.known ? [] : [`The merchant balance could not be read: ${balance.problem}`]),
    ...(receivers.unasked ? [`${receivers.unasked} receivers could not be checked.`] : []),
  ];
  if (receivers.refused.length || problems.length)
    await recordScheduledWarning(db, runId, {
      kind: 'scheduled_check_failed',
      details: {
        receiversChecked: receivers.checked,
        receiversRefused: receivers.refused.length,
        refused: receivers.refused.slice(0, REFUSALS_SHOWN),
        problem: problems.join(' ') || null,
        checkedAt,
      },
    });
  return {
    balance: balance.known ? balance.amount : null,
    needed,
    fundsShort,
    receiversChecked: receivers.checked,
    receiversRefused: receivers.refused.length,
  };
}

/** The balance for the forecast: read fresh, with a lookup id of its own; a refusal fails the read. */
export async function readMerchantBalance(
  { gateway }: { gateway: GatewayClient },
  _input: Record<string, never>,
): Promise<{ balance: number; asOf: string }> {
  const id = lookupId('merchant-balance');
  const result = await callGateway(gateway, 'disbursement.balance', { orderId: id, requestId: id });
  return {
    balance: Number((result.body as { amount?: number }).amount ?? 0),
    asOf: new Date().toISOString(),
  };
}

/** disbursement/balance, read fresh; a refusal or an unreachable gateway is "not known", never 0. */
async function merchantBalance(
  gateway: GatewayClient,
  runId: string,
): Promise<{ known: true; amount: number } | { known: false; problem: string }> {
  try {
    const id = lookupId(runId);
    const result = await callGateway(gateway, 'disbursement.balance', { orderId: id, requestId: id });
    return { known: true, amount: Number((result.body as { amount?: number }).amount ?? 0) };
  } catch (error) {
    return { known: false, problem: (error as Error).message };
  }
}

/** disbursement/verify (checkWallet) for each distinct receiver, a few at a time, heartbeating as it goes. */
async function checkReceivers(gateway: GatewayClient, db: Db, runId: string) {
  const receivers = await runReceivers(db, runId, MAX_RECEIVERS_CHECKED);
  const refused: Array<{
    payoutId: string;
    row: number;
    wallet: string;
    resultCode: number;
    message: string;
  }> = [];
  let unasked = 0;
  const queue = [...receivers];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      Context.current().heartbeat();
      const id = lookupId(runId);
      try {
        const answer = await askGateway(gateway, 'disbursement.verify', {
          orderId: id,
          requestId: id,
          requestType: 'checkWallet',
          disbursementMethod: {
            walletId: next.wallet_id,
            walletName: next.wallet_name,
            ...(next.personal_id ? { personalId: next.personal_id } : {}),
          },
        });
        if (answer.outcome !== 'succeeded')
          refused.push({
            payoutId: next.payout_id,
            row: next.row_number,
            wallet: `…${next.wallet_id.slice(-4)}`,
            resultCode: answer.resultCode,
            message: answer.message,
          });
      } catch {
        unasked += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CHECKS_AT_ONCE }, worker));
  refused.sort((a, b) => a.row - b.row);
  return { checked: receivers.length - unasked, refused, unasked };
}
