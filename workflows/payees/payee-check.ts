/**
 * A payee's wallet check for the API, which holds no gateway credentials: one activity, nothing recorded.
 * Short and given up quickly: someone is waiting for the answer, and a payee saved without it is `unchecked`.
 */
import { quoteOf } from '../shared/activity-profiles';
import type { PayeeActivities, PayeeCheckInput, WalletCheckOutcome } from '../../contracts/payees';

export async function payeeCheck(input: PayeeCheckInput): Promise<WalletCheckOutcome> {
  return quoteOf<PayeeActivities>().checkPayeeWallet(input);
}
