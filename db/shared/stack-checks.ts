/** The stack check's rows: one per check, its finish written when the check's workflow ends. */
import type { StackCheckRecord } from '../../contracts/shared';
import type { Db } from './knex';

/** An upsert: a retried or replayed activity writes the same row again, never a second one. */
export async function recordStackCheck(db: Db, record: StackCheckRecord): Promise<void> {
  await db('stack_checks')
    .insert({
      check_id: record.checkId,
      workflow_id: record.workflowId,
      started_at: record.startedAt,
      finished_at: record.finishedAt ?? null,
    })
    .onConflict('check_id')
    .merge(['finished_at']);
}
