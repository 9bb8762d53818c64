/**
 * A worker that stops in the middle of a batch — while creating it, while paying it (with the
 * gateway's answer lost on the way), while reading results — and a new worker that takes over: every
 * item is paid at most once, and the run reconciles.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { OperationName } from '../../gateway';
import type { Db } from '../../db/knex';
import { connectTestDatabase } from '../support/database';
import {
  payoutFile,
  startPayoutStack,
  uploadAndApprove,
  waitForRunStatus,
  type PayoutStack,
} from '../support/payout-stack';
import { createTimeSkippingEnv } from '../support/temporal';

let env: TestWorkflowEnvironment;
let db: Db;
let stack: PayoutStack;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  db = connectTestDatabase();
  stack = await startPayoutStack(env, db);
});

afterAll(async () => {
  await stack?.close();
  await db?.destroy();
  await env?.teardown();
});

async function waitForBatchStatus(runId: string, status: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const batch = await db('payout_batches').where({ run_id: runId, seq: 1 }).first();
    if (batch?.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`batch of ${runId} never reached ${status}`);
}

const crashPoints: Array<{ name: string; operation: OperationName; status: string; dropResponse?: boolean }> =
  [
    { name: 'creating the batch', operation: 'batch.create', status: 'creating' },
    { name: 'paying, with the answer lost', operation: 'batch.pay', status: 'paying', dropResponse: true },
    { name: 'reading results', operation: 'batch.query', status: 'awaiting_result' },
  ];

for (const point of crashPoints) {
  it(`a worker stopped while ${point.name} resumes without paying anyone twice`, async () => {
    stack.sandbox.admin.reset();
    stack.sandbox.admin.setFaults({
      operation: point.operation,
      latencyMs: 300,
      dropResponse: point.dropResponse,
      times: 1,
    });
    const runId = await uploadAndApprove(stack, payoutFile(`crash-${point.operation}`, 120));
    await waitForBatchStatus(runId, point.status);
    await stack.stopWorker();
    await stack.startWorker();

    const run = await waitForRunStatus(db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => env.sleep('2 seconds'),
    });
    expect(run.status, String(run.status_reason)).toBe('reconciled');
    const movements = stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));
    const keys = movements.map((entry) => `${entry.orderId}/${entry.itemId}`);
    expect(keys).toHaveLength(120);
    expect(new Set(keys).size).toBe(120);
  }, 60_000);
}
