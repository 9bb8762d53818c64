import { codeOf, isAlreadySubmitted, orderStatusEvidence, type GatewayClient } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  advanceDisbursementStatus,
  recordDisbursementStatus,
  type DisbursementRow,
} from '../../db/payouts/disbursements';
import {
  canMoveDisbursement,
  statusesBefore,
  type DisbursementInput,
  type DisbursementNotice,
  type DisbursementReceiver,
  type DisbursementStatus,
} from '../../contracts/payouts';
import { requestIdFor } from '../../contracts/shared';
import { askForEvidence, askGateway, callGateway, lookupId } from '../shared/gateway-calls';

export interface DisbursementActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  disbursementIpnUrl: string;
}

type WalletReceiver = Extract<DisbursementReceiver, { kind: 'wallet' }>;

const orderIdOf = async (db: Db, disbursementId: string): Promise<string> =>
  (await recordOf(db, disbursementId)).order_id;

/**
 * What the gateway's answer to api/query proves about a payout: only evidence counts (an answer naming this
 * payout with its amount and a transId, of a payout's kind); anything else is unknown, with why.
 */
type QueryAnswer = {
  state: 'succeeded' | 'failed' | 'pending' | 'unknown';
  notice?: DisbursementNotice;
  reason?: string;
};

type RecordedStep = Pick<DisbursementRow, 'order_id' | 'status' | 'result_code' | 'message' | 'trans_id'>;

async function recordOf(db: Db, disbursementId: string): Promise<RecordedStep> {
  const row = (await db('disbursements')
    .where({ disbursement_id: disbursementId })
    .first('order_id', 'status', 'result_code', 'message', 'trans_id')) as RecordedStep | undefined;
  if (!row) throw new Error(`Disbursement ${disbursementId} has no record`);
  return row;
}

/** The statuses from which the checks may (still) run: no pay has been sent yet. */
const BEFORE_PAY: readonly DisbursementRow['status'][] = ['queued', 'checking_wallet', 'checking_balance'];

/**
 * What an earlier attempt of `disburse` already recorded as the gateway's answer, as that activity
 * answers it; nothing while no answer is recorded.
 */
function answerOf(row: RecordedStep) {
  if (row.status !== 'pending' && row.status !== 'succeeded' && row.status !== 'failed') return undefined;
  const resultCode = row.result_code ?? undefined;
  const message = row.message ?? '';
  if (row.status === 'succeeded')
    return {
      outcome: 'succeeded' as const,
      resultCode,
      message,
      transId: row.trans_id ?? undefined,
      recorded: true as const,
    };
  return { outcome: row.status, resultCode, message, recorded: true as const };
}

function method(receiver: DisbursementReceiver) {
  if (receiver.kind === 'wallet') {
    return { walletId: receiver.walletId, walletName: receiver.walletName, personalId: receiver.personalId };
  }
  const { kind: _kind, ...bank } = receiver;
  return bank;
}

export function createDisbursementActivities({
  db,
  gateway,
  disbursementIpnUrl,
}: DisbursementActivityDependencies) {
  /** Records a step an activity stands for, only forward (see advanceDisbursementStatus). */
  const advance = (
    disbursementId: string,
    step: { status: DisbursementStatus; resultCode?: number; message?: string; transId?: string },
  ) => advanceDisbursementStatus(db, { disbursementId, ...step }, statusesBefore(step.status));

  /**
   * disbursement/verify (checkWallet): a lookup with ids of its own, fresh on every attempt. A check creates
   * nothing, and the gateway keeps a check's orderId and requestId once read, so a fixed id would turn a lost
   * answer into a 40 or 41 and a payout refused for nothing.
   */
  async function checkWallet(orderId: string, receiver: WalletReceiver) {
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
  async function merchantBalance(orderId: string): Promise<number> {
    const id = lookupId(orderId);
    const result = await callGateway(gateway, 'disbursement.balance', { orderId: id, requestId: id });
    return Number((result.body as { amount?: number }).amount ?? 0);
  }

  /** What api/query proves about a payout (gateway/README.md assumption 21; gateway/evidence.ts). */
  async function resultOf(orderId: string, amount: number): Promise<QueryAnswer> {
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

  /** A payout refused before pay was sent: recorded failed, with the reason. */
  async function refuse(disbursementId: string, resultCode: number, message: string) {
    await advance(disbursementId, { status: 'failed', resultCode, message });
    return { outcome: 'failed' as const, resultCode, message, recorded: true as const };
  }

  /** disbursement/pay, answered as an outcome. */
  async function pay(input: DisbursementInput) {
    const orderId = await orderIdOf(db, input.disbursementId);
    const answer = await askGateway(gateway, 'disbursement.pay', {
      orderId,
      // The same requestId on every attempt: money moves once per requestId, and a retry after a lost
      // answer hears 40, which the query below resolves.
      requestId: requestIdFor(orderId, 'pay'),
      amount: input.amount,
      requestType: input.receiver.kind === 'wallet' ? 'disburseToWallet' : 'disburseToBank',
      disbursementMethod: method(input.receiver),
      orderInfo: input.description,
      ipnUrl: disbursementIpnUrl,
      extraData: '',
    });
    const { resultCode, message, body } = answer;
    if (!answer.accepted) return { outcome: 'failed' as const, resultCode, message };
    // Already submitted (40: this attempt's first answer was lost; 41): ask now; what the query cannot
    // prove is pending, and the workflow waits for the notification and asks again.
    if (isAlreadySubmitted(answer.outcome)) {
      const asked = await resultOf(orderId, input.amount);
      if (asked.state === 'succeeded' || asked.state === 'failed')
        return { outcome: asked.state, ...asked.notice! };
      return { outcome: 'pending' as const, resultCode, message };
    }
    const transId = (body as { transId?: number }).transId;
    if (answer.outcome === 'succeeded') {
      return {
        outcome: 'succeeded' as const,
        resultCode,
        message,
        transId: transId === undefined ? undefined : String(transId),
      };
    }
    // Pending, or already submitted: either way the final result comes by notification.
    return { outcome: 'pending' as const, resultCode, message };
  }

  return {
    async checkDisbursementWallet(input: {
      disbursementId: string;
      receiver: WalletReceiver;
      /** Records `checking_wallet` first (runs since patch `disbursement-records-in-activities`). */
      records?: true;
    }) {
      if (input.records) await advance(input.disbursementId, { status: 'checking_wallet' });
      const { resultCode, message } = await checkWallet(
        await orderIdOf(db, input.disbursementId),
        input.receiver,
      );
      return { resultCode, message };
    },

    async disbursementBalance({ disbursementId, records }: { disbursementId: string; records?: true }) {
      if (records) await advance(disbursementId, { status: 'checking_balance' });
      return { balance: await merchantBalance(await orderIdOf(db, disbursementId)) };
    },

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
    async disburse(input: DisbursementInput) {
      const { disbursementId } = input;
      const recorded = await recordOf(db, disbursementId);
      const answered = answerOf(recorded);
      if (answered) return answered;
      if (input.receiver.kind === 'wallet' && BEFORE_PAY.includes(recorded.status)) {
        await advance(disbursementId, { status: 'checking_wallet' });
        const check = await checkWallet(recorded.order_id, input.receiver);
        if (!check.accepted) return refuse(disbursementId, check.resultCode, check.message);
        await advance(disbursementId, { status: 'checking_balance' });
        const balance = await merchantBalance(recorded.order_id);
        if (balance < input.amount) {
          return refuse(
            disbursementId,
            codeOf('merchant_balance_short'),
            `The merchant balance (${balance} VND) is short of ${input.amount} VND.`,
          );
        }
      }
      await advance(disbursementId, { status: 'paying' });
      const paid = await pay(input);
      const { outcome, ...answer } = paid;
      await advance(disbursementId, { status: outcome, ...answer });
      return { ...paid, recorded: true as const };
    },

    /**
     * requestId and orderId derive from the disbursement: a retry re-sends the same order, never a new one.
     * With `records`, the status is written here too: `paying` before the call, then the answer's outcome.
     */
    async payDisbursement(input: DisbursementInput & { records?: true }) {
      if (!input.records) return pay(input);
      await advance(input.disbursementId, { status: 'paying' });
      const paid = await pay(input);
      const { outcome, ...answer } = paid;
      await advance(input.disbursementId, { status: outcome, ...answer });
      // Told back, so that a workflow whose pay ran on a worker from before this change (which ignores
      // `records`) still records the answer itself.
      return { ...paid, recorded: true as const };
    },

    /**
     * Asks the gateway about a pending disbursement whose notification is late: api/query with its
     * orderId (gateway/README.md, assumption 21). Only evidence counts (gateway/evidence.ts): an answer
     * that names this payout with its amount and a transId, of a payout's kind. A refused query, an answer
     * about another order under the same id, or one payrun's client rejects leaves it unknown, with why.
     */
    async queryDisbursementResult({ disbursementId }: { disbursementId: string }): Promise<QueryAnswer> {
      const row = await db('disbursements')
        .where({ disbursement_id: disbursementId })
        .first('order_id', 'amount');
      if (!row) throw new Error(`Disbursement ${disbursementId} has no record`);
      return resultOf(row.order_id as string, Number(row.amount));
    },

    async recordDisbursement(input: {
      disbursementId: string;
      status: DisbursementStatus;
      resultCode?: number;
      message?: string;
      transId?: string;
    }) {
      await recordDisbursementStatus(db, input, canMoveDisbursement);
    },
  };
}

export type DisbursementActivities = ReturnType<typeof createDisbursementActivities>;
