/**
 * The merchant's balance watcher: a reading of every balance with a threshold, then a timer, for as long as
 * it runs (started by the first threshold set). Each reading writes a few history events, so it continues
 * as new after a day's worth at the default interval.
 */
import { continueAsNew, sleep } from '@temporalio/workflow';
import { gatewayOf } from '../shared/activity-profiles';
import type { BalanceWatchActivities, BalanceWatchInput } from '../../contracts/payouts';

const READINGS_PER_RUN = 300;

export async function balanceWatch(input: BalanceWatchInput): Promise<void> {
  // A reading that keeps failing is retried by its profile; the next timer reads again either way.
  const gateway = gatewayOf<BalanceWatchActivities>('30 seconds', { maxRetryInterval: '1 minute' });
  for (let reading = 0; reading < READINGS_PER_RUN; reading++) {
    await gateway.watchBalances();
    await sleep(input.intervalSeconds * 1000);
  }
  return continueAsNew<typeof balanceWatch>({ ...input, readings: (input.readings ?? 0) + READINGS_PER_RUN });
}
