/**
 * A payout run on the full dev server (real time, real visibility): its batches can be found in
 * Temporal by search attribute, and payrun's own logs of the whole run hold none of the redacted values.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { connectTestDatabase } from '../support/database';
import {
  payoutFile,
  startPayoutStack,
  uploadAndApprove,
  waitForRunStatus,
  type PayoutStack,
} from '../support/payout-stack';
import { testMerchant } from '../support/settings';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';

let env: TestWorkflowEnvironment;
let db: Db;
let stack: PayoutStack;
const captured: string[] = [];

beforeAll(async () => {
  env = await connectDevServer();
  db = connectTestDatabase();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      captured.push(chunk.toString());
      done();
    },
  });
  stack = await startPayoutStack(env, db, { logger: createLogger('debug', 'payrun-test', sink) });
});

afterAll(async () => {
  await stack?.close();
  await db?.destroy();
  await env?.teardown();
});

it('finds the batches of a run by search attribute and logs no secret or personal value', async () => {
  // 1,100 rows make two batches; personal ids make the redaction check meaningful.
  const csv = payoutFile('visible', 1100).replace(
    /,,(\d+),Payout/g,
    (_match, amount) => `,0${amount}77,${amount},Payout`,
  );
  const runId = await uploadAndApprove(stack, csv);
  const run = await waitForRunStatus(db, runId, ['reconciled', 'needs_attention'], { timeout: 60_000 });
  expect(run.status).toBe('reconciled');

  const query = `PayrunKind = 'payout-batch' AND PayrunRunId = '${runId}'`;
  // Visibility is eventually consistent: wait until the index shows both batches.
  await eventually(async () => {
    const found: string[] = [];
    for await (const workflow of env.client.workflow.list({ query })) found.push(workflow.workflowId);
    expect(found.sort()).toEqual([`payout-batch/${runId}-b001`, `payout-batch/${runId}-b002`]);
  });

  const logs = captured.join('');
  expect(logs.length).toBeGreaterThan(1000);
  const items = await db('payout_items').where({ run_id: runId }).select('wallet_name', 'personal_id');
  const forbidden = [
    testMerchant.secretKey,
    testMerchant.accessKey,
    stack.approverKey,
    stack.makerKey,
    ...items.slice(0, 50).flatMap((item) => [item.wallet_name, item.personal_id]),
    '0912345678',
  ];
  for (const value of forbidden) expect(logs, `"${value}" leaked into the logs`).not.toContain(value);
  expect(logs).toContain('[REDACTED]');
}, 90_000);
