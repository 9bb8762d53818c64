/**
 * Found by `npm run chaos`: an upload whose run workflow could not be started (the Temporal server was
 * down) was released as expired, and its client's retry with the same Idempotency-Key then answered 201
 * with that expired run: 1,000 rows the finance team believed accepted were never paid. Now a request
 * with a key keeps its run waiting and answers 503; the retry starts the run, which pays every row once.
 * Without a key nothing could resume it, so it is released as before.
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { apiCall, payoutFile, usePayoutStack, waitForRunStatus } from '../support/payout-stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { freshId } from '../support/ids';

const t = usePayoutStack(createTimeSkippingEnv);

/** The next workflow start fails as if the Temporal server were down. */
function failNextStart(client: Client) {
  const start = client.workflow.start.bind(client.workflow);
  client.workflow.start = (async () => {
    client.workflow.start = start;
    throw new Error('14 UNAVAILABLE: the Temporal server is down');
  }) as typeof client.workflow.start;
}

const upload = (csv: string, headers: Record<string, string> = {}) =>
  fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=resumed.csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.stack.makerKey}`, 'content-type': 'text/csv', ...headers },
    body: csv,
  }).then(async (response) => ({
    status: response.status,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    body: (await response.json()) as any,
  }));

describe('an upload whose workflow could not start', () => {
  it('with an Idempotency-Key: waits, and its retry starts the run, which pays every row once', async () => {
    const prefix = freshId('ru-', 8);
    const csv = payoutFile(prefix, 30);
    const key = { 'idempotency-key': `upload-${prefix}` };
    failNextStart(t.env.client);
    const failed = await upload(csv, key);
    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'workflow_not_started' } } });

    const retried = await upload(csv, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body.status).toBe('awaiting_approval');
    const runId = retried.body.runId as string;
    expect(await t.db('payout_runs').where('file_name', 'resumed.csv').where({ run_id: runId })).toHaveLength(
      1,
    );
    const approved = await apiCall(
      t.stack,
      t.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect(approved.status).toBe(200);
    await waitForRunStatus(t.db, runId, ['reconciled']);
    const paid = t.stack.sandbox.admin.ledger().filter((entry) => entry.itemId?.startsWith(`${prefix}-`));
    expect(paid).toHaveLength(30);
    expect(new Set(paid.map((entry) => entry.itemId)).size).toBe(30);
  });

  it('without one: released, so the same rows can be uploaded again', async () => {
    const prefix = freshId('rx-', 8);
    const csv = payoutFile(prefix, 5);
    failNextStart(t.env.client);
    expect((await upload(csv)).status).toBe(500);
    expect(
      await t
        .db('payout_runs')
        .where('status', 'expired')
        .whereIn('run_id', t.db('payout_items').where('payout_id', `${prefix}-1`).select('run_id')),
    ).toHaveLength(1);
    expect((await upload(csv)).status).toBe(201);
  });
});
