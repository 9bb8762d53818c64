/**
 * Plumbing, not features: a real worker runs a real workflow whose real activity writes to
 * PostgreSQL, once on the time-skipping server and once on the dev server.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createStackCheckActivities } from '../../activities/shared/stack-check';
import type { Db } from '../../db/shared/knex';
import { stackCheckWorkflowId } from '../../contracts/shared';
import { stackCheck } from '../../workflows/shared/stack-check';
import { connectTestDatabase } from '../support/database';
import { connectDevServer, createTimeSkippingEnv, createTestWorker } from '../support/temporal';

const DAY_MS = 24 * 60 * 60 * 1000;

async function runStackCheck(env: TestWorkflowEnvironment, db: Db, wait: string) {
  const { worker, taskQueue } = await createTestWorker(env, createStackCheckActivities({ db }));
  const checkId = randomUUID();
  const result = await worker.runUntil(
    env.client.workflow.execute(stackCheck, {
      taskQueue,
      workflowId: stackCheckWorkflowId(checkId),
      args: [{ checkId, wait }],
    }),
  );
  const row = await db('stack_checks').where({ check_id: checkId }).first();
  return { checkId, result, row };
}

describe('stack check plumbing', () => {
  let db: Db;
  beforeAll(() => {
    db = connectTestDatabase();
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('skips a 30-day timer on the time-skipping server and records both steps in PostgreSQL', async () => {
    const env = await createTimeSkippingEnv();
    try {
      const wallStart = Date.now();
      const { checkId, result, row } = await runStackCheck(env, db, '30 days');
      const wallSeconds = (Date.now() - wallStart) / 1000;

      expect(row).toMatchObject({ check_id: checkId, workflow_id: stackCheckWorkflowId(checkId) });
      const workflowElapsed = Date.parse(result.finishedAt) - Date.parse(result.startedAt);
      expect(workflowElapsed).toBeGreaterThanOrEqual(30 * DAY_MS);
      expect(new Date(row.finished_at).getTime() - new Date(row.started_at).getTime()).toBe(workflowElapsed);
      console.log(`30 days of workflow time took ${wallSeconds.toFixed(1)} s of wall time`);
    } finally {
      await env.teardown();
    }
  });

  it('runs on the dev server with a real timer', async () => {
    const env = await connectDevServer();
    try {
      const { checkId, result, row } = await runStackCheck(env, db, '200 milliseconds');
      expect(row.check_id).toBe(checkId);
      expect(row.finished_at).not.toBeNull();
      expect(Date.parse(result.finishedAt) - Date.parse(result.startedAt)).toBeGreaterThanOrEqual(200);
    } finally {
      await env.teardown();
    }
  });
});
