import { proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../contracts/payouts';

/**
 * Someone is waiting for the dashboard: a few quick tries, then the forecast shows the balance as unknown
 * rather than waiting on a gateway that does not answer.
 */
const { readMerchantBalance } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
});

/** One read of the merchant's disbursement balance, for the balance forecast (GET /v1/balance-forecast). */
export async function merchantBalance(
  input: Record<string, never>,
): Promise<{ balance: number; asOf: string }> {
  return readMerchantBalance(input);
}
