import { codeOf, isAlreadySubmitted, orderStatusEvidence, type GatewayClient } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  advanceDisbursementStatus,
  findDisbursement,
  recordDisbursementStatus,
  type DisbursementRow,
} from '../../db/payouts/disbursements';
import {
  canMoveDisbursement,
  statusesBefore,
  type DisbursementActivities,
  type DisbursementAnswer,
  type DisbursementInput,
  type DisbursementQueryAnswer,
  type DisbursementReceiver,
  type DisbursementStatusRecord,
  type WalletReceiver,
} from '../../contracts/payouts';
import { requestIdFor } from '../../gateway/ids';
import { askForEvidence, askGateway, callGateway, lookupId } from '../shared/gateway-calls';
import { bindActivities } from '../shared/bind';
import { requireApproved } from '../approvals/approvals';
import { stopIfHeld } from '../holds/holds';
import { disbursementHoldKind, type ResumedStep } from '../../contracts/holds';

export interface DisbursementActivityDeps {
  db: Db;
  gateway: GatewayClient;
  disbursementIpnUrl: string;
}

export const createDisbursementActivities = (deps: DisbursementActivityDeps): DisbursementActivities =>
  bindActivities(deps, {
    checkDisbursementWallet,
    disbursementBalance,
    disburse,
    payDisbursement,
    queryDisbursementResult,
    recordDisbursement,
  });

export async function checkDisbursementWallet(
  { db, gateway }: DisbursementActivityDeps,
  input: {
    disbursementId: string;
    receiver: WalletReceiver;
    /** Records `checking_wallet` first (runs since patch `disbursement-records-in-activities`). */
    records?: true;
  },
): Promise<{ resultCode: number; message: string }> {
  if (input.records) await advance(db, input.disbursementId, { status: 'checking_wallet' });
  const { order_id } = await recordOf(db, input.disbursementId);
  const { resultCode, message } = await checkWallet(gateway, order_id, input.receiver);
  return { resultCode, message };
}

export async function disbursementBalance(
  { db, gateway }: DisbursementActivityDeps,
  { disbursementId, records }: { disbursementId: string; records?: true },
): Promise<{ balance: number }> {
  if (records) await advance(db, disbursementId, { status: 'checking_balance' });
  return { balance: await merchantBalance(gateway, (await recordOf(db, disbursementId)).order_id) };
}

/**
 * The whole payout in one activity (runs since patch `disbursement-in-one-activity`): for a wallet the
 * check and the balance, then pay, each step recorded forward only, and the answer recorded. One
 * activity instead of three halves the history a payout writes, which is what bounds how many payouts
 * a second Temporal can take.
 *
 * Paid at most once: an attempt that runs again reads the record first. Once `paying` is recorded the
 * checks never run again (a balance read after the money left could fail a payout that was made); pay
 * is re-sent with the same orderId and requestId, which the gateway answers as the same order. An
 * answer already recorded (a refused check, a short balance, pay's answer) is returned as it stands.
 */
export async function disburse(
  deps: DisbursementActivityDeps,
  input: DisbursementInput & ResumedStep,
): Promise<DisbursementAnswer & { recorded: true }> {
  const recorded = await recordOf(deps.db, input.disbursementId);
  const answered = answerOf(recorded);
  if (answered) return answered;
  await requireApproved(deps.db, 'disbursement', input.disbursementId);
  // Before the first call (the wallet check included): a held payout has sent nothing when it stops. Once
  // `paying` is recorded pay may have been sent: that payout goes on.
  if (BEFORE_PAY.includes(recorded.status))
    await stopIfHeld(deps.db, disbursementHoldKind(input.receiver.kind), input.releasedHold);
  if (input.receiver.kind === 'wallet' && BEFORE_PAY.includes(recorded.status)) {
    const refused = await checkBeforePay(deps, input, recorded.order_id, input.receiver);
    if (refused) return refused;
  }
  return payAndRecord(deps, input);
}

/**
 * requestId and orderId derive from the disbursement: a retry re-sends the same order, never a new one.
 * With `records`, the status is written here too: `paying` before the call, then the answer's outcome.
 */
export async function payDisbursement(
  deps: DisbursementActivityDeps,
  input: DisbursementInput & ResumedStep & { records?: true },
): Promise<DisbursementAnswer> {
  await requireApproved(deps.db, 'disbursement', input.disbursementId);
  await stopIfHeld(deps.db, disbursementHoldKind(input.receiver.kind), input.releasedHold);
  if (!input.records) return pay(deps, input);
  // Told back as recorded, so that a workflow whose pay ran on a worker from before this change (which
  // ignores `records`) still records the answer itself.
  return payAndRecord(deps, input);
}

/**
 * Asks the gateway about a pending disbursement whose notification is late: api/query with its
 * orderId (gateway/README.md, assumption 21). Only evidence counts (gateway/evidence.ts): an answer
 * that names this payout with its amount and a transId, of a payout's kind. A refused query, an answer
 * about another order under the same id, or one payrun's client rejects leaves it unknown, with why.
 */
export async function queryDisbursementResult(
  { db, gateway }: DisbursementActivityDeps,
  { disbursementId }: { disbursementId: string },
): Promise<DisbursementQueryAnswer> {
  const row = await recordOf(db, disbursementId);
  return resultOf(gateway, row.order_id, Number(row.amount));
}

export async function recordDisbursement(
  { db }: DisbursementActivityDeps,
  input: DisbursementStatusRecord,
): Promise<void> {
  await recordDisbursementStatus(db, input, canMoveDisbursement);
}

// ---- the steps the activities share

async function recordOf(db: Db, disbursementId: string): Promise<DisbursementRow> {
  const row = await findDisbursement(db, disbursementId);
  if (!row) throw new Error(`Disbursement ${disbursementId} has no record`);
  return row;
}

/** Records a step an activity stands for, only forward (see advanceDisbursementStatus). */
const advance = (
  db: Db,
  disbursementId: string,
  step: {
    status: DisbursementStatusRecord['status'];
    resultCode?: number;
    message?: string;
    transId?: string;
  },
) => advanceDisbursementStatus(db, { disbursementId, ...step }, statusesBefore(step.status));

/** The statuses from which the checks may (still) run: no pay has been sent yet. */
const BEFORE_PAY: readonly DisbursementRow['status'][] = [
  'queued',
  'awaiting_approval',
  'checking_wallet',
  'checking_balance',
];

/**
 * What an earlier attempt of `disburse` already recorded as the gateway's answer, as that activity
 * answers it; nothing while no answer is recorded.
 */
function answerOf(row: DisbursementRow): (DisbursementAnswer & { recorded: true }) | undefined {
  if (row.status !== 'pending' && row.status !== 'succeeded' && row.status !== 'failed') return undefined;
  const resultCode = row.result_code ?? undefined;
  const message = row.message ?? '';
  if (row.status === 'succeeded')
    return { outcome: 'succeeded', resultCode, message, transId: row.trans_id ?? undefined, recorded: true };
  return { outcome: row.status, resultCode, message, recorded: true };
}

/** The wallet check, then the balance, each recorded; the refusal, recorded failed, when one fails. */
async function checkBeforePay(
  { db, gateway }: DisbursementActivityDeps,
  input: DisbursementInput,
  orderId: string,
  receiver: WalletReceiver,
) {
  await advance(db, input.disbursementId, { status: 'checking_wallet' });
  const check = await checkWallet(gateway, orderId, receiver);
  if (!check.accepted) return refuse(db, input.disbursementId, check.resultCode, check.message);
  await advance(db, input.disbursementId, { status: 'checking_balance' });
  const balance = await merchantBalance(gateway, orderId);
  if (balance >= input.amount) return undefined;
  return refuse(
    db,
    input.disbursementId,
    codeOf('merchant_balance_short'),
    `The merchant balance (${balance} VND) is short of ${input.amount} VND.`,
  );
}

/** `paying` recorded before the call, then the answer's outcome. */
async function payAndRecord(
  deps: DisbursementActivityDeps,
  input: DisbursementInput,
): Promise<DisbursementAnswer & { recorded: true }> {
  await advance(deps.db, input.disbursementId, { status: 'paying' });
  const paid = await pay(deps, input);
  const { outcome, ...answer } = paid;
  await advance(deps.db, input.disbursementId, { status: outcome, ...answer });
  return { ...paid, recorded: true };
}

/** A payout refused before pay was sent: recorded failed, with the reason. */
async function refuse(db: Db, disbursementId: string, resultCode: number, message: string) {
  await advance(db, disbursementId, { status: 'failed', resultCode, message });
  return { outcome: 'failed' as const, resultCode, message, recorded: true as const };
}

// ---- the gateway calls

/**
 * disbursement/verify (checkWallet): a lookup with ids of its own, fresh on every attempt. A check creates
 * nothing, and the gateway keeps a check's orderId and requestId once read, so a fixed id would turn a lost
 * answer into a 40 or 41 and a payout refused for nothing.
 */
async function checkWallet(gateway: GatewayClient, orderId: string, receiver: WalletReceiver) {
  const id = lookupId(orderId);
  const answer = await askGateway(gateway, 'disbursement.verify', {
    orderId: id,
    requestId: id,
    requestType: 'checkWallet',
    disbursementMethod: {
      walletId: receiver.walletId,
      walletName: receiver.walletName,
      personalId: receiver.personalId,
    },
  });
  return {
    accepted: answer.outcome === 'succeeded',
    resultCode: answer.resultCode,
    message: answer.message,
  };
}

/** disbursement/balance: a fresh request each time, since a balance is read, not made. */
async function merchantBalance(gateway: GatewayClient, orderId: string): Promise<number> {
  const id = lookupId(orderId);
  const result = await callGateway(gateway, 'disbursement.balance', { orderId: id, requestId: id });
  return Number((result.body as { amount?: number }).amount ?? 0);
}

/** What api/query proves about a payout (gateway/README.md assumption 21; gateway/evidence.ts). */
async function resultOf(
  gateway: GatewayClient,
  orderId: string,
  amount: number,
): Promise<DisbursementQueryAnswer> {
  const evidence = await askForEvidence(
    gateway,
    'payment.query',
    { orderId, requestId: lookupId(orderId) },
    (body) => orderStatusEvidence(body, { orderId, amount, kind: 'payout' }),
  );
  if (evidence.state === 'unknown') return { state: 'unknown', reason: evidence.reason };
  if (evidence.state === 'undecided') return { state: 'pending' };
  const { resultCode, message, transId } = evidence;
  return {
    state: evidence.outcome === 'succeeded' ? 'succeeded' : 'failed',
    notice: { resultCode, message, ...(transId ? { transId } : {}) },
  };
}

function method(receiver: DisbursementReceiver) {
  if (receiver.kind === 'wallet') {
    return { walletId: receiver.walletId, walletName: receiver.walletName, personalId: receiver.personalId };
  }
  const { kind: _kind, ...bank } = receiver;
  return bank;
}

const payRequest = (orderId: string, input: DisbursementInput, ipnUrl: string) => ({
  orderId,
  // The same requestId on every attempt: money moves once per requestId, and a retry after a lost
  // answer hears 40, which pay resolves with api/query.
  requestId: requestIdFor(orderId, 'pay'),
  amount: input.amount,
  requestType: input.receiver.kind === 'wallet' ? ('disburseToWallet' as const) : ('disburseToBank' as const),
  disbursementMethod: method(input.receiver),
  orderInfo: input.description,
  ipnUrl,
  extraData: '',
});

/** disbursement/pay, answered as an outcome. */
async function pay(
  { db, gateway, disbursementIpnUrl }: DisbursementActivityDeps,
  input: DisbursementInput,
): Promise<DisbursementAnswer> {
  const { order_id: orderId } = await recordOf(db, input.disbursementId);
  const answer = await askGateway(
    gateway,
    'disbursement.pay',
    payRequest(orderId, input, disbursementIpnUrl),
  );
  const { resultCode, message, body } = answer;
  if (!answer.accepted) return { outcome: 'failed', resultCode, message };
  // Already submitted (40: this attempt's first answer was lost; 41): ask now; what the query cannot
  // prove is pending, and the workflow waits for the notification and asks again.
  if (isAlreadySubmitted(answer.outcome)) {
    const asked = await resultOf(gateway, orderId, input.amount);
    if (asked.state === 'succeeded' || asked.state === 'failed')
      return { outcome: asked.state, ...asked.notice! };
    return { outcome: 'pending', resultCode, message };
  }
  const transId = (body as { transId?: number }).transId;
  if (answer.outcome === 'succeeded')
    return {
      outcome: 'succeeded',
      resultCode,
      message,
      transId: transId === undefined ? undefined : String(transId),
    };
  // Pending, or already submitted: either way the final result comes by notification.
  return { outcome: 'pending', resultCode, message };
}
