import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { isAlreadySubmitted, isPending, orderStatusEvidence, type GatewayClient } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  getQuote,
  getRemittance,
  recordQuote,
  updateRemittance,
  type RemittanceQuoteRow,
  type RemittanceRow,
  type RemittanceUpdate,
} from '../../db/remittances/remittances';
import {
  canMoveRemittance,
  FINAL_REMITTANCE_STATUSES,
  remittanceOrderIds,
  type BaseCurrency,
  type BuyOutcome,
  type CreateOutcome,
  type QueryOutcome,
  type RemittanceActivities,
  type RemittanceStatusChange,
  type VerifyOutcome,
} from '../../contracts/remittances';
import { requestIdFor } from '../../gateway/ids';
import { bindActivities } from '../shared/bind';
import { stopIfHeld } from '../holds/holds';
import { askForEvidence, askGateway, callGateway, lookupId } from '../shared/gateway-calls';
import { requireApproved } from '../approvals/approvals';
import { findApproval } from '../../db/approvals/approvals';
import { approvalIdOf } from '../../contracts/approvals';

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

/** An answer that is neither a result nor a refusal (a check answered 7000): ask again, with fresh ids. */
const notAnsweredYet = (operation: string, resultCode: number) =>
  new Error(`${operation} answered ${resultCode}, which decides nothing; asking again`);

const transIdOf = (body: Record<string, unknown>) =>
  body.transId === undefined || body.transId === null ? undefined : String(body.transId);

async function loadRemittance(db: Db, remittanceId: string): Promise<RemittanceRow> {
  const row = await getRemittance(db, remittanceId);
  if (!row) {
    throw ApplicationFailure.nonRetryable(`Remittance ${remittanceId} has no record`, 'unknown_record');
  }
  return row;
}

/** What api/query proves about the remittance's order (gateway/evidence.ts): the VND sent, as a payout. */
async function resultOf(gateway: GatewayClient, orderId: string, amount: number): Promise<QueryOutcome> {
  const evidence = await askForEvidence(
    gateway,
    'payment.query',
    { orderId, requestId: lookupId(orderId) },
    (body) => orderStatusEvidence(body, { orderId, amount, kind: 'payout' }),
  );
  if (evidence.state === 'unknown')
    return { state: 'unknown', resultCode: evidence.resultCode, message: evidence.reason };
  const { resultCode, message } = evidence;
  if (evidence.state === 'undecided') return { state: 'pending', resultCode, message };
  return {
    state: evidence.outcome === 'succeeded' ? 'succeeded' : 'failed',
    resultCode,
    message,
    ...(evidence.transId ? { transId: evidence.transId } : {}),
  };
}

/** A live quote for the API (no remittance yet): a lookup, so a fresh requestId each time. */
export async function fetchExchangeRate(
  { gateway }: RemittanceActivityDependencies,
  { baseCurrency }: { baseCurrency: BaseCurrency },
): Promise<{ rate: number }> {
  const result = await callGateway(gateway, 'remittance.exchangeRate', {
    requestId: lookupId('quote'),
    baseCurrency,
  });
  return { rate: Number(result.body.rateInfo?.rate) };
}

/**
 * Quote number `seq` of a remittance, recorded once: an attempt that runs again finds the row an earlier
 * one wrote. A quote creates nothing, so each attempt asks with a requestId of its own (the gateway
 * answers a requestId it has read with 40, never with the quote again).
 */
export async function quoteRemittanceRate(
  { db, gateway }: RemittanceActivityDependencies,
  { remittanceId, seq }: { remittanceId: string; seq: number },
): Promise<{ rate: number; quotedAt: string }> {
  const remittance = await loadRemittance(db, remittanceId);
  const known = await getQuote(db, remittanceId, seq);
  if (known) return { rate: Number(known.rate), quotedAt: known.quoted_at.toISOString() };
  const requestId = requestIdFor(remittanceId, `rate${seq}x${randomBytes(4).toString('hex')}`);
  const result = await callGateway(gateway, 'remittance.exchangeRate', {
    requestId,
    baseCurrency: remittance.base_currency,
  });
  const rate = Number(result.body.rateInfo?.rate);
  if (!Number.isSafeInteger(rate) || rate <= 0) {
    throw ApplicationFailure.nonRetryable(
      `exchange-rate for ${remittance.base_currency} answered no usable rate (${String(rate)})`,
      'gateway_bad_quote',
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
}

/** remittance/verify (checkWallet) for a wallet receiver; a refusal is an answer, not an error. */
export async function verifyRemittanceReceiver(
  { db, gateway }: RemittanceActivityDependencies,
  { remittanceId }: { remittanceId: string },
): Promise<VerifyOutcome> {
  const remittance = await loadRemittance(db, remittanceId);
  const receiver = remittance.receiver_details as {
    walletId: string;
    walletName?: string;
    personalId?: string;
  };
  // A check creates nothing: ids of its own on every attempt, so a lost answer is simply asked again.
  const id = lookupId(remittanceOrderIds(remittanceId).verify);
  const answer = await askGateway(gateway, 'remittance.verify', {
    orderId: id,
    requestId: id,
    requestType: 'checkWallet',
    receiver: {
      walletId: receiver.walletId,
      walletName: receiver.walletName,
      personalId: receiver.personalId ?? null,
    },
  });
  if (!answer.accepted) return { accepted: false, resultCode: answer.resultCode, message: answer.message };
  if (answer.outcome === 'succeeded') return { accepted: true };
  throw notAnsweredYet('remittance.verify', answer.resultCode);
}

/** disbursement/balance of one currency group (VND or the foreign currency being converted). */
export async function remittanceBalance(
  { gateway }: RemittanceActivityDependencies,
  { remittanceId, currency }: { remittanceId: string; currency: BaseCurrency | 'VND' },
): Promise<{ balance: number }> {
  const id = lookupId(remittanceId);
  const result = await callGateway(gateway, 'disbursement.balance', {
    requestId: id,
    orderId: id,
    orderGroupId: BALANCE_GROUPS[currency],
  });
  return { balance: Number(result.body.amount ?? 0) };
}

/**
 * remittance/buy, once per remittance: orderId `<id>-buy`, and the same requestId on every attempt, so a
 * lost answer never becomes a second buy: the retry hears 40, and as the spec has no query of a buy, the
 * outcome is unknown and the workflow asks an operator. The VND bought is recorded in the same step.
 */
export async function buyForRemittance(
  { db, gateway }: RemittanceActivityDependencies,
  input: {
    remittanceId: string;
    quoteSeq: number;
    foreignAmount: number;
    rate: number;
    releasedHold?: string;
  },
): Promise<BuyOutcome> {
  // The first step that moves money: never for a remittance whose approval is recorded and not approved.
  await requireApproved(db, 'remittance', input.remittanceId);
  const remittance = await loadRemittance(db, input.remittanceId);
  // The first step that moves money stops while remittances are held; counted at the VND amount the
  // approval weighed (the amount to send, or the foreign amount valued at creation).
  await stopIfHeld(db, 'remittance', input.releasedHold, async () =>
    remittance.requested_amount !== null
      ? Number(remittance.requested_amount)
      : Number((await findApproval(db, approvalIdOf('remittance', input.remittanceId)))?.amount ?? 0),
  );
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
  if (!answer.accepted) return { outcome: 'refused', resultCode: answer.resultCode, message: answer.message };
  if (answer.outcome !== 'succeeded')
    return { outcome: 'unknown', resultCode: answer.resultCode, message: answer.message };
  const rateInfo = (answer.body.rateInfo ?? {}) as { rate?: number; exchangeAmount?: number };
  const rate = Number(rateInfo.rate ?? input.rate);
  const exchangeAmount = Number(rateInfo.exchangeAmount);
  await recordPurchase(db, input, quote, { rate, exchangeAmount });
  return { outcome: 'bought', rate, exchangeAmount };
}

/** The VND bought, the rate it was bought at and the quote it was bought on, against the remittance. */
async function recordPurchase(
  db: Db,
  input: { remittanceId: string; quoteSeq: number },
  quote: RemittanceQuoteRow | undefined,
  bought: { rate: number; exchangeAmount: number },
): Promise<void> {
  await updateRemittance(
    db,
    input.remittanceId,
    {
      status: 'buying',
      rate_used: String(bought.rate),
      quote_seq: input.quoteSeq,
      quoted_at: quote?.quoted_at ?? null,
      exchange_amount: String(bought.exchangeAmount),
      bought_at: new Date(),
    },
    canMoveRemittance,
  );
}

/**
 * remittance/create: orderId = the remittance id, requestId `<id>-create` on every attempt. The
 * receiver and sender details are read here, from PostgreSQL, and encrypted by the client.
 */
export async function createRemittanceOrder(
  { db, gateway, remittanceIpnUrl }: RemittanceActivityDependencies,
  { remittanceId, amount, releasedHold }: { remittanceId: string; amount: number; releasedHold?: string },
): Promise<CreateOutcome> {
  await requireApproved(db, 'remittance', remittanceId);
  // Money leaves here: held remittances stop before the order is sent (the VND bought stays recorded).
  await stopIfHeld(db, 'remittance', releasedHold, amount);
  const remittance = await loadRemittance(db, remittanceId);
  const orderId = remittanceOrderIds(remittanceId).create;
  const answer = await askGateway(gateway, 'remittance.create', {
    orderId,
    requestId: requestIdFor(orderId, 'create'),
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
  // 40 (this request was read before: its answer was lost) or 41: ask now; what the query cannot prove
  // is left to the notification and later queries.
  if (isAlreadySubmitted(outcome)) return resolvedByQuery(gateway, orderId, amount, answer);
  throw notAnsweredYet('remittance.create', resultCode);
}

/** A create already submitted: what the query proves decides it, or the order is a duplicate for now. */
async function resolvedByQuery(
  gateway: GatewayClient,
  orderId: string,
  amount: number,
  created: { resultCode: number; message: string },
): Promise<CreateOutcome> {
  const asked = await resultOf(gateway, orderId, amount);
  if (asked.state === 'succeeded')
    return {
      outcome: 'succeeded',
      resultCode: asked.resultCode,
      message: asked.message,
      transId: asked.transId,
    };
  if (asked.state === 'failed')
    return { outcome: 'refused', resultCode: asked.resultCode, message: asked.message };
  return { outcome: 'duplicate', resultCode: created.resultCode, message: created.message };
}

/**
 * The spec has no remittance query: payrun asks api/query (payment.query) with the create's orderId.
 * Only evidence counts (gateway/evidence.ts): an answer naming this order with the VND sent and a
 * transId, of a payout's kind. Anything else (a refused query, another order's answer) is unknown.
 */
export async function queryRemittanceResult(
  { db, gateway }: RemittanceActivityDependencies,
  { remittanceId }: { remittanceId: string },
): Promise<QueryOutcome> {
  const remittance = await loadRemittance(db, remittanceId);
  return resultOf(gateway, remittanceOrderIds(remittanceId).create, Number(remittance.amount_sent));
}

export async function recordRemittanceStatus(
  { db }: RemittanceActivityDependencies,
  input: RemittanceStatusChange,
): Promise<void> {
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
  await updateRemittance(db, input.remittanceId, update, canMoveRemittance);
}

/** The worker's remittance activities, bound to one set of dependencies under their own names. */
export const createRemittanceActivities = (deps: RemittanceActivityDependencies): RemittanceActivities =>
  bindActivities(deps, {
    fetchExchangeRate,
    quoteRemittanceRate,
    verifyRemittanceReceiver,
    remittanceBalance,
    buyForRemittance,
    createRemittanceOrder,
    queryRemittanceResult,
    recordRemittanceStatus,
  });
