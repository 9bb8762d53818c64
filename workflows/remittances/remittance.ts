import { patched, setHandler } from '@temporalio/workflow';
import { gatewayOf, quoteOf, recordsOf } from '../shared/activity-profiles';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import { MAX_EXCHANGE_AMOUNT, REMITTANCE_AMOUNT_RANGES } from '../../gateway/limits';
import { isPending, outcomeOf } from '../../gateway/result-codes';
import {
  exchangeAmountOf,
  remittanceProgressQuery,
  remittanceResultSignal,
  type BaseCurrency,
  type RemittanceActivities,
  type RemittanceInput,
  type RemittanceResult,
  type RemittanceStatus,
  type ResultSource,
} from '../../contracts/remittances';

const records = recordsOf<RemittanceActivities>();

/** A live quote for the API's GET /v1/remittance-quotes: one exchange-rate call, nothing recorded. */
export async function remittanceQuote(input: { baseCurrency: BaseCurrency }): Promise<{ rate: number }> {
  return quoteOf<RemittanceActivities>().fetchExchangeRate(input);
}

/**
 * One cross-border remittance:
 *   quote → (wallet) verify the receiver → foreign balance → re-quote if the quote aged → buy VND →
 *   VND balance → remittance/create → result (create answer, IPN, or api/query when the IPN is late).
 * The receiver is verified BEFORE anything is bought: a receiver who cannot receive never costs a
 * conversion. Before the buy nothing has moved and a stop is `failed`; after it, the VND bought stays
 * recorded against this remittance and any stop is `needs_attention` — the spec has no reversal of a buy.
 */
export async function remittance(input: RemittanceInput): Promise<RemittanceStatus> {
  const { remittanceId, timing } = input;
  // Gateway calls: retried with backoff on transport failures and "retry later"; every attempt re-sends
  // the same requestId, so a lost answer never becomes a second buy or a second order.
  const gateway = gatewayOf<RemittanceActivities>(timing.gatewayAttemptTimeout, {
    firstRetry: timing.gatewayRetryInterval,
  });

  let status: RemittanceStatus = 'accepted';
  let quotes = 0;
  let rate: number | undefined;
  /** The VND bought and the VND sent, once known (shown by the progress query). */
  const money: { exchangeAmount?: number; amountSent?: number } = {};
  let notified: RemittanceResult | undefined;
  let result: (RemittanceResult & { source: ResultSource }) | undefined;

  setHandler(remittanceProgressQuery, () => ({
    remittanceId,
    status,
    rate,
    quotes,
    ...money,
    result,
  }));
  setHandler(remittanceResultSignal, (notice) => {
    // Duplicates and late notices are harmless: only the first final code counts.
    if (!notified && !isPending(outcomeOf(notice.resultCode))) notified = notice;
  });

  const setStatus = async (
    next: RemittanceStatus,
    extra: Omit<Parameters<typeof records.recordRemittanceStatus>[0], 'remittanceId' | 'status'> = {},
  ) => {
    status = next;
    await records.recordRemittanceStatus({ remittanceId, status: next, ...extra });
  };
  const stop = async (next: 'failed' | 'needs_attention', reason: string, outcome?: RemittanceResult) => {
    await setStatus(next, {
      reason,
      ...(next === 'needs_attention' ? { attention: reason } : {}),
      ...(outcome ? { result: { ...outcome, source: 'create' as const } } : {}),
    });
    return next;
  };

  // ---- 1. quote
  await setStatus('quoting');
  let quote = await takeQuote();

  // ---- 2. the receiver wallet can receive (before any money moves)
  if (input.requestType === 'remitToWallet') {
    await setStatus('verifying_receiver');
    const check = await gateway.verifyRemittanceReceiver({ remittanceId });
    if (!check.accepted) {
      return stop(
        'failed',
        `The receiver wallet cannot receive (${check.resultCode}: ${check.message}). Nothing was bought.`,
        { resultCode: check.resultCode, message: check.message },
      );
    }
  }

  // ---- 3. the foreign balance covers the conversion
  await setStatus('checking_balance');
  const foreign = await gateway.remittanceBalance({ remittanceId, currency: input.baseCurrency });
  if (foreign.balance < input.foreignAmount) {
    return stop(
      'failed',
      `Insufficient ${input.baseCurrency} balance: ${foreign.balance} available, ${input.foreignAmount} needed. ` +
        'Nothing was bought; top up and create a new remittance.',
    );
  }

  // ---- 4. a quote is a moment: one older than the lifetime is fetched again before buying
  if (Date.now() - quote.takenAt >= durationMs(timing.quoteTtl)) {
    await setStatus('quoting', {
      reason: `Quote ${quote.seq} is older than ${String(timing.quoteTtl)}; quoting again.`,
    });
    quote = await takeQuote();
  }
  const expected = exchangeAmountOf(input.foreignAmount, quote.rate);
  const [min, max] = REMITTANCE_AMOUNT_RANGES[input.requestType];
  const toSend = input.amount ?? expected;
  if (expected > MAX_EXCHANGE_AMOUNT) {
    return stop(
      'failed',
      `${input.foreignAmount} ${input.baseCurrency} at ${quote.rate} is more than 12 digits of VND. Nothing was bought.`,
    );
  }
  if (toSend < min || toSend > max) {
    return stop(
      'failed',
      `${input.foreignAmount} ${input.baseCurrency} at ${quote.rate} VND makes ${toSend} VND; ${input.requestType} ` +
        `sends ${min}..${max} VND. Nothing was bought.`,
    );
  }
  if (toSend > expected) {
    return stop(
      'failed',
      `At the current rate ${quote.rate}, ${input.foreignAmount} ${input.baseCurrency} buys ${expected} VND, ` +
        `less than the ${toSend} VND to send. Nothing was bought.`,
    );
  }

  // ---- 5. buy, once
  await setStatus('buying');
  const buy = await gateway.buyForRemittance({
    remittanceId,
    quoteSeq: quote.seq,
    foreignAmount: input.foreignAmount,
    rate: quote.rate,
  });
  if (buy.outcome === 'refused') {
    return stop(
      'failed',
      `The buy was refused (${buy.resultCode}: ${buy.message}). Nothing was bought.`,
      buy,
    );
  }
  if (buy.outcome === 'unknown') {
    return stop(
      'needs_attention',
      `The gateway answered ${buy.resultCode} (${buy.message}) to the buy ${remittanceId}-buy: the first ` +
        "attempt's answer was lost or another buy holds this orderId, and the spec gives no way to ask what a " +
        'buy did. Check the merchant statement (foreign and VND balances) before doing anything else; payrun ' +
        'will not buy again.',
    );
  }
  rate = buy.rate;
  money.exchangeAmount = buy.exchangeAmount;
  const amountSent = input.amount ?? buy.exchangeAmount;
  money.amountSent = amountSent;
  const bought = `${buy.exchangeAmount} VND bought from ${input.foreignAmount} ${input.baseCurrency} at ${rate}`;
  const kept = `The ${bought} stays in the merchant's VND balance, recorded against this remittance; send it by another means or return it to the sender. Do not retry this remittance: a new one would buy again.`;

  // ---- 6. the VND balance covers the order (the fund is shared with disbursements)
  await setStatus('checking_balance');
  const vnd = await gateway.remittanceBalance({ remittanceId, currency: 'VND' });
  if (vnd.balance < amountSent) {
    return stop(
      'needs_attention',
      `The VND balance (${vnd.balance}) is short of ${amountSent} VND after the buy. ${kept}`,
    );
  }

  // ---- 7. create the order
  await setStatus('sending', { amountSent });
  let created;
  try {
    created = await gateway.createRemittanceOrder({ remittanceId, amount: amountSent });
  } catch (error) {
    return stop('needs_attention', `remittance/create could not be sent: ${failureReason(error)}. ${kept}`);
  }
  if (created.outcome === 'refused') {
    return stop(
      'needs_attention',
      `remittance/create was refused (${created.resultCode}: ${created.message}). ${kept}`,
      created,
    );
  }
  if (created.outcome === 'succeeded') {
    result = {
      resultCode: created.resultCode,
      message: created.message,
      transId: created.transId,
      source: 'create',
    };
    await setStatus('succeeded', { result });
    return status;
  }

  // ---- 8. pending / two-step authorized / duplicate: the IPN, or ask when it is late
  await setStatus(input.autoCapture ? 'awaiting_result' : 'awaiting_capture', {
    reason: input.autoCapture
      ? `The gateway is processing the order (${created.resultCode}).`
      : 'Two-step remittance authorized; the gateway completes it on capture.',
  });
  let lastAnswer: { resultCode?: number; message: string } | undefined;
  const ask = async () => {
    const answer = await gateway.queryRemittanceResult({ remittanceId });
    lastAnswer = answer;
    return answer.state === 'succeeded' || answer.state === 'failed' ? answer : undefined;
  };
  const schedule: AskSchedule = {
    firstWait: timing.ipnTimeout,
    growth: 2,
    maxWait: '1 hour',
    giveUpAfterWaiting: timing.resultGiveUpAfter,
  };
  const noResult = () =>
    `No final result after ${String(timing.resultGiveUpAfter)} (last answer ` +
    `${lastAnswer!.resultCode === undefined ? '' : `${lastAnswer!.resultCode}: `}${lastAnswer!.message}). ` +
    `Ask the gateway about order ${remittanceId}; the ${bought} was sent for ${amountSent} VND.`;
  // Since the strict gateway, payrun goes on asking after it told an operator (an unknown answer never ends
  // the wait); runs from before stopped there.
  const heard = patched('remittance-asks-after-attention')
    ? await waitOrAskThenAttend(
        () => notified,
        ask,
        schedule,
        async () => void (await stop('needs_attention', noResult())),
      )
    : await waitForNotificationOrAsk(() => notified, ask, schedule);
  if (!heard.decided) {
    if ('attended' in heard && heard.attended) return status;
    return stop('needs_attention', noResult());
  }
  result =
    heard.source === 'notification'
      ? { ...notified!, source: 'ipn' }
      : {
          resultCode: heard.decided.resultCode,
          message: heard.decided.message,
          transId: heard.decided.transId,
          source: 'poll',
        };
  if (outcomeOf(result.resultCode) === 'succeeded') {
    await setStatus('succeeded', { result });
    return status;
  }
  await setStatus('needs_attention', {
    result,
    reason: `The remittance failed at the gateway (${result.resultCode}: ${result.message ?? ''}). ${kept}`,
    attention: `The remittance failed at the gateway (${result.resultCode}). ${kept}`,
  });
  return status;

  async function takeQuote() {
    quotes += 1;
    const quoted = await gateway.quoteRemittanceRate({ remittanceId, seq: quotes });
    rate = quoted.rate;
    // The workflow's own clock measures the quote's age (deterministic, and the clock timers use).
    return { seq: quotes, rate: quoted.rate, takenAt: Date.now() };
  }
}

/** The innermost failure's message: the gateway's answer or the rule that was broken, not a wrapper. */
function failureReason(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current?.message ?? 'unknown failure';
}
