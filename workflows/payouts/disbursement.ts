/**
 * One payout to a wallet (check wallet → balance → pay) or to a bank account or card (pay). A pending
 * answer waits for the gateway's notification and, when it is late, asks the gateway (api/query on the
 * disbursement's orderId; gateway/README.md, assumption 21): a lost notification delays, never loses, a
 * result. One that never comes ends as needs_attention for an operator, never as a guess.
 *
 * Every activity, timer and `patched()` below is part of stored histories: moving a call, or evaluating a
 * `patched()` at another point, breaks their replay (docs/workflow-versioning.md).
 */
import { condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import {
  gatewayLocallyOf,
  gatewayOf,
  gatewayOnQueueOf,
  recordsLocallyOf,
  recordsOf,
} from '../shared/activity-profiles';
import { operationQueueOf, durationMs } from '../../contracts/shared';
import { codeOf, isUndecided, outcomeOf } from '../../gateway/result-codes';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import { awaitApproval } from '../approvals/await-approval';
import { whileHeld } from '../holds/while-held';
import { disbursementHoldKind } from '../../contracts/holds';
import {
  disbursementResultSignal,
  disbursementStatusQuery,
  disbursementTransition,
  type DisbursementActivities,
  type DisbursementAnswer,
  type DisbursementInput,
  type DisbursementNotice,
  type DisbursementResult,
  type DisbursementStatus,
} from '../../contracts/payouts';

const records = recordsOf<DisbursementActivities>();
const recordsInTask = recordsLocallyOf<DisbursementActivities>();

export async function disbursement(input: DisbursementInput): Promise<DisbursementResult> {
  const payout = openPayout(input);
  listen(payout);
  // Before any gateway step: a payout held for approvers moves no money unless they approve. Inputs
  // without `approval` (every run started before it existed) never wait, so their replay is unchanged.
  if (input.approval) {
    const outcome = await awaitApproval(input.approval);
    if (outcome !== 'approved')
      return finish(payout, outcome, undefined, `The approval was ${outcome}; nothing was paid.`);
    payout.status = disbursementTransition(payout.status, firstStepOf(input));
  }
  // One activity makes the whole payout (check, balance, pay) and records each step and the answer:
  // about half the history events of three activities, which is what bounds payouts per second. Runs
  // begun before the patch replay step by step, with an activity per gateway call.
  if (patched('disbursement-in-one-activity')) return disburseInOneActivity(payout);
  return disburseStepByStep(payout);
}

// ---- one payout and what its steps share

type Gateway = ReturnType<typeof gatewayOf<DisbursementActivities>>;

interface Payout {
  readonly input: DisbursementInput;
  readonly gateway: Gateway;
  /** What the status query shows. */
  status: DisbursementStatus;
  /** The first final notification heard. */
  notified?: DisbursementNotice;
  /** The code of the pending answer, recorded with needs_attention. */
  pendingCode?: number;
  attentionMessage: string;
  /** Where the workflow's own records run: queued, or in the workflow task that decides them. */
  writer: typeof records;
}

const firstStepOf = (input: DisbursementInput): DisbursementStatus =>
  input.receiver.kind === 'wallet' ? 'checking_wallet' : 'paying';

function openPayout(input: DisbursementInput): Payout {
  return {
    input,
    gateway: gatewayOf<DisbursementActivities>(input.gatewayAttemptTimeout),
    status: input.approval ? 'awaiting_approval' : firstStepOf(input),
    attentionMessage: '',
    writer: records,
  };
}

function listen(payout: Payout) {
  setHandler(disbursementStatusQuery, () => payout.status);
  setHandler(disbursementResultSignal, (result) => {
    // A notification still undecided (7000, 7002) is no outcome: taken as one, it failed a payout the
    // gateway was still paying, and an operator could have paid it again. Runs that took one before the
    // patch replay that way.
    if (isUndecided(outcomeOf(result.resultCode)) && patched('disbursement-undecided-notice-not-final'))
      return;
    payout.notified ??= result;
  });
}

/** Moves the payout along its transition table and records the step with an activity of its own. */
async function finish(
  payout: Payout,
  next: DisbursementStatus,
  resultCode?: number,
  message?: string,
  transId?: string,
): Promise<DisbursementResult> {
  payout.status = disbursementTransition(payout.status, next);
  await payout.writer.recordDisbursement({
    disbursementId: payout.input.disbursementId,
    status: next,
    resultCode,
    message,
    transId,
  });
  return { status: next, resultCode, message };
}

/** pay's own queue, where GATEWAY_RATE_LIMITS applies. */
const payQueue = (attemptTimeout: Duration) =>
  gatewayOnQueueOf<DisbursementActivities>(
    operationQueueOf(workflowInfo().taskQueue, 'disbursement.pay'),
    attemptTimeout,
  );

// ---- since patch `disbursement-in-one-activity`

async function disburseInOneActivity(payout: Payout): Promise<DisbursementResult> {
  const { input } = payout;
  // Up to three gateway calls in one attempt; stopped before the first while its kind is held.
  const attemptTimeout = durationMs(input.gatewayAttemptTimeout) * 3;
  // The input asks for it only without a rate limit on pay; the patch keeps a run that a worker from before
  // it began on pay's queue replaying on that queue (an API upgraded before its workers).
  const inWorkflowTask = input.disburseInWorkflowTask && patched('disbursement-pays-in-workflow-task');
  const disburser = inWorkflowTask
    ? gatewayLocallyOf<DisbursementActivities>(attemptTimeout)
    : payQueue(attemptTimeout);
  const answer = await whileHeld(holdableOf(input), ({ releasedHold }) =>
    disburser.disburse(releasedHold ? { ...input, releasedHold } : input),
  );
  // The activity moved the record along the transition table; this is the query's view of it.
  payout.status = answer.outcome;
  if (answer.outcome !== 'pending')
    return { status: payout.status, resultCode: answer.resultCode, message: answer.message };
  payout.pendingCode = answer.resultCode;
  // The outcome heard later (the notification, the gateway's answer to a query, or none: needs_attention) is
  // written in the workflow task that hears it, as a local activity: the payout then ends in that task, two
  // workflow tasks in all instead of three. The write moves the record forward only, so a task lost with its
  // worker writes it again harmlessly. Runs that paid on pay's queue, or began before the patch, queue it.
  if (inWorkflowTask && patched('disbursement-result-in-workflow-task')) payout.writer = recordsInTask;
  return decide(payout, answer.resultCode, await notifiedOrAsked(payout));
}

// ---- before it: an activity per gateway call

/**
 * Since patch `disbursement-records-in-activities` each gateway activity records the step it stands for
 * (and pay its answer), forward only: three activities and four workflow tasks fewer per payout. Runs
 * begun before the patch record each step with an activity of its own and replay that way.
 */
interface Steps {
  readonly recordedByActivities: boolean;
  readonly withRecords: { records?: true };
}

async function disburseStepByStep(payout: Payout): Promise<DisbursementResult> {
  const recordedByActivities = patched('disbursement-records-in-activities');
  const steps: Steps = { recordedByActivities, withRecords: recordedByActivities ? { records: true } : {} };
  const refused = await checkBeforePay(payout, steps);
  if (refused) return refused;
  payout.status = disbursementTransition(payout.status, 'paying');
  await recordStep(payout, steps);
  const paid = await pay(payout, steps);
  // With the patch, pay records its answer and says so; a pay that ran on a worker from before the
  // patch (a rolling deploy) did not, and the workflow records it as before.
  const answerRecorded = steps.recordedByActivities && 'recorded' in paid && paid.recorded === true;
  if (paid.outcome !== 'pending') return settled(payout, paid, answerRecorded);
  return awaitPending(payout, paid, answerRecorded);
}

async function recordStep(payout: Payout, steps: Steps) {
  if (!steps.recordedByActivities)
    await records.recordDisbursement({ disbursementId: payout.input.disbursementId, status: payout.status });
}

/** A wallet's check, then the merchant balance; the refusal when either says no. Banks are not checked. */
async function checkBeforePay(payout: Payout, steps: Steps): Promise<DisbursementResult | undefined> {
  const { input, gateway } = payout;
  if (input.receiver.kind !== 'wallet') return undefined;
  await recordStep(payout, steps);
  const check = await gateway.checkDisbursementWallet({
    disbursementId: input.disbursementId,
    receiver: input.receiver,
    ...steps.withRecords,
  });
  if (outcomeOf(check.resultCode) !== 'succeeded')
    return finish(payout, 'failed', check.resultCode, check.message);

  payout.status = 'checking_balance';
  await recordStep(payout, steps);
  const { balance } = await gateway.disbursementBalance({
    disbursementId: input.disbursementId,
    ...steps.withRecords,
  });
  if (balance >= input.amount) return undefined;
  return finish(
    payout,
    'failed',
    codeOf('merchant_balance_short'),
    `The merchant balance (${balance} VND) is short of ${input.amount} VND.`,
  );
}

/**
 * disbursement/pay on its own queue, where GATEWAY_RATE_LIMITS applies; runs recorded before the
 * operation queues paid on the main queue and replay that way.
 */
async function pay(payout: Payout, steps: Steps): Promise<DisbursementAnswer> {
  const { input } = payout;
  const payer = patched('pay-on-operation-queue') ? payQueue(input.gatewayAttemptTimeout) : payout.gateway;
  return whileHeld(holdableOf(input), ({ releasedHold }) =>
    payer.payDisbursement({ ...input, ...steps.withRecords, ...(releasedHold && { releasedHold }) }),
  );
}

/** What the hold switch counts of this payout while its kind is held. */
const holdableOf = (input: DisbursementInput) => ({
  kind: disbursementHoldKind(input.receiver.kind),
  amountVnd: input.amount,
  objectId: input.disbursementId,
});

/** pay's final answer: recorded already by the activity, or now. */
async function settled(
  payout: Payout,
  paid: DisbursementAnswer,
  answerRecorded: boolean,
): Promise<DisbursementResult> {
  if (answerRecorded) {
    payout.status = disbursementTransition(payout.status, paid.outcome);
    return { status: payout.status, resultCode: paid.resultCode, message: paid.message };
  }
  return paid.outcome === 'succeeded'
    ? finish(payout, 'succeeded', paid.resultCode, paid.message, paid.transId)
    : finish(payout, 'failed', paid.resultCode, paid.message);
}

async function awaitPending(
  payout: Payout,
  paid: DisbursementAnswer,
  answerRecorded: boolean,
): Promise<DisbursementResult> {
  payout.status = disbursementTransition(payout.status, 'pending');
  if (!answerRecorded) {
    await records.recordDisbursement({
      disbursementId: payout.input.disbursementId,
      status: payout.status,
      resultCode: paid.resultCode,
      message: paid.message,
    });
  }
  payout.pendingCode = paid.resultCode;
  return decide(
    payout,
    paid.resultCode,
    patched('disbursement-asks-when-late') ? await notifiedOrAsked(payout) : await notifiedOnly(payout),
  );
}

// ---- a pending payout's wait

/** A pending payout's end: the final notice as heard, or an operator when none came. */
async function decide(
  payout: Payout,
  pendingCode: number | undefined,
  final: DisbursementNotice | undefined,
): Promise<DisbursementResult> {
  if (!final) return { status: payout.status, resultCode: pendingCode, message: payout.attentionMessage };
  return finish(
    payout,
    outcomeOf(final.resultCode) === 'succeeded' ? 'succeeded' : 'failed',
    final.resultCode,
    final.message,
    final.transId,
  );
}

/** Before patch `disbursement-asks-when-late`: the notification, or nothing within resultWait. */
async function notifiedOnly(payout: Payout): Promise<DisbursementNotice | undefined> {
  if (await condition(() => payout.notified !== undefined, payout.input.resultWait)) return payout.notified;
  await attention(payout);
  return undefined;
}

/**
 * The notification, or the gateway's answer when it is late. When none came within resultWait an
 * operator is told (needs_attention) and payrun goes on asking (patch `asks-after-attention`; runs from
 * before it stopped there). Only evidence decides: an unknown answer keeps the wait going.
 */
async function notifiedOrAsked(payout: Payout): Promise<DisbursementNotice | undefined> {
  const { input } = payout;
  let unknownBecause: string | undefined;
  const ask = async () => {
    const asked = await payout.gateway.queryDisbursementResult({ disbursementId: input.disbursementId });
    // A notification that arrived while we asked is as good as the answer.
    if (payout.notified) return payout.notified;
    if (asked.state === 'unknown') unknownBecause = asked.reason;
    return asked.state !== 'unknown' && asked.state !== 'pending' ? asked.notice : undefined;
  };
  const notified = () => payout.notified;
  const schedule: AskSchedule = {
    firstWait: input.ipnTimeout ?? input.resultWait,
    growth: 2,
    maxWait: '1 hour',
    giveUpAfterWaiting: input.resultWait,
  };
  if (!patched('asks-after-attention')) {
    const heard = await waitForNotificationOrAsk(notified, ask, schedule);
    if (!heard.decided) await attention(payout);
    return heard.decided;
  }
  const heard = await waitOrAskThenAttend(notified, ask, schedule, () => attention(payout, unknownBecause));
  return heard.decided;
}

async function attention(payout: Payout, because?: string) {
  payout.attentionMessage =
    'No final result arrived from the gateway; check it with the gateway.' +
    (because ? ` The last answer told nothing: ${because}.` : '');
  await finish(payout, 'needs_attention', payout.pendingCode, payout.attentionMessage);
}
