/**
 * gateway/evidence.ts against every result code of the table (and codes it does not know): a query answer
 * decides an order's outcome only when the query was taken and the answer names the order with its
 * transaction, its amount and its kind. The end-to-end fault matrix exercises a few refusals per query;
 * this walks all of them through the readers themselves.
 */
import { describe, expect, it } from 'vitest';
import {
  batchExistenceEvidence,
  isUndecided,
  orderStatusEvidence,
  outcomeOf,
  refundStatusEvidence,
  RESULT_CODES,
  type ExpectedOrder,
} from '../../gateway';

const CODES = [...RESULT_CODES.map((info) => info.code), 12345, -1];
/** Codes that refuse a query itself: never a state of the order asked about. */
const REFUSALS = new Set([
  'duplicate_request',
  'duplicate_order',
  'not_found',
  'invalid_request',
  'retry_later',
]);

/** Final failures of the 1000-and-above series: an order's own, never a refused request's. */
const ORDERS_OWN_FAILURES = new Set(
  RESULT_CODES.filter((info) => info.final && info.code >= 1000 && info.outcome !== 'succeeded').map(
    (info) => info.code,
  ),
);

const payout: ExpectedOrder = { orderId: 'd-1', amount: 250_000, kind: 'payout' };
const payment: ExpectedOrder = { orderId: 'p-1', amount: 150_050, kind: 'payment' };
const full = (expected: ExpectedOrder, resultCode: number) => ({
  orderId: expected.orderId,
  resultCode,
  message: 'm',
  amount: expected.amount,
  transId: 4_100_000_001,
  payType: expected.kind === 'payment' && resultCode === 0 ? 'qr' : '',
});

describe('orderStatusEvidence: api/query about an order', () => {
  it.each(CODES)('code %i: only the whole evidence decides, and a refusal never does', (code) => {
    for (const expected of [payout, payment]) {
      const answer = full(expected, code);
      const verdict = orderStatusEvidence(answer, expected);
      const outcome = outcomeOf(code);
      if (REFUSALS.has(outcome)) expect(verdict.state).toBe('unknown');
      else expect(verdict.state).toBe(isUndecided(outcome) ? 'undecided' : 'decided');
      // Take away any one part of the evidence: never decided.
      const partial = [
        { ...answer, orderId: 'someone-else' },
        { ...answer, orderId: undefined },
        // A final failure only an order can have decides without its transaction (below); others need it.
        ...(ORDERS_OWN_FAILURES.has(code)
          ? []
          : [
              { ...answer, transId: undefined },
              { ...answer, transId: 0 },
            ]),
        { ...answer, amount: expected.amount + 1 },
        { ...answer, amount: undefined },
        // The kind: a payout's answer has an empty payType; a payment's success a non-empty one (a failed
        // payment has none either, so it tells no kind).
        ...(expected.kind === 'payout' || outcome === 'succeeded'
          ? [{ ...answer, payType: expected.kind === 'payout' ? 'webApp' : '' }]
          : []),
      ];
      for (const body of partial) {
        const seen = orderStatusEvidence(body, expected);
        // An undecided answer still needs to name the order; the rest may be missing while it waits.
        if (!isUndecided(outcome) || body.orderId !== expected.orderId)
          expect(seen.state).not.toBe('decided');
      }
    }
  });

  it('a final failure only an order can have decides without a transaction; a success or a 99 never does', () => {
    const withoutTransaction = (expected: ExpectedOrder, code: number) =>
      orderStatusEvidence({ ...full(expected, code), transId: undefined }, expected);
    for (const expected of [payout, payment]) {
      expect(withoutTransaction(expected, 1008)).toMatchObject({ state: 'decided', outcome: 'failed' });
      expect(withoutTransaction(expected, 1006)).toMatchObject({ state: 'decided', outcome: 'declined' });
      expect(withoutTransaction(expected, 0).state).toBe('unknown');
      expect(withoutTransaction(expected, 99).state).toBe('unknown');
      expect(withoutTransaction(expected, 12345).state).toBe('unknown');
      // Still about this order: its amount and kind.
      expect(
        orderStatusEvidence({ ...full(expected, 1008), transId: undefined, amount: 1 }, expected).state,
      ).toBe('unknown');
    }
  });

  it('no answer, or one without a result code, tells nothing', () => {
    expect(orderStatusEvidence(undefined, payout).state).toBe('unknown');
    expect(orderStatusEvidence({ orderId: 'd-1', message: 'x' }, payout).state).toBe('unknown');
  });

  it('a payment of the same orderId is no evidence about a payout, and the reverse', () => {
    const paymentAnswer = full(payment, 0);
    expect(orderStatusEvidence({ ...paymentAnswer, orderId: 'd-1', amount: 250_000 }, payout)).toMatchObject({
      state: 'unknown',
    });
    expect(
      orderStatusEvidence({ ...full(payout, 0), orderId: 'p-1', amount: 150_050 }, payment),
    ).toMatchObject({
      state: 'unknown',
    });
  });
});

describe('refundStatusEvidence: api/refund/query about a refund', () => {
  const expected = { orderId: 'p-1-r1', amount: 40_000 };
  const answer = (resultCode: number, entry: Record<string, unknown> = {}) => ({
    orderId: expected.orderId,
    resultCode,
    message: 'm',
    refundTrans: [{ orderId: expected.orderId, amount: 40_000, resultCode, transId: 77, ...entry }],
  });

  it.each(CODES)('code %i: decided only with the refund transaction of this refund', (code) => {
    const outcome = outcomeOf(code);
    const verdict = refundStatusEvidence(answer(code), expected);
    if (REFUSALS.has(outcome)) expect(verdict.state).toBe('unknown');
    else expect(verdict.state).toBe(isUndecided(outcome) ? 'undecided' : 'decided');
    for (const body of [
      answer(code, { amount: 39_000 }),
      answer(code, { transId: undefined }),
      { ...answer(code), refundTrans: [] },
      { ...answer(code), orderId: 'another' },
    ])
      if (!isUndecided(outcome) || body.orderId !== expected.orderId)
        expect(refundStatusEvidence(body, expected).state).not.toBe('decided');
  });
});

describe('batchExistenceEvidence: batch/query about a batch', () => {
  const expected = { orderId: 'run-1-b001', amount: 60_000, count: 3 };
  const answer = (resultCode: number) => ({
    orderId: expected.orderId,
    resultCode,
    message: 'm',
    totalUploadedAmount: 60_000,
    totalUploadedCount: 3,
  });

  it.each(CODES)('code %i: the batch exists only for 0 or 7000 with its count and total', (code) => {
    const verdict = batchExistenceEvidence(answer(code), expected);
    const outcome = outcomeOf(code);
    if (outcome === 'succeeded') expect(verdict.state).toBe('decided');
    else if (outcome === 'pending') expect(verdict.state).toBe('undecided');
    else expect(verdict.state).toBe('unknown');
    expect(batchExistenceEvidence({ ...answer(code), totalUploadedCount: 2 }, expected).state).toBe(
      'unknown',
    );
    expect(batchExistenceEvidence({ ...answer(code), orderId: 'run-2-b001' }, expected).state).toBe(
      'unknown',
    );
  });
});
