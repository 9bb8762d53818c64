/**
 * Where every process ended: each payout run reconciled or needs_attention with a reason, each
 * subscription charged once for its cycle or paused with a reason, each workflow closed or waiting
 * for a reason the README documents.
 */
import { billingRunDayOf, dayOfGmt7 } from '../../contracts/subscriptions';
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

/** Workflows that live as long as their task queue, whatever any record says. */
const LIVE_WITH_THEIR_QUEUE: Record<string, string> = {
  paymentDesk:
    "payment desk: makes new payments' creates for as long as its queue is served (docs/payments.md)",
  disbursementDesk:
    'disbursement desk: pays single disbursements for as long as its queue is served (docs/payout-runs.md)',
  subscriptionDesk:
    "subscription desk: starts new subscriptions' authorizations for as long as its queue is served (docs/subscriptions.md)",
};
const LATER_BILLING_DAY =
  "billing run: a later day's, started by a charge, waits for that day's billing hour (docs/subscriptions.md)";

/** The documented reason `workflowId` may still be open, if there is one. */
function documentedWait(
  { workflowId, type }: Evidence['openWorkflows'][number],
  recordStatus: string | undefined,
  today: string,
): string | undefined {
  if (type === 'billingRun') {
    // A due day's run ends once it found nothing more to charge: open past the workload, it is stuck.
    const day = billingRunDayOf(workflowId);
    return day !== undefined && day > today ? LATER_BILLING_DAY : undefined;
  }
  return LIVE_WITH_THEIR_QUEUE[type] ?? DOCUMENTED_WAITS[type]?.[recordStatus ?? ''];
}

/** `now` places the billing days: runs of a later day than its GMT+7 date are waiting, not stuck. */
export function checkProcesses(workload: Workload, evidence: Evidence, now = Date.now()): ProcessCheck {
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
  const today = dayOfGmt7(now);
  for (const open of evidence.openWorkflows) {
    const { workflowId, type } = open;
    const reason = documentedWait(open, statusOf.get(workflowId), today);
    if (reason) workflows.documented[reason] = (workflows.documented[reason] ?? 0) + 1;
    else
      workflows.undocumented.push(
        `${workflowId} (${type}, record ${statusOf.get(workflowId) ?? 'not read'})`,
      );
  }
  return { runs, subscriptions, workflows };
}
