/**
 * The period report: every movement of every kind made in a period of GMT+7 days, its totals, and what
 * the gateway itself said about the same money where payrun holds the gateway's word.
 *
 * The report only reads. It never asks the gateway anything: a report a finance lead reloads ten times
 * must not become ten rounds of gateway calls, and a read path that could send requests would be one
 * more place where a mistake could send an order. What it compares against is what the gateway already
 * answered the workflows (batch/query totals), which the records keep (gateway/README.md assumption on
 * reports says what is and is not checkable).
 */
import {
  DIRECTION_OF,
  MOVEMENT_KINDS,
  gmt7Day,
  daysBetween,
  totalsOf,
  type Movement,
  type MovementKind,
  type MovementOutcome,
  type Period,
} from '../../contracts/reports';
import { requestIdFor } from '../../gateway/ids';
import {
  batchesWithGatewayTotals,
  movementsBetween,
  type BatchTotalsRow,
  type MovementRow,
} from '../../db/reports/movements';
import type { Db } from '../../db/shared/knex';
import { resultCodeInfo } from '../../gateway';
import type { Principal } from '../auth/roles';
import { ApiError } from '../http/errors';
import { maskId, maskName, maskNumber, seesInFull, seesReceiversInFull } from '../http/masking';

/** A report holds at most this many movements; a longer period is refused, never cut short silently. */
export const REPORT_MAX_MOVEMENTS = 100_000;

/** How each kind's own status answers "did money move": anything not listed is still on its way. */
const SUCCEEDED = new Set(['SUCCEEDED', 'succeeded']);
const FAILED = new Set(['FAILED', 'INELIGIBLE', 'failed', 'cancelled', 'authorization_expired', 'expired']);

export function outcomeOf(status: string): MovementOutcome {
  if (SUCCEEDED.has(status)) return 'succeeded';
  if (FAILED.has(status)) return 'failed';
  return 'pending';
}

/** The customer duties that see a customer id in full (as their own lists show it). */
const CUSTOMER_DUTY: Partial<Record<MovementKind, 'payments' | 'billing'>> = {
  saved_method_payment: 'payments',
  subscription_charge: 'billing',
};

function counterpartyOf(row: MovementRow, reader: Principal): string | null {
  if (row.kind === 'payout_item') {
    return seesReceiversInFull(reader)
      ? `${row.wallet_id ?? ''} ${row.wallet_name ?? ''}`.trim()
      : `${maskNumber(row.wallet_id)} ${maskName(row.wallet_name)}`.trim();
  }
  if (row.receiver_label !== null) return row.receiver_label;
  const duty = CUSTOMER_DUTY[row.kind];
  if (row.customer_id !== null && duty)
    return seesInFull(reader, [duty]) ? row.customer_id : maskId(row.customer_id);
  return null;
}

/**
 * The requestId that moved the money: recorded for charges; derived the one way the activity derives it
 * for single disbursements (the same on every retry). Batch items and payments were sent under requestIds
 * payrun does not keep per row (the batch's notifications carry them: see the evidence pack).
 */
function requestIdOf(row: MovementRow): string | null {
  if (row.request_id !== null) return row.request_id;
  if (row.kind === 'disbursement') return requestIdFor(row.order_id, 'pay');
  return null;
}

export function movementOf(row: MovementRow, reader: Principal): Movement {
  const outcome = outcomeOf(row.status);
  const code = row.result_code === null ? null : Number(row.result_code);
  return {
    kind: row.kind,
    direction: DIRECTION_OF[row.kind],
    id: row.id,
    at: new Date(row.at).toISOString(),
    amount: Number(row.amount),
    currency: 'VND',
    counterparty: counterpartyOf(row, reader),
    status: row.status,
    outcome,
    orderId: row.order_id,
    itemId: row.item_id,
    requestId: requestIdOf(row),
    transId: row.trans_id === null ? null : String(row.trans_id),
    resultCode: code,
    message: row.message,
    reason: outcome === 'succeeded' || code === null ? null : (resultCodeInfo(code)?.meaning ?? null),
  };
}

export async function movementsIn(db: Db, period: Period, reader: Principal): Promise<Movement[]> {
  const rows = await movementsBetween(db, period.startsAt, period.endsAt, REPORT_MAX_MOVEMENTS);
  if (rows.length > REPORT_MAX_MOVEMENTS)
    throw new ApiError(
      'invalid_request',
      `The period holds more than ${REPORT_MAX_MOVEMENTS} movements; choose a shorter one.`,
      {
        status: 422,
        problems: [
          {
            field: 'query.period',
            rule: 'report_too_large',
            message: `At most ${REPORT_MAX_MOVEMENTS} movements.`,
          },
        ],
      },
    );
  return rows.map((row) => movementOf(row, reader));
}

interface SideTotals {
  succeeded: { count: number; amount: number };
  uploaded: { count: number; amount: number };
}

export interface BatchCheck {
  batchId: string;
  runId: string;
  orderId: string;
  payrun: SideTotals;
  /** What batch/query last answered; null when payrun has not heard it (the batch is not paid yet). */
  gateway: SideTotals | null;
  agrees: boolean | null;
}

/**
 * Each payout batch with items in the period, its succeeded items by payrun's records against the
 * gateway's totalSucceed* and totalUploaded*. A batch's items all share the run's decision time, so a
 * batch is wholly in one period and its totals compare whole.
 */
function batchChecks(movements: readonly Movement[], batches: readonly BatchTotalsRow[]): BatchCheck[] {
  return batches.map((batch) => {
    const items = movements.filter((m) => m.kind === 'payout_item' && m.orderId === batch.order_id);
    const succeeded = items.filter((m) => m.outcome === 'succeeded');
    const payrun: SideTotals = {
      succeeded: { count: succeeded.length, amount: succeeded.reduce((sum, m) => sum + m.amount, 0) },
      uploaded: { count: items.length, amount: items.reduce((sum, m) => sum + m.amount, 0) },
    };
    const reported = batch.gateway_totals;
    const gateway: SideTotals | null = reported
      ? {
          succeeded: {
            count: Number(reported.totalSucceedCount),
            amount: Number(reported.totalSucceedAmount),
          },
          uploaded: {
            count: Number(reported.totalUploadedCount),
            amount: Number(reported.totalUploadedAmount),
          },
        }
      : null;
    const agrees = gateway
      ? JSON.stringify(gateway.succeeded) === JSON.stringify(payrun.succeeded) &&
        JSON.stringify(gateway.uploaded) === JSON.stringify(payrun.uploaded)
      : null;
    return { batchId: batch.batch_id, runId: batch.run_id, orderId: batch.order_id, payrun, gateway, agrees };
  });
}

/** What the report can and cannot hold against the gateway (gateway/README.md, assumption on reports). */
const NOT_CHECKED = [
  'Single orders (disbursements, payments, refunds, charges, remittances): their outcome is the gateway’s own word as the workflow received it (notification or api/query); the report does not ask again.',
  'The merchant balance at the end of the period: the spec’s balance operation answers only the balance now, so a past period cannot be checked against it.',
];

export async function periodReport(db: Db, period: Period, reader: Principal) {
  const movements = await movementsIn(db, period, reader);
  const batchOrders = [...new Set(movements.filter((m) => m.kind === 'payout_item').map((m) => m.orderId))];
  const checks = batchChecks(movements, await batchesWithGatewayTotals(db, batchOrders));
  return {
    period: { kind: period.kind, from: period.from, to: period.to, timeZone: 'GMT+7' },
    generatedAt: new Date().toISOString(),
    totals: totalsOf(movements),
    reconciliation: {
      batches: checks,
      balanced: checks.every((check) => check.agrees !== false),
      unconfirmedBatches: checks.filter((check) => check.agrees === null).length,
      gatewayCalls: 0,
      notChecked: NOT_CHECKED,
    },
    movements,
  };
}

export interface DayFigures {
  date: string;
  /** Per kind: movements made that day, and how many of them succeeded or failed so far. */
  kinds: Record<
    MovementKind,
    { count: number; amount: number; succeeded: number; succeededAmount: number; failed: number }
  >;
  succeeded: number;
  failed: number;
  /** succeeded / (succeeded + failed); null on a day with no finished movement. */
  successRate: number | null;
}

export interface FailureReason {
  code: number | null;
  /** The class payrun's result-code table gives the code (the console names it in the page's language). */
  outcome: string;
  meaning: string | null;
  count: number;
  amount: number;
}

const emptyKinds = () =>
  Object.fromEntries(
    MOVEMENT_KINDS.map((kind) => [
      kind,
      { count: 0, amount: 0, succeeded: 0, succeededAmount: 0, failed: 0 },
    ]),
  ) as DayFigures['kinds'];

/** Per GMT+7 day and kind, what the charts draw; and the failures grouped by result code. */
export function dailyFigures(period: Period, movements: readonly Movement[]) {
  const days = new Map<string, DayFigures>(
    daysBetween(period.from, period.to).map((date) => [
      date,
      { date, kinds: emptyKinds(), succeeded: 0, failed: 0, successRate: null },
    ]),
  );
  const reasons = new Map<string, FailureReason>();
  for (const movement of movements) {
    const day = days.get(gmt7Day(new Date(movement.at)));
    if (!day) continue;
    const kind = day.kinds[movement.kind];
    kind.count += 1;
    kind.amount += movement.amount;
    if (movement.outcome === 'succeeded') {
      kind.succeeded += 1;
      kind.succeededAmount += movement.amount;
      day.succeeded += 1;
    }
    if (movement.outcome === 'failed') {
      kind.failed += 1;
      day.failed += 1;
      const code = movement.resultCode;
      // A row the gateway refused at batch creation never reached its receiver: that is its reason,
      // whatever code said why.
      const outcome =
        movement.status === 'INELIGIBLE'
          ? 'ineligible'
          : code === null
            ? 'unknown'
            : (resultCodeInfo(code)?.outcome ?? 'failed');
      const key = `${outcome}:${code}`;
      const reason = reasons.get(key) ?? {
        code,
        outcome,
        meaning: code === null ? null : (resultCodeInfo(code)?.meaning ?? null),
        count: 0,
        amount: 0,
      };
      reason.count += 1;
      reason.amount += movement.amount;
      reasons.set(key, reason);
    }
  }
  for (const day of days.values())
    day.successRate = day.succeeded + day.failed ? day.succeeded / (day.succeeded + day.failed) : null;
  return {
    period: { from: period.from, to: period.to, timeZone: 'GMT+7' },
    days: [...days.values()],
    failureReasons: [...reasons.values()].sort((a, b) => b.count - a.count),
  };
}
