import { condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { gatewayOf, gatewayOnQueueOf, recordsOf } from '../shared/activity-profiles';
import { operationQueueOf, durationMs } from '../../contracts/shared';
import { codeOf, isUndecided, outcomeOf } from '../../gateway/result-codes';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import {
  disbursementResultSignal,
  disbursementStatusQuery,
  disbursementTransition,
  type DisbursementInput,
  type DisbursementNotice,
  type DisbursementResult,
  type DisbursementStatus,
  type DisbursementActivities,
} from '../../contracts/payouts';

const records = recordsOf<DisbursementActivities>();

/**
 * One payout to a wallet (check wallet → balance → pay) or to a bank account or card (pay). A pending
 * answer waits for the gateway's notification and, when it is late, asks the gateway (api/query on the
 * disbursement's orderId; gateway/README.md, assumption 21): a lost notification delays, never loses, a
 * result. One that never comes ends as needs_attention for an operator, never as a guess.
 */
export async function disbursement(input: DisbursementInput): Promise<DisbursementResult> {
  const gateway = gatewayOf<DisbursementActivities>(input.gatewayAttemptTimeout);
  let status: DisbursementStatus = input.receiver.kind === 'wallet' ? 'checking_wallet' : 'paying';
  let notified: DisbursementNotice | undefined;
  /** The code of the pending answer, recorded with needs_attention. */
  let pendingCode: number | undefined;
  let attentionMessage = '';
  setHandler(disbursementStatusQuery, () => status);
  setHandler(disbursementResultSignal, (result) => {
    // A notification still undecided (7000, 7002) is no outcome: taken as one, it failed a payout the
    // gateway was still paying, and an operator could have paid it again. Runs that took one before the
    // patch replay that way.
    if (isUndecided(outcomeOf(result.resultCode)) && patched('disbursement-undecided-notice-not-final'))
      return;
    notified ??= result;
  });
  const finish = async (
    next: DisbursementStatus,
    resultCode?: number,
    message?: string,
    transId?: string,
  ) => {
    status = disbursementTransition(status, next);
    await records.recordDisbursement({
      disbursementId: input.disbursementId,
      status: next,
      resultCode,
      message,
      transId,
    });
    return { status: next, resultCode, message };
  };

  // One activity makes the whole payout (check, balance, pay) and records each step and the answer:
  // about half the history events of three activities, which is what bounds payouts per second. It
  // runs on pay's own queue, where GATEWAY_RATE_LIMITS applies. Runs begun before the patch replay
  // below, with an activity per gateway call.
  if (patched('disbursement-in-one-activity')) {
    const payer = gatewayOnQueueOf<DisbursementActivities>(
      operationQueueOf(workflowInfo().taskQueue, 'disbursement.pay'),
      // Up to three gateway calls in one attempt.
      durationMs(input.gatewayAttemptTimeout) * 3,
    );
    const answer = await payer.disburse(input);
    // The activity moved the record along the transition table; this is the query's view of it.
    status = answer.outcome;
    if (answer.outcome !== 'pending')
      return { status, resultCode: answer.resultCode, message: answer.message };
    pendingCode = answer.resultCode;
    return decide(answer.resultCode, await notifiedOrAsked());
  }

  // Each gateway activity records the step it stands for (and pay its answer), forward only: three
  // activities and four workflow tasks fewer per payout. Runs begun before the patch record each step
  // with an activity of its own and replay that way.
  const stepsRecorded = patched('disbursement-records-in-activities');
  const withRecords = stepsRecorded ? ({ records: true } as const) : {};
  const recordStep = async () => {
    if (!stepsRecorded) await records.recordDisbursement({ disbursementId: input.disbursementId, status });
  };

  if (input.receiver.kind === 'wallet') {
    await recordStep();
    const check = await gateway.checkDisbursementWallet({
      disbursementId: input.disbursementId,
      receiver: input.receiver,
      ...withRecords,
    });
    if (outcomeOf(check.resultCode) !== 'succeeded') return finish('failed', check.resultCode, check.message);

    status = 'checking_balance';
    await recordStep();
    const { balance } = await gateway.disbursementBalance({
      disbursementId: input.disbursementId,
      ...withRecords,
    });
    if (balance < input.amount) {
      return finish(
        'failed',
        codeOf('merchant_balance_short'),
        `The merchant balance (${balance} VND) is short of ${input.amount} VND.`,
      );
    }
  }

  status = disbursementTransition(status, 'paying');
  await recordStep();
  // disbursement/pay on its own queue, where GATEWAY_RATE_LIMITS applies; runs recorded before the
  // operation queues paid on the main queue and replay that way.
  const payer = patched('pay-on-operation-queue')
    ? gatewayOnQueueOf<DisbursementActivities>(
        operationQueueOf(workflowInfo().taskQueue, 'disbursement.pay'),
        input.gatewayAttemptTimeout,
      )
    : gateway;
  const paid = await payer.payDisbursement({ ...input, ...withRecords });
  // With the patch, pay records its answer and says so; a pay that ran on a worker from before the
  // patch (a rolling deploy) did not, and the workflow records it as before.
  const answerRecorded = stepsRecorded && 'recorded' in paid && paid.recorded === true;
  if (paid.outcome !== 'pending') {
    if (answerRecorded) {
      status = disbursementTransition(status, paid.outcome);
      return { status, resultCode: paid.resultCode, message: paid.message };
    }
    return paid.outcome === 'succeeded'
      ? finish('succeeded', paid.resultCode, paid.message, paid.transId)
      : finish('failed', paid.resultCode, paid.message);
  }

  status = disbursementTransition(status, 'pending');
  if (!answerRecorded) {
    await records.recordDisbursement({
      disbursementId: input.disbursementId,
      status,
      resultCode: paid.resultCode,
      message: paid.message,
    });
  }
  pendingCode = paid.resultCode;
  return decide(
    paid.resultCode,
    patched('disbursement-asks-when-late') ? await notifiedOrAsked() : await notifiedOnly(),
  );

  /** A pending payout's end: the final notice as heard, or an operator when none came. */
  async function decide(pendingCode: number | undefined, final: DisbursementNotice | undefined) {
    if (!final) return { status, resultCode: pendingCode, message: attentionMessage };
    return finish(
      outcomeOf(final.resultCode) === 'succeeded' ? 'succeeded' : 'failed',
      final.resultCode,
      final.message,
      final.transId,
    );
  }

  /** Before the patch: the notification, or nothing within resultWait. */
  async function notifiedOnly(): Promise<DisbursementNotice | undefined> {
    if (await condition(() => notified !== undefined, input.resultWait)) return notified;
    await attention();
    return undefined;
  }

  /**
   * The notification, or the gateway's answer when it is late. When none came within resultWait an
   * operator is told (needs_attention) and payrun goes on asking (patch `asks-after-attention`; runs from
   * before it stopped there). Only evidence decides: an unknown answer keeps the wait going.
   */
  async function notifiedOrAsked(): Promise<DisbursementNotice | undefined> {
    let unknownBecause: string | undefined;
    const ask = async () => {
      const asked = await gateway.queryDisbursementResult({ disbursementId: input.disbursementId });
      // A notification that arrived while we asked is as good as the answer.
      if (notified) return notified;
      if (asked.state === 'unknown') unknownBecause = asked.reason;
      return asked.state !== 'unknown' && asked.state !== 'pending' ? asked.notice : undefined;
    };
    const schedule: AskSchedule = {
      firstWait: input.ipnTimeout ?? input.resultWait,
      growth: 2,
      maxWait: '1 hour',
      giveUpAfterWaiting: input.resultWait,
    };
    if (!patched('asks-after-attention')) {
      const heard = await waitForNotificationOrAsk(() => notified, ask, schedule);
      if (!heard.decided) await attention();
      return heard.decided;
    }
    const heard = await waitOrAskThenAttend(
      () => notified,
      ask,
      schedule,
      () => attention(unknownBecause),
    );
    return heard.decided;
  }

  async function attention(because?: string) {
    attentionMessage =
      'No final result arrived from the gateway; check it with the gateway.' +
      (because ? ` The last answer told nothing: ${because}.` : '');
    await finish('needs_attention', pendingCode, attentionMessage);
  }
}
