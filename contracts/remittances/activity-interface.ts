/**
 * The remittance activities as the workflows call them, and the classified outcomes they answer (no
 * result-code numbers to interpret). Each method name is an activity type recorded in stored histories.
 */
import type { BaseCurrency, RemittanceResult, RemittanceStatus, ResultSource } from './remittances';

export type VerifyOutcome = { accepted: true } | { accepted: false; resultCode: number; message: string };

export type BuyOutcome =
  | { outcome: 'bought'; rate: number; exchangeAmount: number }
  /** The gateway refused the buy: nothing was converted. */
  | { outcome: 'refused'; resultCode: number; message: string }
  /**
   * 40 or 41: a buy was read under this requestId or exists under this orderId (an earlier attempt whose
   * answer was lost, or another order), and the spec gives no way to ask what it did.
   */
  | { outcome: 'unknown'; resultCode: number; message: string };

export type CreateOutcome =
  | { outcome: 'succeeded'; resultCode: number; message: string; transId?: string }
  | { outcome: 'pending'; resultCode: number; message: string; transId?: string }
  /** 41: the order exists already (an earlier attempt); its outcome comes by IPN or query. */
  | { outcome: 'duplicate'; resultCode: number; message: string }
  | { outcome: 'refused'; resultCode: number; message: string };

export type QueryOutcome =
  | { state: 'succeeded' | 'failed'; resultCode: number; message: string; transId?: string }
  | { state: 'pending'; resultCode: number; message: string }
  /** Nothing learnt: `message` says why (a refused query, another order's answer, …). */
  | { state: 'unknown'; resultCode?: number; message: string };

export interface RemittanceStatusChange {
  remittanceId: string;
  status: RemittanceStatus;
  reason?: string;
  attention?: string;
  amountSent?: number;
  result?: RemittanceResult & { source: ResultSource };
}

export interface RemittanceActivities {
  /** A live quote for the API (no remittance yet). */
  fetchExchangeRate(input: { baseCurrency: BaseCurrency }): Promise<{ rate: number }>;
  /** Quote number `seq` of a remittance, recorded once. */
  quoteRemittanceRate(input: {
    remittanceId: string;
    seq: number;
  }): Promise<{ rate: number; quotedAt: string }>;
  verifyRemittanceReceiver(input: { remittanceId: string }): Promise<VerifyOutcome>;
  remittanceBalance(input: {
    remittanceId: string;
    currency: BaseCurrency | 'VND';
  }): Promise<{ balance: number }>;
  /** remittance/buy, once per remittance; the VND bought is recorded in the same step. */
  buyForRemittance(input: {
    remittanceId: string;
    quoteSeq: number;
    foreignAmount: number;
    rate: number;
    /** The hold whose release resumed this step (contracts/holds). */
    releasedHold?: string;
  }): Promise<BuyOutcome>;
  createRemittanceOrder(input: {
    remittanceId: string;
    amount: number;
    releasedHold?: string;
  }): Promise<CreateOutcome>;
  queryRemittanceResult(input: { remittanceId: string }): Promise<QueryOutcome>;
  recordRemittanceStatus(input: RemittanceStatusChange): Promise<void>;
}
