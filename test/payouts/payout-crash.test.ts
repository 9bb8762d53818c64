/**
 * A worker that stops in the middle of a batch — while creating it, while paying it (with the
 * gateway's answer lost on the way), while reading results — and a new worker that takes over: every
 * item is paid at most once, its outcome is one event, and the run reconciles.
 */
import { expect, it } from 'vitest';
import type { OperationName } from '../../gateway';
import { payoutFile, uploadAndApprove, waitForRunStatus, usePayoutStack } from '../support/payout-stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';

const fixture = usePayoutStack(createTimeSkippingEnv);

async function waitForBatchStatus(runId: string, status: string) {
  await eventually(async () => {
    const batch = await fixture.db('payout_batches').where({ run_id: runId, seq: 1 }).first();
    expect(batch?.status, `batch 1 of ${runId}`).toBe(status);
  });
}

const crashPoints: Array<{ name: string; operation: OperationName; status: string; dropResponse?: boolean }> =
  [
    { name: 'creating the batch', operation: 'batch.create', status: 'creating' },
    { name: 'paying, with the answer lost', operation: 'batch.pay', status: 'paying', dropResponse: true },
    { name: 'reading results', operation: 'batch.query', status: 'awaiting_result' },
  ];

for (const point of crashPoints) {
  it(`a worker stopped while ${point.name} resumes without paying anyone twice`, async () => {
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setFaults({
      operation: point.operation,
      latencyMs: 300,
      dropResponse: point.dropResponse,
      times: 1,
    });
    const runId = await uploadAndApprove(fixture.stack, payoutFile(`crash-${point.operation}`, 120));
    await waitForBatchStatus(runId, point.status);
    await fixture.stack.stopWorker();
    await fixture.stack.startWorker();

    // The stopped worker's page read is retried after its heartbeat timeout (1 minute): skip time in steps
    // large enough that a loaded machine reaches it within the wait (2-second steps took over 30 s in CI).
    const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      whileWaiting: () => fixture.env.sleep('10 seconds'),
    });
    expect(run.status, String(run.status_reason)).toBe('reconciled');
    const movements = fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId));
    const keys = movements.map((entry) => `${entry.orderId}/${entry.itemId}`);
    expect(keys).toHaveLength(120);
    expect(new Set(keys).size).toBe(120);
    // Each row's outcome is one event, however often the new worker re-read and re-applied the results.
    const events: Array<{ object_id: string; type: string }> = await fixture
      .db('events')
      .where('type', 'like', 'payout_item.%')
      .whereRaw(`snapshot->>'runId' = ?`, [runId])
      .select('object_id', 'type');
    expect(events).toHaveLength(120);
    expect(new Set(events.map((event) => event.object_id)).size).toBe(120);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['payout_item.succeeded']));
  }, 60_000);
}
