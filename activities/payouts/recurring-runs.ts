/**
 * An occurrence of a recurring schedule makes its run (docs/payout-runs.md, "Recurring runs"): the schedule's
 * rows, each with this occurrence's payout id, recorded exactly as an upload records a run (awaiting approval,
 * batches with reserved orderIds, items), with the schedule and occurrence on the run.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/shared/knex';
import {
  findLivePayoutIds,
  batchesOf,
  insertRunBatches,
  insertRun,
  listBatches,
  getRun,
  runCapBreach,
  runsCountingToday,
} from '../../db/payouts/runs';
import { approvedPolicyVersions } from '../../db/approvals/policy-versions';
import { DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from '../../contracts/approvals';
import { inEffectOf } from '../../platform/approval-policy-in-effect';
import { getSchedule, runOfOccurrence, type PayoutScheduleRow } from '../../db/payouts/schedules';
import {
  occurrencePayoutId,
  payoutRunWorkflowId,
  type PayoutRunInput,
  type RecurringOccurrenceInput,
  type RecurringRunActivities,
} from '../../contracts/payouts';

const ONE_LIVE_PAYOUT = 'payout_items_one_live_payout';
const ONE_RUN_PER_OCCURRENCE = 'payout_runs_one_per_occurrence';

const newRunId = (now: Date) =>
  `run-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(3).toString('hex')}`;

export function createRecurringRunActivities({
  db,
  approvalPolicy = DEFAULT_APPROVAL_POLICY,
}: {
  db: Db;
  approvalPolicy?: ApprovalPolicy;
}): RecurringRunActivities {
  return { recordRecurringRun: (input) => recordRecurringRun(db, input, approvalPolicy) };
}

export async function recordRecurringRun(
  db: Db,
  input: RecurringOccurrenceInput & { occurrenceAt: string },
  /** APPROVAL_POLICY, which applies until an approved version of the policy replaces it. */
  configuredPolicy: ApprovalPolicy = DEFAULT_APPROVAL_POLICY,
): ReturnType<RecurringRunActivities['recordRecurringRun']> {
  const occurrenceAt = new Date(input.occurrenceAt);
  // A retried activity, or the same occurrence started again, finds the run it made: one run per occurrence.
  const earlier = await runOfOccurrence(db, input.scheduleId, occurrenceAt);
  // A refused run has no workflow and must never get one: started again, the occurrence is still refused.
  if (earlier?.status === 'refused') return overCap(earlier.run_id, earlier.status_reason ?? '');
  if (earlier)
    return { runId: earlier.run_id, created: false, runInput: await runInputOf(db, earlier.run_id, input) };

  const schedule = await getSchedule(db, input.scheduleId);
  if (!schedule || schedule.status !== 'active')
    return {
      runId: null,
      skipped: 'schedule_not_active',
      reason: `Schedule ${input.scheduleId} is ${schedule?.status ?? 'unknown'}; the occurrence makes no run.`,
    };

  const rows = schedule.rows.map((row, index) => ({
    ...row,
    rowNumber: index + 1,
    payoutId: occurrencePayoutId(row.payoutId, input.occurrenceAt),
  }));
  // Checked before writing for a clear reason; the unique index on live payout ids is what truly holds.
  const live = await findLivePayoutIds(
    db,
    rows.map((row) => row.payoutId),
  );
  if (live.size) return inFlight([...live.keys()]);

  const runId = newRunId(occurrenceAt);
  const batches = batchesOf(runId, rows, input.batchSize);
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  // The caps of the policy in effect now, as an upload made now would meet them.
  const runPolicy = inEffectOf(await approvedPolicyVersions(db), configuredPolicy, new Date()).policy
    .payoutRun;
  let refusal: string | undefined;
  try {
    await db.transaction(async (trx) => {
      // Under the day's lock uploads take turns on; counted with the schedule's maker as the run's maker.
      const breach = runCapBreach(await runsCountingToday(trx), schedule.created_by, total, runPolicy);
      if (breach) {
        // Never skipped in silence, never paid past the cap: the run is recorded refused (no batches, no items,
        // no workflow), which raises payout_run.refused and shows on the schedule's page.
        // One sentence the console knows in Vietnamese (VI_SERVER_TEXTS): the cap's own name says whose it is.
        refusal =
          `daily_cap_exceeded: this occurrence of ${total} VND would take approvalPolicy.payoutRun.${breach.cap} ` +
          `(${breach.limitVnd} VND a day, ${breach.requestedTodayVnd} VND already asked today) past its limit; nothing was paid.`;
        await insertRun(trx, {
          ...runRecord(runId, schedule, rows, total, occurrenceAt, input),
          status: 'refused',
          status_reason: refusal,
          batch_count: 0,
        });
        return;
      }
      await insertRun(trx, {
        ...runRecord(runId, schedule, rows, total, occurrenceAt, input),
        status: 'awaiting_approval',
        batch_count: batches.length,
      });
      await insertRunBatches(trx, runId, batches, { reserveOrderIds: true });
    });
  } catch (error) {
    const constraint = (error as { constraint?: string }).constraint;
    // The same occurrence, run twice at once: the other attempt's run is the occurrence's run.
    if (constraint === ONE_RUN_PER_OCCURRENCE) {
      const made = await runOfOccurrence(db, input.scheduleId, occurrenceAt);
      if (made?.status === 'refused') return overCap(made.run_id, made.status_reason ?? '');
      if (made)
        return { runId: made.run_id, created: false, runInput: await runInputOf(db, made.run_id, input) };
    }
    if (constraint === ONE_LIVE_PAYOUT) return inFlight([]);
    throw error;
  }
  if (refusal !== undefined) return overCap(runId, refusal);
  return { runId, created: true, runInput: await runInputOf(db, runId, input) };
}

/** What every run of an occurrence records, made or refused. */
function runRecord(
  runId: string,
  schedule: PayoutScheduleRow,
  rows: ReadonlyArray<{ payoutId: string; amount: number }>,
  total: number,
  occurrenceAt: Date,
  input: RecurringOccurrenceInput,
) {
  return {
    run_id: runId,
    file_name: `schedule ${schedule.name}`,
    // The run's "file" is the schedule's rows for this occurrence: its hash is theirs.
    file_sha256: sha256Of(JSON.stringify(rows)),
    row_count: rows.length,
    total_amount: total,
    workflow_id: payoutRunWorkflowId(runId),
    // The schedule's maker is the run's maker, so four eyes still means someone else approves it.
    uploaded_by_key: schedule.created_by_key,
    uploaded_by: schedule.created_by,
    expires_at: new Date(Date.now() + input.approvalTtlHours * 3600_000),
    request_key: null,
    required_approvers: schedule.required_approvers,
    approver_roles: schedule.approver_roles,
    schedule_id: schedule.schedule_id,
    occurrence_at: occurrenceAt,
  };
}

function overCap(runId: string, reason: string) {
  return { runId: null, skipped: 'daily_cap_exceeded' as const, reason, refusedRunId: runId };
}

function inFlight(payoutIds: string[]) {
  return {
    runId: null,
    skipped: 'payout_in_flight' as const,
    reason: `Payout ids of this occurrence are already in another run${payoutIds.length ? ` (${payoutIds.slice(0, 5).join(', ')})` : ''}; nothing was created, so nothing can be paid twice.`,
  };
}

/** The run's workflow input, read back from its records (as an upload's start does). */
async function runInputOf(db: Db, runId: string, input: RecurringOccurrenceInput): Promise<PayoutRunInput> {
  const run = (await getRun(db, runId))!;
  const batches = await listBatches(db, runId);
  return {
    runId,
    batches: batches.map((batch) => ({
      batchId: batch.batch_id,
      itemCount: Number(batch.item_count),
      totalAmount: Number(batch.total_amount),
    })),
    uploadedBy: { keyId: run.uploaded_by_key, name: run.uploaded_by },
    approvalDeadline: new Date(run.expires_at).toISOString(),
    parallelBatches: input.parallelBatches,
    timing: input.timing,
    approvers: run.required_approvers,
    ...(input.scheduleCheckAhead !== undefined && { scheduleCheckAhead: input.scheduleCheckAhead }),
  };
}

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');
