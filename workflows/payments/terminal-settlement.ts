import type { PaymentActivities } from '../../contracts/payments';
import { operatorCallOf } from '../shared/activity-profiles';
import type { TerminalSettlementInput, TerminalSettlementResult } from '../../contracts/payments';

const gateway = operatorCallOf<PaymentActivities>();

/**
 * card/settle for one terminal (storeId + serialNumber). On success the terminal's card payments in
 * payrun's records are marked settled: from then on payrun refuses their refund through the API.
 */
export async function terminalSettlement(input: TerminalSettlementInput): Promise<TerminalSettlementResult> {
  return gateway.settleTerminal(input);
}
