import type { Db } from '../../db/shared/knex';

export interface StackCheckRecord {
  checkId: string;
  workflowId: string;
  startedAt: string;
  finishedAt?: string;
}

export interface StackCheckActivities {
  recordStackCheck(record: StackCheckRecord): Promise<void>;
}

export function createStackCheckActivities({ db }: { db: Db }): StackCheckActivities {
  return {
    // An upsert: a retried or replayed activity writes the same row again, never a second one.
    async recordStackCheck(record) {
      await db('stack_checks')
        .insert({
          check_id: record.checkId,
          workflow_id: record.workflowId,
          started_at: record.startedAt,
          finished_at: record.finishedAt ?? null,
        })
        .onConflict('check_id')
        .merge(['finished_at']);
    },
  };
}
