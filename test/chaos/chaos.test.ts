/**
 * `npm run chaos` in small: the production shape with 3 workers, 200 payout rows, 20 subscriptions,
 * 10 saved-method payments (and a few disbursements, remittances and refunded payments), while a worker, the
 * API, the Temporal server and PostgreSQL are each killed once and the gateway misbehaves on a share of
 * calls and notifications. It checks what the harness prints: no money paid twice, none lost, no record that
 * disagrees with the gateway's ledger; every run and subscription ended where it should, and no workflow left
 * open without a documented reason; every forged notification refused; every event recorded meanwhile
 * delivered to a merchant's webhook endpoint.
 */
import { describe, expect, it } from 'vitest';
import { formatReport, type ChaosReport } from '../../scripts/chaos/report';
import { runChaos } from '../../scripts/chaos/run';
import { SMALL } from '../../scripts/chaos/sizes';

/** A seed whose plan disturbs every kind of notification at least once (checked below). */
const SEED = 2;

describe('chaos, small: money survives hard faults on the production shape', () => {
  let report: ChaosReport;

  it('runs the workload through one kill of each kind', async () => {
    const lines: string[] = [];
    report = await runChaos({ seed: SEED, size: SMALL, log: (line) => lines.push(line) });
    // The table is the failure message: it names what went wrong.
    const table = formatReport(report);
    expect(report.faults.recovery, table).toMatchObject({
      worker: { count: 1, notRecovered: 0 },
      api: { count: 1, notRecovered: 0 },
      temporal: { count: 1, notRecovered: 0 },
      postgres: { count: 1, notRecovered: 0 },
    });
    expect(report.money.paidTwice, table).toEqual([]);
    expect(report.money.lost, table).toEqual([]);
    expect(report.money.recordDisagreesWithLedger, table).toEqual([]);
    expect(report.money.unexplainedMovements, table).toEqual([]);
    expect(report.verdict.moneySafe, table).toBe(true);
  }, 420_000);

  it('ends every process where it should, and leaves open only workflows with a documented reason', () => {
    const { runs, subscriptions, workflows } = report.processes;
    const table = formatReport(report);
    expect(runs.reconciled + runs.needsAttention.length, table).toBeGreaterThan(0);
    expect(runs.other, table).toEqual([]);
    expect(subscriptions.chargedOnce, table).toBeGreaterThan(0);
    expect(subscriptions.other, table).toEqual([]);
    expect(workflows.undocumented, table).toEqual([]);
  });

  it('refuses every forged notification and stores every duplicated one once', () => {
    const { forged, duplicated, forgedStored } = report.notifications;
    const table = formatReport(report);
    expect(forged.sent, table).toBeGreaterThan(0);
    expect(forged.accepted).toEqual([]);
    expect(forged.refused + forged.unanswered).toBe(forged.sent);
    expect(forgedStored).toEqual([]);
    expect(duplicated.notifications, table).toBeGreaterThan(0);
    expect(duplicated.notStoredOnce).toEqual([]);
  });

  it('delivers every event it recorded to a webhook endpoint, signed, through the same faults', () => {
    const { webhooks } = report;
    const table = formatReport(report);
    expect(webhooks.recorded, table).toBeGreaterThan(0);
    expect(webhooks.lost, table).toEqual([]);
    expect(webhooks.delivered, table).toBe(webhooks.recorded);
    expect(webhooks.badSignatures, table).toBe(0);
  });

  it('the gateway misbehaved in every way it was asked to', () => {
    const applied = Object.entries(report.faults.applied);
    for (const kind of ['HTTP 503', 'hang', 'response lost', 'resultCode 10'])
      expect(applied.find(([rule]) => rule.includes(kind))?.[1].applied, kind).toBeGreaterThan(0);
  });
});
