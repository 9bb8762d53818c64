/**
 * What a query answer proves about an order (DESIGN decision 13). A query answer is evidence of an order's
 * outcome only when the gateway accepted the query, the answer names that order, carries its transaction
 * and its amount, and is of the order's kind; anything else means "not known yet". A refusal of the query
 * (40, 42, 99 without a transaction, 13, 20, …) is never an order's result, and neither is an answer about
 * another order that happens to share the orderId (another system of the merchant, or an order of another
 * kind). Pure: the activities read it, the tests walk it.
 */
import { isUndecided, outcomeOf, resultCodeInfo, type ResultOutcome } from './result-codes';

/**
 * `payment`: a customer's payment (api/create, POS, token and subscription charges). `payout`: money the
 * merchant sends (single disbursement, remittance), which api/query reports with an empty payType.
 */
export type OrderKind = 'payment' | 'payout';

export interface ExpectedOrder {
  readonly orderId: string;
  /** The amount payrun sent for this order. */
  readonly amount: number;
  readonly kind: OrderKind;
}

export type Evidence =
  /** The gateway decided: succeeded, or a final failure of this very order. */
  | {
      readonly state: 'decided';
      readonly outcome: ResultOutcome;
      readonly resultCode: number;
      readonly message: string;
      readonly transId?: string;
    }
  /** The order exists and is still on its way (pending, waiting for the customer). */
  | {
      readonly state: 'undecided';
      readonly outcome: ResultOutcome;
      readonly resultCode: number;
      readonly message: string;
    }
  /** Nothing can be concluded: why, in words an operator reads. */
  | { readonly state: 'unknown'; readonly reason: string; readonly resultCode?: number };

/** Outcomes that say the query itself was not taken: never a state of the order asked about. */
const QUERY_REFUSALS: ReadonlySet<ResultOutcome> = new Set([
  'duplicate_request',
  'duplicate_order',
  'not_found',
  'invalid_request',
  'retry_later',
]);

const textOf = (value: unknown) =>
  value === undefined || value === null || value === '' || value === 0 || value === '0'
    ? undefined
    : String(value);

const unknown = (reason: string, resultCode?: number): Evidence => ({
  state: 'unknown',
  reason,
  ...(resultCode === undefined ? {} : { resultCode }),
});

/** The parts every status answer shares: the code, a refusal, the order it names. */
function readStatus(
  body: Readonly<Record<string, unknown>> | undefined,
  orderId: string,
): { resultCode: number; outcome: ResultOutcome; message: string } | Evidence {
  if (!body) return unknown('no usable answer to the query');
  const resultCode = Number(body.resultCode);
  if (!Number.isInteger(resultCode)) return unknown('the answer carries no result code');
  const outcome = outcomeOf(resultCode);
  if (QUERY_REFUSALS.has(outcome))
    return unknown(
      `the gateway refused the query (${resultCode}: ${String(body.message ?? '')})`,
      resultCode,
    );
  if (body.orderId !== orderId)
    return unknown(
      `the answer names ${body.orderId === undefined ? 'no order' : `order ${String(body.orderId)}`}, not ${orderId}`,
      resultCode,
    );
  return { resultCode, outcome, message: String(body.message ?? '') };
}

const isEvidence = (read: ReturnType<typeof readStatus>): read is Evidence => 'state' in read;

/**
 * api/query (the transaction status response) about a payment, a charge, a single disbursement or a
 * remittance. Decided only with the order's transaction and amount, and of its kind: a payout answer has an
 * empty payType (the spec: "empty string when the transaction is not a payment"), a successful payment a
 * non-empty one.
 */
export function orderStatusEvidence(
  body: Readonly<Record<string, unknown>> | undefined,
  expected: ExpectedOrder,
): Evidence {
  const read = readStatus(body, expected.orderId);
  if (isEvidence(read)) return read;
  const { resultCode, outcome, message } = read;
  if (isUndecided(outcome)) return { state: 'undecided', outcome, resultCode, message };
  const transId = textOf(body!.transId);
  if (!transId && !isOrdersOwnFailure(resultCode))
    return unknown(`the answer (${resultCode}) carries no transaction of ${expected.orderId}`, resultCode);
  if (body!.amount === undefined || Number(body!.amount) !== expected.amount)
    return unknown(
      `the answer's amount (${String(body!.amount)}) is not the ${expected.amount} VND payrun sent: another order uses ${expected.orderId}`,
      resultCode,
    );
  const payType = textOf(body!.payType);
  if (expected.kind === 'payout' && payType)
    return unknown(
      `the answer reports a payment (payType ${payType}), not a payout: another order uses ${expected.orderId}`,
      resultCode,
    );
  if (expected.kind === 'payment' && outcome === 'succeeded' && !payType)
    return unknown(`the answer reports a success without a payType: not a payment`, resultCode);
  return { state: 'decided', outcome, resultCode, message, ...(transId ? { transId } : {}) };
}

/**
 * A final failure only an order can have (the 1000-and-above codes: a receiver's limit, a closed
 * wallet, a declined payment): an answer naming the order with its amount and kind decides it even
 * without a transaction, since a failed order may have none. A code a request can also get (99, the
 * 1x and 2x series) still needs the transaction, so a refused query is never read as the order's
 * result; a success always does (seen in `npm run chaos`, seed 23: a payout refused 1008 whose answer
 * and notification were both lost stayed pending while the query kept answering 1008).
 */
function isOrdersOwnFailure(resultCode: number): boolean {
  const info = resultCodeInfo(resultCode);
  return info !== undefined && info.final && resultCode >= 1000 && info.outcome !== 'succeeded';
}

/**
 * api/refund/query about one refund: decided only when the answer names the refund and its refundTrans entry
 * carries the refund's amount and transaction.
 */
export function refundStatusEvidence(
  body: Readonly<Record<string, unknown>> | undefined,
  expected: { readonly orderId: string; readonly amount: number },
): Evidence {
  const read = readStatus(body, expected.orderId);
  if (isEvidence(read)) return read;
  const { resultCode, outcome, message } = read;
  const entries = Array.isArray(body!.refundTrans)
    ? (body!.refundTrans as Array<Record<string, unknown>>)
    : [];
  const entry = entries.find((candidate) => candidate.orderId === expected.orderId) ?? entries[0];
  if (!entry) return unknown(`the answer (${resultCode}) lists no refund transaction`, resultCode);
  if (Number(entry.amount) !== expected.amount)
    return unknown(
      `the refund transaction's amount (${String(entry.amount)}) is not the ${expected.amount} VND payrun asked`,
      resultCode,
    );
  if (isUndecided(outcome)) return { state: 'undecided', outcome, resultCode, message };
  const transId = textOf(entry.transId);
  if (!transId) return unknown(`the refund transaction (${resultCode}) carries no transId`, resultCode);
  return { state: 'decided', outcome, resultCode, message, transId };
}

/**
 * batch/query about a batch: the batch exists (created at the gateway) only when the answer names it with the
 * count and total payrun uploaded. 7000 is the gateway still validating it, which is existence too.
 */
export function batchExistenceEvidence(
  body: Readonly<Record<string, unknown>> | undefined,
  expected: { readonly orderId: string; readonly amount: number; readonly count: number },
): Evidence {
  const read = readStatus(body, expected.orderId);
  if (isEvidence(read)) return read;
  const { resultCode, outcome, message } = read;
  if (outcome !== 'succeeded' && outcome !== 'pending')
    return unknown(`batch/query answered ${resultCode} (${message})`, resultCode);
  if (
    Number(body!.totalUploadedAmount) !== expected.amount ||
    Number(body!.totalUploadedCount) !== expected.count
  )
    return unknown(
      `the gateway's batch ${expected.orderId} holds ${String(body!.totalUploadedCount)} items / ` +
        `${String(body!.totalUploadedAmount)} VND, not the ${expected.count} / ${expected.amount} payrun uploaded`,
      resultCode,
    );
  return outcome === 'succeeded'
    ? { state: 'decided', outcome, resultCode, message }
    : { state: 'undecided', outcome, resultCode, message };
}
