/**
 * The verdict of a chaos run, a pure function of what the workload asked for, what payrun recorded and
 * what the gateway's ledger says moved. Money is counted per business item (a payout row, a
 * subscription cycle, a saved-method payment, …), not per gateway order, so a second order for the same item
 * shows as a double payment even though the gateway saw two different orderIds.
 */
import type { LedgerEntry } from '../../sandbox/ledger';
import type { Workload } from './workload';

/** payrun's records of this run's objects, as read from its database (snake_case rows). */
export interface Records {
  runs: Row[];
  batches: Row[];
  items: Row[];
  subscriptions: Row[];
  charges: Row[];
  savedMethodPayments: Row[];
  disbursements: Row[];
  remittances: Row[];
  payments: Row[];
  refunds: Row[];
}

export type Row = Record<string, unknown>;

export interface MoneyCheck {
  /** Business items that moved money more than once (must be empty). */
  paidTwice: string[];
  /** Items asked for and nowhere to be found, or a run whose rows do not add up (must be empty). */
  lost: string[];
  /** Money moved (or not) where payrun's record says otherwise (must be empty: payrun lost track of it). */
  recordDisagreesWithLedger: string[];
  /** Final states other than the receiver's or customer's scenario predicts (shown, not fatal). */
  unexpectedOutcomes: string[];
  /** Money that moved for no business item of the workload (must be empty: nobody can account for it). */
  unexplainedMovements: string[];
  moved: { entries: number; succeeded: number; succeededAmount: number };
}

const str = (value: unknown) => (value === null || value === undefined ? '' : String(value));
const num = (value: unknown) => Number(value ?? 0);
/** Money that left or is reserved: a failed entry moved nothing. */
const moving = (entry: LedgerEntry) => entry.outcome !== 'failed';

export function checkMoney(workload: Workload, records: Records, ledger: LedgerEntry[]): MoneyCheck {
  const paidTwice: string[] = [];
  const lost: string[] = [];
  const disagree: string[] = [];
  const unexpected: string[] = [];
  /** Ledger entries by business item. */
  const byItem = new Map<string, LedgerEntry[]>();
  const explained = new Set<LedgerEntry>();
  const file = (item: string, entry: LedgerEntry) => {
    byItem.set(item, [...(byItem.get(item) ?? []), entry]);
    explained.add(entry);
  };
  const byOrder = new Map<string, LedgerEntry[]>();
  for (const entry of ledger) {
    const key = entry.itemId === undefined ? entry.orderId : `${entry.orderId}/${entry.itemId}`;
    byOrder.set(key, [...(byOrder.get(key) ?? []), entry]);
  }
  const entriesOf = (orderId: string, itemId?: string) =>
    byOrder.get(itemId === undefined ? orderId : `${orderId}/${itemId}`) ?? [];
  /** The order and any other order named after it (`<orderId>-…`): a second order for one item. */
  const ordersOf = (orderId: string) =>
    ledger.filter(
      (entry) =>
        entry.itemId === undefined && (entry.orderId === orderId || entry.orderId.startsWith(`${orderId}-`)),
    );

  // Payout rows: batch items in the ledger carry the payout id.
  const batchOrders = new Map(records.batches.map((batch) => [str(batch.order_id), str(batch.run_id)]));
  const itemsByPayout = new Map(records.items.map((item) => [str(item.payout_id), item]));
  for (const entry of ledger)
    if (entry.kind === 'batch-item' && batchOrders.has(entry.orderId)) file(`payout ${entry.itemId}`, entry);
  for (const run of workload.payouts.runs) {
    if (!run.runId) continue;
    const record = records.runs.find((row) => row.run_id === run.runId);
    if (!record) {
      lost.push(`payout run ${run.runId} (${run.file}): no record`);
      continue;
    }
    const rows = records.items.filter((item) => item.run_id === run.runId);
    const accounted = rows.filter((item) =>
      ['SUCCEEDED', 'FAILED', 'INELIGIBLE', 'PENDING'].includes(str(item.state)),
    ).length;
    if (num(record.row_count) !== run.rows.length || accounted !== run.rows.length)
      lost.push(
        `payout run ${run.runId}: uploaded ${run.rows.length}, payrun has ${num(record.row_count)} rows of which ` +
          `${accounted} are succeeded, failed, ineligible or pending`,
      );
    for (const row of run.rows) {
      const item = itemsByPayout.get(row.payoutId);
      if (!item) {
        lost.push(`payout ${row.payoutId}: no record`);
        continue;
      }
      const state = str(item.state);
      const entries = byItem.get(`payout ${row.payoutId}`) ?? [];
      const ledgerSays = ledgerOutcome(entries);
      const agrees =
        (state === 'SUCCEEDED' && ledgerSays === 'succeeded') ||
        (state === 'FAILED' && (ledgerSays === 'failed' || ledgerSays === 'none')) ||
        (state === 'INELIGIBLE' && ledgerSays === 'none') ||
        (state === 'PENDING' && ledgerSays === 'pending') ||
        (['QUEUED', 'ELIGIBLE', 'CANCELLED'].includes(state) && ledgerSays === 'none');
      if (!agrees) disagree.push(`payout ${row.payoutId}: payrun ${state}, gateway ${ledgerSays}`);
      if (state !== row.expected)
        unexpected.push(`payout ${row.payoutId}: ${state}, expected ${row.expected}`);
    }
  }

  // Subscription cycles: every order of a cycle (<id>-c1, its one retry <id>-c1-r1, and any other order
  // that claims to be for it) is one item: money moved twice for a cycle under two orderIds shows.
  const subscriptionIds = new Set(workload.subscriptions.subscriptions.map((item) => item.subscriptionId));
  for (const entry of ledger) {
    const cycle = /^(.+)-c(\d+)(-.+)?$/.exec(entry.orderId);
    if (entry.kind === 'subscription-charge' && cycle && subscriptionIds.has(cycle[1]!))
      file(`subscription ${cycle[1]} cycle ${cycle[2]}`, entry);
  }
  for (const subscription of workload.subscriptions.subscriptions) {
    const id = subscription.subscriptionId;
    const record = records.subscriptions.find((row) => row.subscription_id === id);
    if (!record) {
      if (!workload.subscriptions.failures.some((failure) => failure.id === id))
        lost.push(`subscription ${id}: no record`);
      continue;
    }
    for (const charge of records.charges.filter((row) => row.subscription_id === id)) {
      const ledgerSays = ledgerOutcome(entriesOf(str(charge.order_id)));
      const status = str(charge.status);
      const agrees =
        status === ledgerSays ||
        (status === 'failed' && ledgerSays === 'none') ||
        (status === 'skipped' && ledgerSays === 'none');
      if (!agrees)
        disagree.push(`subscription charge ${str(charge.order_id)}: payrun ${status}, gateway ${ledgerSays}`);
    }
    const expected = subscription.poor ? 'paused' : 'active';
    if (record.status !== expected)
      unexpected.push(
        `subscription ${id}: ${str(record.status)} (${str(record.status_reason)}), expected ${expected}`,
      );
  }

  // Saved-method payments: the payment id is the gateway orderId (an order named after it also counts).
  for (const payment of workload.savedMethodPayments.payments) {
    for (const entry of ordersOf(payment.paymentId)) file(`saved-method payment ${payment.paymentId}`, entry);
    const record = records.savedMethodPayments.find((row) => row.payment_id === payment.paymentId);
    if (!record) {
      if (!workload.savedMethodPayments.failures.some((failure) => failure.id === payment.paymentId))
        lost.push(`saved-method payment ${payment.paymentId}: no record`);
      continue;
    }
    compare(`saved-method payment ${payment.paymentId}`, str(record.state), entriesOf(payment.paymentId));
    if (record.state !== 'succeeded')
      unexpected.push(
        `saved-method payment ${payment.paymentId}: ${str(record.state)} (${str(record.message)})`,
      );
  }

  for (const item of workload.disbursements.disbursements) {
    const id = item.disbursementId;
    const record = records.disbursements.find((row) => row.disbursement_id === id);
    const orderId = record ? str(record.order_id) : id;
    for (const entry of ordersOf(orderId)) file(`disbursement ${id}`, entry);
    if (!record) {
      if (!workload.disbursements.failures.some((failure) => failure.id === id))
        lost.push(`disbursement ${id}: no record`);
      continue;
    }
    compare(`disbursement ${id}`, str(record.status), entriesOf(orderId));
    if (record.status !== item.expected)
      unexpected.push(
        `disbursement ${id}: ${str(record.status)} (${str(record.message)}), expected ${item.expected}`,
      );
  }

  for (const item of workload.remittances.remittances) {
    if (!item.remittanceId) continue;
    const record = records.remittances.find((row) => row.remittance_id === item.remittanceId);
    if (!record) {
      lost.push(`remittance ${item.remittanceId}: no record`);
      continue;
    }
    const buys = entriesOf(`${item.remittanceId}-buy`);
    const sends = entriesOf(str(record.order_id));
    for (const entry of buys) file(`remittance ${item.remittanceId} buy`, entry);
    for (const entry of sends) file(`remittance ${item.remittanceId}`, entry);
    const status = str(record.status);
    const bought = ledgerOutcome(buys);
    const sent = ledgerOutcome(sends);
    const agrees =
      (status === 'succeeded' && bought === 'succeeded' && sent === 'succeeded') ||
      (status === 'failed' && bought !== 'succeeded' && sent === 'none') ||
      // Rejected or expired by its approvers, or still waiting for them: nothing was bought or sent.
      (['rejected', 'expired', 'awaiting_approval'].includes(status) &&
        bought === 'none' &&
        sent === 'none') ||
      (status === 'needs_attention' && bought === 'succeeded' && sent !== 'succeeded') ||
      (['awaiting_result', 'awaiting_capture'].includes(status) && sent === 'pending');
    if (!agrees)
      disagree.push(
        `remittance ${item.remittanceId}: payrun ${status}, gateway bought ${bought}, sent ${sent}`,
      );
    if (status !== 'succeeded')
      unexpected.push(`remittance ${item.remittanceId}: ${status} (${str(record.status_reason)})`);
  }

  for (const payment of workload.payments.payments) {
    const record = records.payments.find((row) => row.payment_id === payment.paymentId);
    const orderId = record ? str(record.order_id) : payment.paymentId;
    for (const entry of ordersOf(orderId).filter((e) => e.kind === 'payment'))
      file(`payment ${payment.paymentId}`, entry);
    const refundEntries = ledger.filter((entry) => entry.kind === 'refund' && entry.refundOf === orderId);
    for (const entry of refundEntries) file(`refund of ${payment.paymentId}`, entry);
    if (!record) {
      if (!workload.payments.failures.some((failure) => failure.id === payment.paymentId))
        lost.push(`payment ${payment.paymentId}: no record`);
      continue;
    }
    compare(`payment ${payment.paymentId}`, str(record.status), entriesOf(orderId));
    const refunds = records.refunds.filter((row) => row.payment_id === payment.paymentId);
    for (const refund of refunds)
      compare(`refund ${str(refund.refund_id)}`, str(refund.status), entriesOf(str(refund.order_id)));
    const refundedAtGateway = refundEntries
      .filter((entry) => entry.outcome === 'succeeded')
      .reduce((sum, entry) => sum + entry.amount, 0);
    if (num(record.refunded_amount) !== refundedAtGateway)
      disagree.push(
        `payment ${payment.paymentId}: payrun refunded ${num(record.refunded_amount)}, gateway ${refundedAtGateway}`,
      );
    if (payment.refundRequested && refunds.length !== 1)
      (refunds.length === 0 ? lost : paidTwice).push(
        `refund of ${payment.paymentId}: asked once, payrun has ${refunds.length} refunds`,
      );
    if (refundedAtGateway > (payment.refundRequested ? payment.refund : 0))
      paidTwice.push(
        `refund of ${payment.paymentId}: ${refundedAtGateway} VND refunded for one ${payment.refund} VND refund`,
      );
  }

  for (const [item, entries] of byItem) {
    const movements = item.startsWith('refund of') ? [] : entries.filter(moving);
    if (movements.length > 1)
      paidTwice.push(
        `${item}: ${movements.length} movements (${movements.map((e) => `${e.orderId}${e.itemId ? `/${e.itemId}` : ''} ${e.outcome}`).join(', ')})`,
      );
  }
  for (const [key, entries] of byOrder)
    if (entries.length > 1) paidTwice.push(`gateway order ${key}: ${entries.length} ledger entries`);

  const succeeded = ledger.filter((entry) => entry.outcome === 'succeeded');
  return {
    paidTwice: [...new Set(paidTwice)],
    lost,
    recordDisagreesWithLedger: disagree,
    unexpectedOutcomes: unexpected,
    unexplainedMovements: ledger
      .filter((entry) => !explained.has(entry) && moving(entry))
      .map(
        (entry) => `${entry.kind} ${entry.orderId}${entry.itemId ? `/${entry.itemId}` : ''} ${entry.outcome}`,
      ),
    moved: {
      entries: ledger.length,
      succeeded: succeeded.length,
      succeededAmount: succeeded.reduce(
        (sum, entry) => sum + (entry.currency === 'VND' ? entry.amount : 0),
        0,
      ),
    },
  };

  /** A money record's status against its ledger entries. */
  function compare(what: string, status: string, entries: LedgerEntry[]) {
    const ledgerSays = ledgerOutcome(entries);
    const agrees =
      (status === 'succeeded' && ledgerSays === 'succeeded') ||
      (['failed', 'cancelled', 'expired'].includes(status) &&
        (ledgerSays === 'failed' || ledgerSays === 'none')) ||
      // Refused by its approvers, or still waiting for them: it never reached the gateway.
      (['rejected', 'awaiting_approval'].includes(status) && ledgerSays === 'none') ||
      (['pending', 'needs_attention', 'awaiting_result'].includes(status) && ledgerSays === 'pending') ||
      ([
        'starting',
        'created',
        'awaiting_customer',
        'awaiting_otp',
        'checking_wallet',
        'checking_balance',
        'paying',
      ].includes(status) &&
        ledgerSays === 'none');
    if (!agrees) disagree.push(`${what}: payrun ${status}, gateway ${ledgerSays}`);
  }
}

/** What the gateway says about one order (or item): none, or the outcome of its entry. */
function ledgerOutcome(entries: LedgerEntry[]): 'none' | LedgerEntry['outcome'] {
  if (entries.length === 0) return 'none';
  if (entries.some((entry) => entry.outcome === 'succeeded')) return 'succeeded';
  if (entries.some((entry) => entry.outcome === 'pending')) return 'pending';
  return 'failed';
}
