/**
 * The figures of a chaos run: one JSON document (`--json`, so a later run can be compared) and the
 * table printed from it. The verdict is only about money: paid twice, or lost.
 */
import type { ListedFaultRule } from '../../sandbox/faults';
import type { Evidence } from './evidence';
import type { InjectedFault } from './faults';
import type { MoneyCheck } from './ledger-check';
import type { NotificationCheck } from './notification-check';
import type { ProcessCheck } from './process-check';
import type { ProcessFaultKind } from './schedule';
import type { WebhookCheck } from './webhook-check';
import type { DriveFailure, Workload } from './workload';

export interface RecoveryFigures {
  count: number;
  medianSeconds?: number;
  maxSeconds?: number;
  notRecovered: number;
}

export interface ChaosReport {
  seed: number;
  size: string;
  workers: number;
  startedAt: string;
  wallSeconds: number;
  /** What was driven, and the final states payrun recorded (status → count). */
  workload: Record<string, { asked: number; outcomes: Record<string, number> }>;
  money: MoneyCheck;
  processes: ProcessCheck;
  notifications: NotificationCheck;
  /** Events pushed to a merchant's webhook endpoint through the faults: none may be lost. */
  webhooks: WebhookCheck;
  faults: {
    /** Process faults the seeded plan held, by kind (a worker kill comes only once the last is back). */
    planned: Partial<Record<ProcessFaultKind, number>>;
    recovery: Partial<Record<ProcessFaultKind, RecoveryFigures>>;
    injected: InjectedFault[];
    /** Gateway calls and notifications each rule changed, of those it was weighed for. */
    applied: Record<string, { applied: number; of: number }>;
  };
  client: { retries: Record<string, number>; unanswered: string[]; driveFailures: DriveFailure[] };
  verdict: { moneySafe: boolean; reasons: string[] };
}

export function buildReport(input: {
  seed: number;
  size: string;
  workers: number;
  startedAt: number;
  workload: Workload;
  evidence: Evidence;
  money: MoneyCheck;
  processes: ProcessCheck;
  notifications: NotificationCheck;
  webhooks: WebhookCheck;
  planned: ProcessFaultKind[];
  injected: InjectedFault[];
  rules: ListedFaultRule[];
  retries: Map<string, number>;
  unanswered: string[];
  driveFailures: DriveFailure[];
}): ChaosReport {
  const { workload, evidence, money } = input;
  const histogram = (rows: Array<Record<string, unknown>>, field: string) =>
    rows.reduce<Record<string, number>>((counts, row) => {
      const key = String(row[field]);
      counts[key] = (counts[key] ?? 0) + 1;
      return counts;
    }, {});
  const { records } = evidence;
  const reasons = [
    ...(money.paidTwice.length ? [`${money.paidTwice.length} items paid twice`] : []),
    ...(money.lost.length ? [`${money.lost.length} items lost`] : []),
    ...(money.recordDisagreesWithLedger.length
      ? [`${money.recordDisagreesWithLedger.length} records disagree with the gateway's ledger`]
      : []),
    ...(money.unexplainedMovements.length
      ? [`${money.unexplainedMovements.length} movements no item accounts for`]
      : []),
  ];
  return {
    seed: input.seed,
    size: input.size,
    workers: input.workers,
    startedAt: new Date(input.startedAt).toISOString(),
    wallSeconds: Math.round((Date.now() - input.startedAt) / 100) / 10,
    workload: {
      'payout rows': {
        asked: workload.payouts.runs.reduce((sum, run) => sum + run.rows.length, 0),
        outcomes: histogram(records.items, 'state'),
      },
      'payout runs': { asked: workload.payouts.runs.length, outcomes: histogram(records.runs, 'status') },
      subscriptions: {
        asked: workload.subscriptions.subscriptions.length,
        outcomes: histogram(records.subscriptions, 'status'),
      },
      'saved-method payments': {
        asked: workload.savedMethodPayments.payments.length,
        outcomes: histogram(records.savedMethodPayments, 'state'),
      },
      disbursements: {
        asked: workload.disbursements.disbursements.length,
        outcomes: histogram(records.disbursements, 'status'),
      },
      remittances: {
        asked: workload.remittances.remittances.length,
        outcomes: histogram(records.remittances, 'status'),
      },
      payments: { asked: workload.payments.payments.length, outcomes: histogram(records.payments, 'status') },
      refunds: {
        asked: workload.payments.payments.filter((payment) => payment.refundRequested).length,
        outcomes: histogram(records.refunds, 'status'),
      },
    },
    money,
    processes: input.processes,
    notifications: input.notifications,
    webhooks: input.webhooks,
    faults: {
      planned: input.planned.reduce<Partial<Record<ProcessFaultKind, number>>>(
        (counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }),
        {},
      ),
      recovery: recoveryFigures(input.injected),
      injected: input.injected,
      applied: Object.fromEntries(
        input.rules.map((rule) => [describeRule(rule), { applied: rule.applied, of: rule.matched }]),
      ),
    },
    client: {
      retries: Object.fromEntries(input.retries),
      unanswered: input.unanswered,
      driveFailures: input.driveFailures,
    },
    verdict: { moneySafe: reasons.length === 0, reasons },
  };
}

function recoveryFigures(injected: InjectedFault[]): ChaosReport['faults']['recovery'] {
  const figures: ChaosReport['faults']['recovery'] = {};
  for (const kind of ['worker', 'api', 'temporal', 'postgres'] as const) {
    const faults = injected.filter((fault) => fault.kind === kind);
    if (faults.length === 0) continue;
    const seconds = faults
      .flatMap((fault) => (fault.recoveredAfterMs === undefined ? [] : [fault.recoveredAfterMs / 1000]))
      .sort((a, b) => a - b);
    figures[kind] = {
      count: faults.length,
      ...(seconds.length && {
        medianSeconds: round(seconds[Math.floor((seconds.length - 1) / 2)]!),
        maxSeconds: round(seconds.at(-1)!),
      }),
      notRecovered: faults.length - seconds.length,
    };
  }
  return figures;
}

const round = (value: number) => Math.round(value * 10) / 10;

function describeRule(rule: ListedFaultRule): string {
  const scope = rule.operation ? ` (${rule.operation})` : '';
  if (rule.httpStatus) return `gateway: HTTP ${rule.httpStatus}${scope}`;
  if (rule.hang) return `gateway: hang past the client's timeout${scope}`;
  if (rule.dropResponse) return `gateway: response lost after applying${scope}`;
  if (rule.resultCode) return `gateway: resultCode ${rule.resultCode}${scope}`;
  const ipn = rule.ipn ?? {};
  if (ipn.copies) return `notification: ${ipn.copies} copies at once${scope}`;
  if (ipn.reorder) return `notification: reordered${scope}`;
  if (ipn.delayMs) return `notification: delayed ${ipn.delayMs / 1000}s${scope}`;
  if (ipn.drop) return `notification: lost${scope}`;
  if (ipn.forge) return `notification: forged (${ipn.forge})${scope}`;
  return JSON.stringify(rule);
}

/** The table printed at the end of `npm run chaos`. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  const add = (line = '') => lines.push(line);
  const mustBeZero = (label: string, list: string[]) => {
    add(`  ${label.padEnd(48)} ${String(list.length).padStart(6)}   (must be 0)`);
    for (const example of list.slice(0, 10)) add(`      ${example}`);
    if (list.length > 10) add(`      … and ${list.length - 10} more (--json lists them all)`);
  };
  add(
    `payrun chaos — seed ${report.seed}, size ${report.size}, ${report.workers} workers, wall time ${formatSeconds(report.wallSeconds)}`,
  );
  add();
  add('Workload                asked   outcomes recorded by payrun');
  for (const [name, { asked, outcomes }] of Object.entries(report.workload))
    add(
      `  ${name.padEnd(20)} ${String(asked).padStart(6)}   ${
        Object.entries(outcomes)
          .map(([state, n]) => `${state} ${n}`)
          .join(', ') || '—'
      }`,
    );
  add();
  add('Money (sandbox ledger against payrun records)');
  mustBeZero('orders paid twice', report.money.paidTwice);
  mustBeZero('items lost (uploaded ≠ succeeded+failed+ineligible+pending)', report.money.lost);
  mustBeZero('records that disagree with the ledger', report.money.recordDisagreesWithLedger);
  add(
    `  ${'ledger movements (succeeded)'.padEnd(48)} ${String(report.money.moved.entries).padStart(6)}   (${report.money.moved.succeeded}, ${report.money.moved.succeededAmount.toLocaleString('en-US')} VND)`,
  );
  mustBeZero('money moved for no item of the workload', report.money.unexplainedMovements);
  add(
    `  ${'outcomes other than the scenario predicts'.padEnd(48)} ${String(report.money.unexpectedOutcomes.length).padStart(6)}`,
  );
  for (const example of report.money.unexpectedOutcomes.slice(0, 10)) add(`      ${example}`);
  add();
  const { runs, subscriptions, workflows } = report.processes;
  add('Processes');
  add(
    `  payout runs: ${runs.reconciled} reconciled, ${runs.needsAttention.length} needs_attention with a reason, ${runs.other.length} other`,
  );
  for (const line of [...runs.needsAttention, ...runs.other]) add(`      ${line}`);
  add(
    `  subscriptions: ${subscriptions.chargedOnce} charged once for cycle 1, ${subscriptions.pausedWithReason} paused with the reason, ${subscriptions.other.length} other`,
  );
  for (const line of subscriptions.other.slice(0, 10)) add(`      ${line}`);
  add(
    `  workflows still open: ${workflows.open}; waiting for a documented reason: ${Object.values(workflows.documented).reduce((a, b) => a + b, 0)}, without one: ${workflows.undocumented.length}`,
  );
  for (const [reason, count] of Object.entries(workflows.documented)) add(`      ${count} × ${reason}`);
  for (const line of workflows.undocumented.slice(0, 10)) add(`      not closed: ${line}`);
  add();
  const { forged, duplicated } = report.notifications;
  add('Notifications');
  add(
    `  forged refused / sent                            ${forged.refused} / ${forged.sent}   (must be all; accepted: ${forged.accepted.length}, unanswered: ${forged.unanswered})`,
  );
  add(
    `  duplicated: stored and signalled once            ${duplicated.storedOnce} / ${duplicated.notifications}   (${duplicated.deliveries} deliveries)`,
  );
  for (const line of duplicated.notStoredOnce.slice(0, 10)) add(`      ${line}`);
  add(
    `  lost ${report.notifications.dropped}, reordered ${report.notifications.reordered}, redelivered after a failure ${report.notifications.redelivered}, given up by the gateway ${report.notifications.neverDelivered}`,
  );
  add();
  const { webhooks } = report;
  add('Webhooks (a merchant endpoint subscribed to every event)');
  add(
    `  events delivered / recorded                      ${webhooks.delivered} / ${webhooks.recorded}   (lost: ${webhooks.lost.length}, must be 0)`,
  );
  for (const id of webhooks.lost.slice(0, 10)) add(`      not delivered: ${id}`);
  add(
    `  extra copies ${webhooks.extraCopies} (at least once), refused on purpose and retried ${webhooks.refusedOnPurpose}, bad signatures ${webhooks.badSignatures}, drained ${webhooks.drainSeconds === undefined ? '—' : `${webhooks.drainSeconds}s`} after settling`,
  );
  add();
  add('Faults injected');
  add(`  ${''.padEnd(56)} applied   of`);
  for (const [rule, { applied, of }] of Object.entries(report.faults.applied))
    add(`  ${rule.padEnd(56)} ${String(applied).padStart(5)} ${String(of).padStart(6)}`);
  add('  recovery (kill → served end to end again)   planned  done   median     max');
  for (const [kind, figures] of Object.entries(report.faults.recovery))
    add(
      `    ${kind.padEnd(40)} ${String(report.faults.planned[kind as ProcessFaultKind] ?? 0).padStart(5)} ${String(figures.count).padStart(5)}   ${figures.medianSeconds === undefined ? '—' : `${figures.medianSeconds}s`.padStart(6)}  ${figures.maxSeconds === undefined ? '—' : `${figures.maxSeconds}s`.padStart(6)}${figures.notRecovered ? `   (${figures.notRecovered} not recovered)` : ''}`,
    );
  add();
  const retried = Object.entries(report.client.retries);
  add(
    `Client: ${retried.reduce((sum, [, n]) => sum + n, 0)} API calls retried (${retried.map(([why, n]) => `${why} ${n}`).join(', ') || 'none'}); ${report.client.unanswered.length} never answered; ${report.client.driveFailures.length} items the API refused`,
  );
  for (const failure of report.client.driveFailures.slice(0, 10))
    add(`      ${failure.id} ${failure.step}: ${failure.detail}`);
  add();
  add(
    report.verdict.moneySafe
      ? 'VERDICT: no money paid twice, none lost.'
      : `VERDICT: MONEY AT RISK — ${report.verdict.reasons.join('; ')}`,
  );
  return lines.join('\n');
}

function formatSeconds(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes ? `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s` : `${seconds}s`;
}
