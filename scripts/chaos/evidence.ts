/** Everything the verdict is computed from, read once the run has settled. */
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/shared/knex';
import type { IpnLogEntry } from '../../sandbox/ipn';
import type { LedgerEntry } from '../../sandbox/ledger';
import type { SandboxAdminClient } from '../cluster/sandbox-admin';
import type { Records, Row } from './ledger-check';
import type { Workload } from './workload';

export interface Evidence {
  records: Records;
  storedNotifications: Row[];
  ledger: LedgerEntry[];
  ipnLog: IpnLogEntry[];
  openWorkflows: Array<{ workflowId: string; type: string }>;
  /** The status of each open workflow's record, by workflow id, where one says why it stays open. */
  recordStatus: Map<string, string>;
}

export async function collectEvidence(
  db: Db,
  sandbox: SandboxAdminClient,
  temporal: Client,
  workload: Workload,
): Promise<Evidence> {
  const runIds = workload.payouts.runs.flatMap((run) => (run.runId ? [run.runId] : []));
  const subscriptionIds = workload.subscriptions.subscriptions.map((item) => item.subscriptionId);
  const paymentIds = workload.payments.payments.map((item) => item.paymentId);
  const remittanceIds = workload.remittances.remittances.flatMap((item) =>
    item.remittanceId ? [item.remittanceId] : [],
  );
  const records: Records = {
    runs: await db('payout_runs').whereIn('run_id', runIds),
    batches: await db('payout_batches').whereIn('run_id', runIds),
    items: await db('payout_items')
      .whereIn('run_id', runIds)
      .select('run_id', 'batch_id', 'payout_id', 'state', 'amount', 'result_code'),
    subscriptions: await db('subscriptions')
      .whereIn('subscription_id', subscriptionIds)
      .select('subscription_id', 'status', 'status_reason', 'failures'),
    charges: await db('subscription_charges').whereIn('subscription_id', subscriptionIds),
    savedMethodPayments: await db('saved_method_payments').whereIn(
      'payment_id',
      workload.savedMethodPayments.payments.map((item) => item.paymentId),
    ),
    disbursements: await db('disbursements').whereIn(
      'disbursement_id',
      workload.disbursements.disbursements.map((item) => item.disbursementId),
    ),
    remittances: await db('remittances')
      .whereIn('remittance_id', remittanceIds)
      .select('remittance_id', 'order_id', 'status', 'status_reason', 'attention_reason'),
    payments: await db('payments')
      .whereIn('payment_id', paymentIds)
      .select('payment_id', 'order_id', 'status', 'refunded_amount', 'result_code'),
    refunds: await db('refunds')
      .whereIn('payment_id', paymentIds)
      .select('refund_id', 'payment_id', 'order_id', 'status', 'amount'),
  };
  const openWorkflows: Evidence['openWorkflows'] = [];
  for await (const execution of temporal.workflow.list({ query: 'ExecutionStatus = "Running"' }))
    openWorkflows.push({ workflowId: execution.workflowId, type: execution.type });
  return {
    records,
    storedNotifications: await db('ipn_notifications').select(
      'kind',
      'order_id',
      'dedupe_key',
      'signalled_at',
    ),
    ledger: await sandbox.ledger(),
    ipnLog: await sandbox.ipnLog(),
    openWorkflows,
    recordStatus: new Map<string, string>([
      ...records.subscriptions.map((row): [string, string] => [
        `subscription/${String(row.subscription_id)}`,
        String(row.status),
      ]),
      ...(await db('webhook_endpoints').select('workflow_id', 'status')).map(
        (row: { workflow_id: string; status: string }): [string, string] => [row.workflow_id, row.status],
      ),
    ]),
  };
}
