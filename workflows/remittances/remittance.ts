import { patched, setHandler } from '@temporalio/workflow';
import { gatewayOf, quoteOf, recordsOf } from '../shared/activity-profiles';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import { whileHeld } from '../holds/while-held';
import { awaitApproval } from '../approvals/await-approval';
import { MAX_EXCHANGE_AMOUNT, REMITTANCE_AMOUNT_RANGES } from '../../gateway/limits';
import { isPending, outcomeOf } from '../../gateway/result-codes';
import {
  exchangeAmountOf,
  remittanceProgressQuery,
  remittanceResultSignal,
  type BaseCurrency,
  type CreateOutcome,
  type RemittanceActivities,
  type RemittanceInput,
  type RemittanceResult,
  type RemittanceStatus,
  type RemittanceStatusChange,
  type RemittanceTiming,
  type ResultSource,
} from '../../contracts/remittances';
import type { ApprovalRequest } from '../../contracts/approvals';

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
 *
 * Every activity and timer below is part of stored histories: moving a call, or evaluating a `patched()`
 * at another point, breaks their replay (docs/workflow-versioning.md).
 */
export async function remittance(input: RemittanceInput): Promise<RemittanceStatus> {
  const run = openRun(input);
  answerProgress(run);
  listenForResult(run);
  // Before any gateway step (not even a quote): a remittance held for approvers moves nothing unless they
  // approve. Inputs without `approval` (every run started before it existed) never wait, so their replay
  // is unchanged.
  if (input.approval && !(await approvedBeforeQuoting(run, input.approval))) return run.status;
  await setStatus(run, 'quoting');
  const firstQuote = await takeQuote(run);
  if (input.requestType === 'remitToWallet' && !(await receiverCanReceive(run))) return run.status;
  if (!(await foreignBalanceCovers(run))) return run.status;
  const quote = await quoteStillFresh(run, firstQuote);
  if (!(await amountsFit(run, quote))) return run.status;
  const bought = await buyOnce(run, quote);
  if (!bought) return run.status;
  if (!(await vndBalanceCovers(run, bought))) return run.status;
  const created = await sendOrder(run, bought);
  if (!created) return run.status;
  return awaitResult(run, bought, created);
}

// ---- one run and what its steps share

type Gateway = ReturnType<typeof gatewayOf<RemittanceActivities>>;
type StatusDetails = Omit<RemittanceStatusChange, 'remittanceId' | 'status'>;

interface Run {
  readonly input: RemittanceInput;
  readonly id: string;
  readonly timing: RemittanceTiming;
  readonly gateway: Gateway;
  status: RemittanceStatus;
  quotes: number;
  rate?: number;
  /** The VND bought and the VND sent, once known (shown by the progress query). */
  readonly money: { exchangeAmount?: number; amountSent?: number };
  notified?: RemittanceResult;
  result?: RemittanceResult & { source: ResultSource };
}

/** A quote the workflow took: its number, its rate and when (workflow time). */
interface Quote {
  seq: number;
  rate: number;
  takenAt: number;
}

/** What the buy bought, and the words every later stop uses to tell an operator where that VND is. */
interface Bought {
  amountSent: number;
  bought: string;
  kept: string;
}

function openRun(input: RemittanceInput): Run {
  const { timing } = input;
  return {
    input,
    id: input.remittanceId,
    timing,
    // Gateway calls: retried with backoff on transport failures and "retry later"; every attempt re-sends
    // the same requestId, so a lost answer never becomes a second buy or a second order.
    gateway: gatewayOf<RemittanceActivities>(timing.gatewayAttemptTimeout, {
      firstRetry: timing.gatewayRetryInterval,
    }),
    status: 'accepted',
    quotes: 0,
    money: {},
  };
}

function answerProgress(run: Run) {
  setHandler(remittanceProgressQuery, () => ({
    remittanceId: run.id,
    status: run.status,
    rate: run.rate,
    quotes: run.quotes,
    ...run.money,
    result: run.result,
  }));
}

function listenForResult(run: Run) {
  setHandler(remittanceResultSignal, (notice) => {
    // Duplicates and late notices are harmless: only the first final code counts.
    if (!run.notified && !isPending(outcomeOf(notice.resultCode))) run.notified = notice;
  });
}

async function setStatus(run: Run, next: RemittanceStatus, details: StatusDetails = {}) {
  run.status = next;
  await records.recordRemittanceStatus({ remittanceId: run.id, status: next, ...details });
}

/** Ends the remittance: `failed` before the buy, `needs_attention` after it. */
async function stop(
  run: Run,
  next: 'failed' | 'needs_attention',
  reason: string,
  outcome?: RemittanceResult,
) {
  await setStatus(run, next, {
    reason,
    ...(next === 'needs_attention' ? { attention: reason } : {}),
    ...(outcome ? { result: { ...outcome, source: 'create' as const } } : {}),
  });
  return next;
}

// ---- before the buy: nothing has moved, a stop is `failed`

async function approvedBeforeQuoting(run: Run, approval: ApprovalRequest): Promise<boolean> {
  run.status = 'awaiting_approval';
  const outcome = await awaitApproval(approval);
  if (outcome === 'approved') return true;
  await setStatus(run, outcome, { reason: `The approval was ${outcome}; nothing was bought or sent.` });
  return false;
}

async function takeQuote(run: Run): Promise<Quote> {
  run.quotes += 1;
  const quoted = await run.gateway.quoteRemittanceRate({ remittanceId: run.id, seq: run.quotes });
  run.rate = quoted.rate;
  // The workflow's own clock measures the quote's age (deterministic, and the clock timers use).
  return { seq: run.quotes, rate: quoted.rate, takenAt: Date.now() };
}

/** The receiver wallet can receive, checked before any money moves. */
async function receiverCanReceive(run: Run): Promise<boolean> {
  await setStatus(run, 'verifying_receiver');
  const check = await run.gateway.verifyRemittanceReceiver({ remittanceId: run.id });
  if (check.accepted) return true;
  await stop(
    run,
    'failed',
    `The receiver wallet cannot receive (${check.resultCode}: ${check.message}). Nothing was bought.`,
    { resultCode: check.resultCode, message: check.message },
  );
  return false;
}

async function foreignBalanceCovers(run: Run): Promise<boolean> {
  const { input } = run;
  await setStatus(run, 'checking_balance');
  const foreign = await run.gateway.remittanceBalance({ remittanceId: run.id, currency: input.baseCurrency });
  if (foreign.balance >= input.foreignAmount) return true;
  await stop(
    run,
    'failed',
    `Insufficient ${input.baseCurrency} balance: ${foreign.balance} available, ${input.foreignAmount} needed. ` +
      'Nothing was bought; top up and create a new remittance.',
  );
  return false;
}

/** A quote is a moment: one older than its lifetime is taken again before buying. */
async function quoteStillFresh(run: Run, quote: Quote): Promise<Quote> {
  const { quoteTtl } = run.timing;
  if (Date.now() - quote.takenAt < durationMs(quoteTtl)) return quote;
  await setStatus(run, 'quoting', {
    reason: `Quote ${quote.seq} is older than ${String(quoteTtl)}; quoting again.`,
  });
  return takeQuote(run);
}

/** The VND the quote buys fits the gateway's range and covers what is to be sent. */
async function amountsFit(run: Run, quote: Quote): Promise<boolean> {
  const refusal = amountRefusal(run.input, quote.rate);
  if (refusal === undefined) return true;
  await stop(run, 'failed', `${refusal} Nothing was bought.`);
  return false;
}

function amountRefusal(input: RemittanceInput, rate: number): string | undefined {
  const { foreignAmount, baseCurrency, requestType } = input;
  const expected = exchangeAmountOf(foreignAmount, rate);
  const [min, max] = REMITTANCE_AMOUNT_RANGES[requestType];
  const toSend = input.amount ?? expected;
  // The policy weighed valuedVnd (a rate with a margin): a rate that moved past the margin would send
  // more than was approved and counted against the caps, so nothing is bought.
  if (input.valuedVnd !== undefined && toSend > input.valuedVnd)
    return (
      `At the current rate ${rate}, ${foreignAmount} ${baseCurrency} makes ${toSend} VND, more than the ` +
      `${input.valuedVnd} VND the approval policy weighed; create a new remittance at the new rate.`
    );
  if (expected > MAX_EXCHANGE_AMOUNT)
    return `${foreignAmount} ${baseCurrency} at ${rate} is more than 12 digits of VND.`;
  if (toSend < min || toSend > max)
    return `${foreignAmount} ${baseCurrency} at ${rate} VND makes ${toSend} VND; ${requestType} sends ${min}..${max} VND.`;
  if (toSend > expected)
    return (
      `At the current rate ${rate}, ${foreignAmount} ${baseCurrency} buys ${expected} VND, ` +
      `less than the ${toSend} VND to send.`
    );
  return undefined;
}

// ---- the buy, once: from here the VND bought is this remittance's, a stop is `needs_attention`

async function buyOnce(run: Run, quote: Quote): Promise<Bought | undefined> {
  const { input } = run;
  await setStatus(run, 'buying');
  // Stopped before the buy while remittances are held (the activity tells the VND amount); resumed as the
  // same buy when released.
  const buy = await whileHeld({ kind: 'remittance', objectId: run.id }, ({ releasedHold }) =>
    run.gateway.buyForRemittance({
      remittanceId: run.id,
      quoteSeq: quote.seq,
      foreignAmount: input.foreignAmount,
      rate: quote.rate,
      ...(releasedHold && { releasedHold }),
    }),
  );
  if (buy.outcome === 'refused') {
    await stop(
      run,
      'failed',
      `The buy was refused (${buy.resultCode}: ${buy.message}). Nothing was bought.`,
      buy,
    );
    return undefined;
  }
  if (buy.outcome === 'unknown') {
    await stop(run, 'needs_attention', buyUnknown(run.id, buy));
    return undefined;
  }
  run.rate = buy.rate;
  run.money.exchangeAmount = buy.exchangeAmount;
  run.money.amountSent = input.amount ?? buy.exchangeAmount;
  return boughtOf(input, buy.exchangeAmount, buy.rate, run.money.amountSent);
}

const buyUnknown = (remittanceId: string, buy: { resultCode: number; message: string }) =>
  `The gateway answered ${buy.resultCode} (${buy.message}) to the buy ${remittanceId}-buy: the first ` +
  "attempt's answer was lost or another buy holds this orderId, and the spec gives no way to ask what a " +
  'buy did. Check the merchant statement (foreign and VND balances) before doing anything else; payrun ' +
  'will not buy again.';

function boughtOf(input: RemittanceInput, exchangeAmount: number, rate: number, amountSent: number): Bought {
  const bought = `${exchangeAmount} VND bought from ${input.foreignAmount} ${input.baseCurrency} at ${rate}`;
  const kept = `The ${bought} stays in the merchant's VND balance, recorded against this remittance; send it by another means or return it to the sender. Do not retry this remittance: a new one would buy again.`;
  return { amountSent, bought, kept };
}

/** The VND balance covers the order (the fund is shared with disbursements). */
async function vndBalanceCovers(run: Run, { amountSent, kept }: Bought): Promise<boolean> {
  await setStatus(run, 'checking_balance');
  const vnd = await run.gateway.remittanceBalance({ remittanceId: run.id, currency: 'VND' });
  if (vnd.balance >= amountSent) return true;
  await stop(
    run,
    'needs_attention',
    `The VND balance (${vnd.balance}) is short of ${amountSent} VND after the buy. ${kept}`,
  );
  return false;
}

/** remittance/create; undefined when the remittance ended here (refused, or succeeded at once). */
async function sendOrder(run: Run, { amountSent, kept }: Bought): Promise<CreateOutcome | undefined> {
  await setStatus(run, 'sending', { amountSent });
  let created: CreateOutcome;
  try {
    created = await whileHeld(
      { kind: 'remittance', amountVnd: amountSent, objectId: run.id },
      ({ releasedHold }) =>
        run.gateway.createRemittanceOrder({
          remittanceId: run.id,
          amount: amountSent,
          ...(releasedHold && { releasedHold }),
        }),
    );
  } catch (error) {
    await stop(
      run,
      'needs_attention',
      `remittance/create could not be sent: ${failureReason(error)}. ${kept}`,
    );
    return undefined;
  }
  if (created.outcome === 'refused') {
    await stop(
      run,
      'needs_attention',
      `remittance/create was refused (${created.resultCode}: ${created.message}). ${kept}`,
      created,
    );
    return undefined;
  }
  if (created.outcome !== 'succeeded') return created;
  const { resultCode, message, transId } = created;
  await succeed(run, { resultCode, message, transId, source: 'create' });
  return undefined;
}

async function succeed(run: Run, result: RemittanceResult & { source: ResultSource }) {
  run.result = result;
  await setStatus(run, 'succeeded', { result });
}

// ---- the result: pending, two-step authorized or duplicate: the IPN, or ask when it is late

async function awaitResult(run: Run, bought: Bought, created: CreateOutcome): Promise<RemittanceStatus> {
  const { autoCapture } = run.input;
  await setStatus(run, autoCapture ? 'awaiting_result' : 'awaiting_capture', {
    reason: autoCapture
      ? `The gateway is processing the order (${created.resultCode}).`
      : 'Two-step remittance authorized; the gateway completes it on capture.',
  });
  const heard = await hearResult(run, bought);
  if (!heard.decided) {
    if ('attended' in heard && heard.attended) return run.status;
    return stop(run, 'needs_attention', heard.noResult());
  }
  const result = resultHeard(run, heard);
  if (outcomeOf(result.resultCode) === 'succeeded') {
    await succeed(run, result);
    return run.status;
  }
  await failedAtGateway(run, result, bought.kept);
  return run.status;
}

/** The notification, or api/query with growing waits; an operator is told when none decides in time. */
async function hearResult(run: Run, { bought, amountSent }: Bought) {
  const { timing, id } = run;
  let lastAnswer: { resultCode?: number; message: string } | undefined;
  const ask = async () => {
    const answer = await run.gateway.queryRemittanceResult({ remittanceId: id });
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
    `Ask the gateway about order ${id}; the ${bought} was sent for ${amountSent} VND.`;
  // Since the strict gateway, payrun goes on asking after it told an operator (an unknown answer never ends
  // the wait); runs from before stopped there.
  const heard = patched('remittance-asks-after-attention')
    ? await waitOrAskThenAttend(
        () => run.notified,
        ask,
        schedule,
        async () => void (await stop(run, 'needs_attention', noResult())),
      )
    : await waitForNotificationOrAsk(() => run.notified, ask, schedule);
  return { ...heard, noResult };
}

function resultHeard(
  run: Run,
  heard: { source: string; decided?: RemittanceResult },
): RemittanceResult & { source: ResultSource } {
  if (heard.source === 'notification') return { ...run.notified!, source: 'ipn' };
  const { resultCode, message, transId } = heard.decided!;
  return { resultCode, message, transId, source: 'poll' };
}

/** The order failed at the gateway after the buy: the VND stays with the merchant, an operator decides. */
async function failedAtGateway(run: Run, result: RemittanceResult & { source: ResultSource }, kept: string) {
  run.result = result;
  await setStatus(run, 'needs_attention', {
    result,
    reason: `The remittance failed at the gateway (${result.resultCode}: ${result.message ?? ''}). ${kept}`,
    attention: `The remittance failed at the gateway (${result.resultCode}). ${kept}`,
  });
}

/** The innermost failure's message: the gateway's answer or the rule that was broken, not a wrapper. */
function failureReason(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current?.message ?? 'unknown failure';
}
