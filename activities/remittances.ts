import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { isPending, type GatewayClient } from '../gateway';
import type { Db } from '../db/knex';
import {
  getQuote,
  getRemittance,
  recordQuote,
  updateRemittance,
  type RemittanceRow,
  type RemittanceUpdate,
} from '../db/remittances';
import {
  FINAL_REMITTANCE_STATUSES,
  remittanceOrderIds,
  type BaseCurrency,
  type RemittanceResult,
  type RemittanceStatus,
  type ResultSource,
} from '../workflows/remittance-definitions';
import { askGateway, callGateway } from './gateway-calls';

export interface RemittanceActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Where the gateway sends remittance results: payrun's receiver, from configuration. */
  remittanceIpnUrl: string;
}

/**
 * `orderGroupId` of each balance: "distinguishes merchant balance groups by currency; by arrangement".
 * payrun's arrangement is the ISO 4217 numeric code (the sandbox's too); change it here if the
 * operator issues other ids.
 */
export const BALANCE_GROUPS: Readonly<Record<BaseCurrency | 'VND', number>> = {
  VND: 704,
  USD: 840,
  EUR: 978,
  AUD: 36,
  CAD: 124,
  GBP: 826,
  JPY: 392,
  KRW: 410,
  TWD: 901,
  THB: 764,
};

export type VerifyOutcome = { accepted: true } | { accepted: false; resultCode: number; message: string };

export type BuyOutcome =
  | { outcome: 'bought'; rate: number; exchangeAmount: number }
  /** The gateway refused the buy: nothing was converted. */
  | { outcome: 'refused'; resultCode: number; message: string }
  /** 41: a buy already exists under this orderId and its answer is not ours to see. */
  | { outcome: 'unknown'; resultCode: number; message: string };

export type CreateOutcome =
  | { outcome: 'succeeded'; resultCode: number; message: string; transId?: string }
  | { outcome: 'pending'; resultCode: number; message: string; transId?: string }
  /** 41: the order exists already (an earlier attempt); its outcome comes by IPN or query. */
  | { outcome: 'duplicate'; resultCode: number; message: string }
  | { outcome: 'refused'; resultCode: number; message: string };

export type QueryOutcome =
  | { state: 'succeeded' | 'failed'; resultCode: number; message: string; transId?: string }
  | { state: 'pending' | 'unknown'; resultCode: number; message: string };

/** The gateway answered "this requestId is still being processed": try again with the same one. */
const stillInProgress = (operation: string) =>
  new Error(`${operation}: the gateway is still processing this requestId; retrying with the same one`);

const transIdOf = (body: Record<string, unknown>) =>
  body.transId === undefined || body.transId === null ? undefined : String(body.transId);

/** A fresh id for a lookup (≤ 50 characters: requestId's limit). */
const lookupId = (orderId: string, kind: string) => `${orderId}-${kind}${randomBytes(6).toString('hex')}`;

async function loadRemittance(db: Db, remittanceId: string): Promise<RemittanceRow> {
  const row = await getRemittance(db, remittanceId);
  if (!row) {
    throw ApplicationFailure.nonRetryable(`Remittance ${remittanceId} has no record`, 'RemittanceMissing');
  }
  return row;
}

export function createRemittanceActivities({
  db,
  gateway,
  remittanceIpnUrl,
}: RemittanceActivityDependencies) {
  return {
    /** A live quote for the API (no remittance yet): a lookup, so a fresh requestId each time. */
    async fetchExchangeRate({ baseCurrency }: { baseCurrency: BaseCurrency }): Promise<{ rate: number }> {
      const result = await callGateway(gateway, 'remittance.exchangeRate', {
        requestId: lookupId('quote', ''),
        baseCurrency,
      });
      return { rate: Number(result.body.rateInfo?.rate) };
    },

    /**
     * Quote number `seq` of a remittance, recorded once. The requestId derives from (remittance, seq):
     * a retried attempt gets the gateway's stored answer and finds the row it wrote.
     */
    async quoteRemittanceRate({
      remittanceId,
      seq,
    }: {
      remittanceId: string;
      seq: number;
    }): Promise<{ rate: number; quotedAt: string }> {
      const remittance = await loadRemittance(db, remittanceId);
      const known = await getQuote(db, remittanceId, seq);
      if (known) return { rate: Number(known.rate), quotedAt: known.quoted_at.toISOString() };
      const requestId = `${remittanceId}-rate-${seq}`;
      const result = await callGateway(gateway, 'remittance.exchangeRate', {
        requestId,
        baseCurrency: remittance.base_currency,
      });
      const rate = Number(result.body.rateInfo?.rate);
      if (!Number.isSafeInteger(rate) || rate <= 0) {
        throw ApplicationFailure.nonRetryable(
          `exchange-rate for ${remittance.base_currency} answered no usable rate (${String(rate)})`,
          'GatewayBadQuote',
        );
      }
      const row = await recordQuote(db, {
        remittance_id: remittanceId,
        seq,
        base_currency: remittance.base_currency,
        rate,
        request_id: requestId,
      });
      return { rate: Number(row.rate), quotedAt: row.quoted_at.toISOString() };
    },

    /** remittance/verify (checkWallet) for a wallet receiver; a refusal is an answer, not an error. */
    async verifyRemittanceReceiver({ remittanceId }: { remittanceId: string }): Promise<VerifyOutcome> {
      const remittance = await loadRemittance(db, remittanceId);
      const receiver = remittance.receiver_details as {
        walletId: string;
        walletName?: string;
        personalId?: string;
      };
      const orderId = remittanceOrderIds(remittanceId).verify;
      const answer = await askGateway(gateway, 'remittance.verify', {
        orderId,
        requestId: orderId,
        requestType: 'checkWallet',
        receiver: {
          walletId: receiver.walletId,
          walletName: receiver.walletName,
          personalId: receiver.personalId ?? null,
        },
      });
      if (!answer.accepted)
        return { accepted: false, resultCode: answer.resultCode, message: answer.message };
      if (answer.outcome === 'succeeded') return { accepted: true };
      // Already submitted: the same check is still running at the gateway.
      throw stillInProgress('remittance.verify');
    },

    /** disbursement/balance of one currency group (VND or the foreign currency being converted). */
    async remittanceBalance({
      remittanceId,
      currency,
    }: {
      remittanceId: string;
      currency: BaseCurrency | 'VND';
    }): Promise<{ balance: number }> {
      const id = lookupId(remittanceId, 'b');
      const result = await callGateway(gateway, 'disbursement.balance', {
        requestId: id,
        orderId: id,
        orderGroupId: BALANCE_GROUPS[currency],
      });
      return { balance: Number(result.body.amount ?? 0) };
    },

    /**
     * remittance/buy, once per remittance: orderId `<id>-buy`, and the same requestId on every attempt,
     * so a lost answer is recovered by the gateway's stored answer, never by a second buy. The VND
     * bought is recorded against the remittance in the same step.
     */
    async buyForRemittance(input: {
      remittanceId: string;
      quoteSeq: number;
      foreignAmount: number;
      rate: number;
    }): Promise<BuyOutcome> {
      const remittance = await loadRemittance(db, input.remittanceId);
      const quote = await getQuote(db, input.remittanceId, input.quoteSeq);
      const orderId = remittanceOrderIds(input.remittanceId).buy;
      const answer = await askGateway(gateway, 'remittance.buy', {
        orderId,
        requestId: orderId,
        rateInfo: {
          baseCurrency: remittance.base_currency,
          exchangeCurrency: 'VND',
          rate: input.rate,
          amount: input.foreignAmount,
        },
      });
      if (!answer.accepted)
        return { outcome: 'refused', resultCode: answer.resultCode, message: answer.message };
      if (answer.outcome === 'duplicate_request') throw stillInProgress('remittance.buy');
      if (answer.outcome !== 'succeeded')
        return { outcome: 'unknown', resultCode: answer.resultCode, message: answer.message };
      const rateInfo = (answer.body.rateInfo ?? {}) as { rate?: number; exchangeAmount?: number };
      const rate = Number(rateInfo.rate ?? input.rate);
      const exchangeAmount = Number(rateInfo.exchangeAmount);
      await updateRemittance(db, input.remittanceId, {
        status: 'buying',
        rate_used: String(rate),
        quote_seq: input.quoteSeq,
        quoted_at: quote?.quoted_at ?? null,
        exchange_amount: String(exchangeAmount),
        bought_at: new Date(),
      });
      return { outcome: 'bought', rate, exchangeAmount };
    },

    /**
     * remittance/create: orderId = the remittance id, requestId `<id>-create` on every attempt. The
     * receiver and sender details are read here, from PostgreSQL, and encrypted by the client.
     */
    async createRemittanceOrder({
      remittanceId,
      amount,
    }: {
      remittanceId: string;
      amount: number;
    }): Promise<CreateOutcome> {
      const remittance = await loadRemittance(db, remittanceId);
      const orderId = remittanceOrderIds(remittanceId).create;
      const answer = await askGateway(gateway, 'remittance.create', {
        orderId,
        requestId: `${orderId}-create`,
        requestType: remittance.request_type,
        receiver: remittance.receiver_details,
        amount,
        ipnUrl: remittanceIpnUrl,
        orderInfo: remittance.order_info,
        lang: 'en',
        remittanceInfo: remittance.remittance_info,
        autoCapture: remittance.auto_capture,
        extraData: '',
      } as Parameters<typeof gateway.call<'remittance.create'>>[1]);
      const { resultCode, message, outcome } = answer;
      if (!answer.accepted) return { outcome: 'refused', resultCode, message };
      const transId = transIdOf(answer.body);
      if (outcome === 'succeeded') return { outcome: 'succeeded', resultCode, message, transId };
      if (isPending(outcome)) return { outcome: 'pending', resultCode, message, transId };
      if (outcome === 'duplicate_request') throw stillInProgress('remittance.create');
      return { outcome: 'duplicate', resultCode, message };
    },

    /**
     * The spec has no remittance query: payrun asks api/query (payment.query) with the create's
     * orderId. An answer that echoes our orderId with a transId reports the remittance's own outcome;
     * anything else (42 not found, 99 without a transId) leaves it unknown, and the workflow waits on.
     */
    async queryRemittanceResult({ remittanceId }: { remittanceId: string }): Promise<QueryOutcome> {
      const orderId = remittanceOrderIds(remittanceId).create;
      const answer = await askGateway(gateway, 'payment.query', {
        orderId,
        requestId: lookupId(orderId, 'q'),
      });
      const { resultCode, message, outcome, body } = answer;
      const transId = transIdOf(body);
      if (!answer.accepted) {
        // A refusal that names our order with a transId is the remittance's own failure.
        if (body.orderId === orderId && transId !== undefined)
          return { state: 'failed', resultCode, message, transId };
        return { state: 'unknown', resultCode, message };
      }
      if (outcome === 'succeeded') return { state: 'succeeded', resultCode, message, transId };
      if (isPending(outcome)) return { state: 'pending', resultCode, message };
      return { state: 'unknown', resultCode, message };
    },

    async recordRemittanceStatus(input: {
      remittanceId: string;
      status: RemittanceStatus;
      reason?: string;
      attention?: string;
      amountSent?: number;
      result?: RemittanceResult & { source: ResultSource };
    }): Promise<void> {
      const update: RemittanceUpdate = {
        status: input.status,
        status_reason: input.reason ?? null,
        ...(input.attention !== undefined ? { attention_reason: input.attention } : {}),
        ...(input.amountSent !== undefined ? { amount_sent: String(input.amountSent) } : {}),
        ...(input.result
          ? {
              result_code: input.result.resultCode,
              result_message: input.result.message ?? null,
              trans_id: input.result.transId ?? null,
              result_source: input.result.source,
            }
          : {}),
        ...(FINAL_REMITTANCE_STATUSES.includes(input.status) ? { completed_at: new Date() } : {}),
      };
      await updateRemittance(db, input.remittanceId, update);
    },
  };
}

export type RemittanceActivities = ReturnType<typeof createRemittanceActivities>;
