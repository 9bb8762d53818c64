/**
 * The chaos harness's own judgement, on made-up evidence: a plan is a function of its seed, and the
 * money check names a double payment, a lost row and a record that disagrees with the ledger.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../sandbox/ledger';
import type { Evidence } from '../../scripts/chaos/evidence';
import { checkMoney, type Records } from '../../scripts/chaos/ledger-check';
import { checkProcesses } from '../../scripts/chaos/process-check';
import { faultPlan } from '../../scripts/chaos/schedule';
import { FULL, SMALL } from '../../scripts/chaos/sizes';
import type { Workload } from '../../scripts/chaos/workload';

describe('fault plan', () => {
  it('is the same for the same seed, and another for another seed', () => {
    const plan = (seed: number) => faultPlan({ seed, size: FULL, payoutIpnTimeoutSeconds: 10 });
    expect(plan(7)).toEqual(plan(7));
    expect(plan(8).processFaults).not.toEqual(plan(7).processFaults);
  });

  it('full: a worker killed every few seconds, the API twice, Temporal and PostgreSQL once', () => {
    const { processFaults } = faultPlan({ seed: 3, size: FULL, payoutIpnTimeoutSeconds: 10 });
    const kinds = processFaults.map((fault) => fault.kind);
    expect(kinds.filter((kind) => kind === 'api')).toHaveLength(2);
    expect(kinds.filter((kind) => kind === 'temporal')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'postgres')).toHaveLength(1);
    const workerTimes = processFaults.filter((fault) => fault.kind === 'worker').map((fault) => fault.atMs);
    expect(workerTimes.length).toBeGreaterThan(10);
    for (let i = 1; i < workerTimes.length; i++)
      expect(workerTimes[i]! - workerTimes[i - 1]!).toBeLessThanOrEqual(12_000);
  });

  it('small: one fault of each kind', () => {
    const kinds = faultPlan({ seed: 3, size: SMALL, payoutIpnTimeoutSeconds: 10 }).processFaults.map(
      (fault) => fault.kind,
    );
    expect(kinds.sort()).toEqual(['api', 'postgres', 'temporal', 'worker']);
  });
});

describe('money check', () => {
  const workload: Workload = {
    payouts: {
      runs: [
        {
          file: 'f',
          runId: 'run-1',
          rows: [
            { payoutId: 'p-1', wallet: '0900000155', amount: 10_000, expected: 'SUCCEEDED' },
            { payoutId: 'p-2', wallet: '0900000255', amount: 10_001, expected: 'SUCCEEDED' },
            { payoutId: 'p-3', wallet: '0900001007', amount: 10_002, expected: 'INELIGIBLE' },
          ],
        },
      ],
      failures: [],
    },
    subscriptions: { subscriptions: [{ subscriptionId: 's-1', poor: false, amount: 50_050 }], failures: [] },
    savedMethodPayments: { payments: [], failures: [] },
    disbursements: { disbursements: [], failures: [] },
    remittances: { remittances: [], failures: [] },
    payments: { payments: [], failures: [] },
  };
  const records = (): Records => ({
    runs: [{ run_id: 'run-1', row_count: 3, status: 'reconciled' }],
    batches: [{ batch_id: 'run-1-b001', run_id: 'run-1', order_id: 'run-1-b001' }],
    items: [
      { run_id: 'run-1', payout_id: 'p-1', state: 'SUCCEEDED' },
      { run_id: 'run-1', payout_id: 'p-2', state: 'SUCCEEDED' },
      { run_id: 'run-1', payout_id: 'p-3', state: 'INELIGIBLE' },
    ],
    subscriptions: [{ subscription_id: 's-1', status: 'active' }],
    charges: [{ subscription_id: 's-1', order_id: 's-1-c1', cycle: 1, status: 'succeeded' }],
    savedMethodPayments: [],
    disbursements: [],
    remittances: [],
    payments: [],
    refunds: [],
  });
  const entry = (orderId: string, itemId?: string, amount = 10_000): LedgerEntry => ({
    orderId,
    ...(itemId && { itemId }),
    kind: itemId ? 'batch-item' : 'subscription-charge',
    amount,
    currency: 'VND',
    outcome: 'succeeded',
    resultCode: 0,
    at: '2026-11-23T00:00:00Z',
    requestId: `${orderId}-pay`,
  });
  const ledger = () => [
    entry('run-1-b001', 'p-1'),
    entry('run-1-b001', 'p-2'),
    entry('s-1-c1', undefined, 50_050),
  ];

  it('passes when every item moved money once and the records agree', () => {
    const check = checkMoney(workload, records(), ledger());
    expect(check).toMatchObject({ paidTwice: [], lost: [], recordDisagreesWithLedger: [] });
  });

  it('names a subscription cycle charged under a second order', () => {
    const check = checkMoney(workload, records(), [...ledger(), entry('s-1-c1-r1', undefined, 50_050)]);
    expect(check.paidTwice).toEqual([expect.stringMatching(/^subscription s-1 cycle 1: 2 movements/)]);
  });

  it('names a cycle charged again under an order named after it, and money nothing accounts for', () => {
    const check = checkMoney(workload, records(), [
      ...ledger(),
      entry('s-1-c1-a2', undefined, 50_050),
      entry('stray-order', undefined, 1_000),
    ]);
    expect(check.paidTwice).toEqual([expect.stringMatching(/^subscription s-1 cycle 1: 2 movements/)]);
    expect(check.unexplainedMovements).toEqual(['subscription-charge stray-order succeeded']);
  });

  it('a remittance its approvers rejected agrees only while nothing was bought or sent', () => {
    const withRemittance: Workload = {
      ...workload,
      remittances: { remittances: [{ key: 'r', remittanceId: 'rem-1', foreignAmount: 500 }], failures: [] },
    };
    const rejected = {
      ...records(),
      remittances: [{ remittance_id: 'rem-1', order_id: 'rem-1', status: 'rejected' }],
    };
    expect(checkMoney(withRemittance, rejected, ledger()).recordDisagreesWithLedger).toEqual([]);
    const sent = checkMoney(withRemittance, rejected, [...ledger(), entry('rem-1', undefined, 12_000_000)]);
    expect(sent.recordDisagreesWithLedger).toEqual([
      'remittance rem-1: payrun rejected, gateway bought none, sent succeeded',
    ]);
  });

  it('names a payout row paid twice by the gateway', () => {
    const check = checkMoney(workload, records(), [...ledger(), entry('run-1-b001', 'p-2')]);
    expect(check.paidTwice).toContain('gateway order run-1-b001/p-2: 2 ledger entries');
  });

  it('names a lost row and a record that says paid when nothing moved', () => {
    const lostOne = records();
    lostOne.items = lostOne.items.filter((item) => item.payout_id !== 'p-3');
    const check = checkMoney(
      workload,
      lostOne,
      ledger()
        .slice(1)
        .concat(entry('s-1-c1', undefined, 50_050)),
    );
    expect(check.lost).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^payout run run-1: uploaded 3/),
        'payout p-3: no record',
      ]),
    );
    expect(check.recordDisagreesWithLedger).toContain('payout p-1: payrun SUCCEEDED, gateway none');
  });
});

describe('process check', () => {
  const workload = {
    payouts: { runs: [], failures: [] },
    subscriptions: { subscriptions: [{ subscriptionId: 's-1', poor: false, amount: 50_050 }], failures: [] },
    savedMethodPayments: { payments: [], failures: [] },
    disbursements: { disbursements: [], failures: [] },
    remittances: { remittances: [], failures: [] },
    payments: { payments: [], failures: [] },
  } satisfies Workload;
  const evidence = (openWorkflows: Evidence['openWorkflows'], recordStatus: Array<[string, string]>) =>
    ({
      records: {
        runs: [],
        batches: [],
        items: [],
        subscriptions: [{ subscription_id: 's-1', status: 'active' }],
        charges: [{ subscription_id: 's-1', order_id: 's-1-c1', cycle: 1, status: 'succeeded' }],
        savedMethodPayments: [],
        disbursements: [],
        remittances: [],
        payments: [],
        refunds: [],
      },
      storedNotifications: [],
      ledger: [],
      ipnLog: [],
      openWorkflows,
      recordStatus: new Map(recordStatus),
    }) satisfies Evidence;

  it('accepts an open workflow only for a reason its record gives: a live subscription, an active endpoint', () => {
    const check = checkProcesses(
      workload,
      evidence(
        [
          { workflowId: 'subscription/s-1', type: 'subscription' },
          { workflowId: 'webhook-endpoint/we_1', type: 'webhookEndpoint' },
          { workflowId: 'webhook-endpoint/we_2', type: 'webhookEndpoint' },
          { workflowId: 'payment/pay-1', type: 'payment' },
        ],
        [
          ['subscription/s-1', 'active'],
          ['webhook-endpoint/we_1', 'active'],
          ['webhook-endpoint/we_2', 'deleted'],
        ],
      ),
    );
    expect(check.subscriptions.chargedOnce).toBe(1);
    expect(check.workflows.documented).toEqual({
      'subscription: waits for its next cycle': 1,
      'webhook endpoint: delivers events until it is deleted (docs/events.md)': 1,
    });
    expect(check.workflows.undocumented).toEqual([
      'webhook-endpoint/we_2 (webhookEndpoint, record deleted)',
      'payment/pay-1 (payment, record not read)',
    ]);
  });

  it("accepts the desks and a later day's billing run, and not a run of a day that has come", () => {
    // 2026-12-01 18:00 UTC is 2026-12-02 01:00 in GMT+7, the billing days' zone.
    const now = Date.UTC(2026, 11, 1, 18);
    const check = checkProcesses(
      workload,
      evidence(
        [
          { workflowId: 'payment-desk/payrun', type: 'paymentDesk' },
          { workflowId: 'disbursement-desk/payrun', type: 'disbursementDesk' },
          { workflowId: 'subscription-desk/payrun', type: 'subscriptionDesk' },
          { workflowId: 'billing-run/payrun/2027-01-02', type: 'billingRun' },
          { workflowId: 'billing-run/payrun/2026-12-02', type: 'billingRun' },
          { workflowId: 'billing-run/payrun/2026-12-01', type: 'billingRun' },
        ],
        [],
      ),
      now,
    );
    expect(Object.keys(check.workflows.documented)).toHaveLength(4);
    expect(Object.values(check.workflows.documented)).toEqual([1, 1, 1, 1]);
    expect(check.workflows.undocumented).toEqual([
      'billing-run/payrun/2026-12-02 (billingRun, record not read)',
      'billing-run/payrun/2026-12-01 (billingRun, record not read)',
    ]);
  });
});
