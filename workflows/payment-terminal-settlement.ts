import { proxyActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments';

export const terminalSettlementWorkflowId = (settlementId: string) => `terminal-settlement/${settlementId}`;

export interface TerminalSettlementResult {
  status: 'settled' | 'failed';
  resultCode: number;
  message: string;
  settledPayments: number;
}

const gateway = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '45 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

/**
 * card/settle for one terminal (storeId + serialNumber). On success the terminal's card payments in
 * payrun's records are marked settled: from then on payrun refuses their refund through the API.
 */
export async function terminalSettlement(input: { settlementId: string }): Promise<TerminalSettlementResult> {
  return gateway.settleTerminal(input);
}
