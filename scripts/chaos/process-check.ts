/**
 * Where every process ended: each payout run reconciled or needs_attention with a reason, each
 * subscription charged once for its cycle or paused with a reason, each workflow closed or waiting
 * for a reason the README documents.
 */
import type { Evidence } from './evidence';
import type { Row } from './ledger-check';
import type { Workload } from './workload';

export interface ProcessCheck {
  runs: { reconciled: number; needsAttention: string[]; other: string[] };
  subscriptions: { chargedOnce: number; pausedWithReason: number; other: string[] };
  workflows: { open: number; documented: Record<string, number>; undocumented: string[] };
}

/** Why a workflow may stay open once the run settled, by the status of its record (README). */
const DOCUMENTED_WAITS: Record<string, Record<string, string>> = {
  subscription: {
    active: 'subscription: waits for its next cycle',
    paused: 'subscription: paused, waits for reactivation, cancel or expiry',
    retrying: 'subscription: waits for its one retry',
  },
  webhookEndpoint: { active: 'webhook endpoint: delivers events until it is deleted (docs/events.md)' },
};

export function checkProcesses(workload: Workload, evidence: Evidence): ProcessCheck {
  const { records } = evidence;
  const str = (value: unknown) => (value === null || value === undefined ? '' : String(value));

  const runs = { reconciled: 0, needsAttention: [] as string[], other: [] as string[] };
  for (const run of records.runs) {
    if (run.status === 'reconciled') runs.reconciled += 1;
    else if (run.status === 'needs_attention' && str(run.status_reason))
      runs.needsAttention.push(`${str(run.run_id)}: ${str(run.status_reason)}`);
    else runs.other.push(`${str(run.run_id)}: ${str(run.status)} ${str(run.status_reason)}`.trim());
  }

  const subscriptions = { chargedOnce: 0, pausedWithReason: 0, other: [] as string[] };
  for (const row of records.subscriptions) {
    const id = str(row.subscription_id);
    const charges = records.charges.filter(
      (charge: Row) => charge.subscription_id === id && charge.cycle === 1,
    );
    const succeeded = charges.filter((charge) => charge.status === 'succeeded').length;
    if (row.status === 'active' && succeeded === 1) subscriptions.chargedOnce += 1;
    else if (row.status === 'paused' && str(row.status_reason)) subscriptions.pausedWithReason += 1;
    else
      subscriptions.other.push(
        `${id}: ${str(row.status)} (${str(row.status_reason)}); cycle 1 charges: ${charges.map((c) => `${str(c.order_id)} ${str(c.status)}`).join(', ') || 'none'}`,
      );
  }
  const created = new Set(records.subscriptions.map((row) => row.subscription_id));
  for (const intent of workload.subscriptions.subscriptions)
    if (!created.has(intent.subscriptionId))
      subscriptions.other.push(`${intent.subscriptionId}: not created`);

  const statusOf = evidence.recordStatus;
  const workflows = {
    open: evidence.openWorkflows.length,
    documented: {} as Record<string, number>,
    undocumented: [] as string[],
  };
  for (const { workflowId, type } of evidence.openWorkflows) {
    const reason = DOCUMENTED_WAITS[type]?.[statusOf.get(workflowId) ?? ''];
    if (reason) workflows.documented[reason] = (workflows.documented[reason] ?? 0) + 1;
    else
      workflows.undocumented.push(
        `${workflowId} (${type}, record ${statusOf.get(workflowId) ?? 'not read'})`,
      );
  }
  return { runs, subscriptions, workflows };
}
