/**
 * What the terminal settlement workflow (card/settle for one card terminal) shares with its callers.
 * Pure code: the API and activities import it.
 */
export const terminalSettlementWorkflowId = (settlementId: string) => `terminal-settlement/${settlementId}`;

export interface TerminalSettlementInput {
  settlementId: string;
}

/** One call, one answer: settled, or failed with the gateway's code. */
export type TerminalSettlementStatus = 'settled' | 'failed';

export interface TerminalSettlementResult {
  status: TerminalSettlementStatus;
  resultCode: number;
  message: string;
  settledPayments: number;
}
