/**
 * Everything a payout run touches, for one test file: the sandbox gateway over real HTTP, payrun's
 * API (uploads, approvals and the IPN receiver the sandbox calls), and a real worker, all on the
 * given Temporal environment and the run's own database.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from '../../db/shared/knex';
import type { Logger } from '../../platform/logger';
import type { SandboxOptions } from '../../sandbox';
import { jsonOf } from './api';
import { startStack, useStack, type Stack, type StackOptions } from './stack';
import { eventually } from './wait';

export type PayoutStack = Stack<'makerKey' | 'approverKey'>;

type PayoutStackOptions = Pick<SandboxOptions, 'timing' | 'balances'> & { logger?: Logger };

const payoutStackOptions = (options: PayoutStackOptions): StackOptions<'makerKey' | 'approverKey'> => ({
  taskQueue: `payouts-${randomUUID()}`,
  logger: options.logger,
  sandbox: {
    timing: { batchValidationMs: 20, batchPaymentMs: 20, ...options.timing },
    balances: { VND: 100_000_000_000, ...options.balances },
  },
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
  },
  // No workflow cache: a restarted worker must not leave tasks on a dead worker's sticky queue,
  // which the time-skipping server would hold without timing them out.
  workerTuning: { maxCachedWorkflows: 0 },
});

export const startPayoutStack = (
  env: TestWorkflowEnvironment,
  db: Db,
  options: PayoutStackOptions = {},
): Promise<PayoutStack> => startStack(env, db, payoutStackOptions(options));

export const PAYOUT_HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id';

/** A file of `count` rows; `wallet(i)` picks each receiver (sandbox scenarios key on the wallet). */
export function payoutFile(
  prefix: string,
  count: number,
  wallet: (index: number) => string = () => '0912345678',
): string {
  const rows = Array.from(
    { length: count },
    (_, index) =>
      `${prefix}-${index + 1},${wallet(index)},Receiver ${index + 1},,${10_000 + index},Payout ${index + 1},`,
  );
  return [PAYOUT_HEADER, ...rows].join('\n') + '\n';
}

export async function apiCall(
  stack: PayoutStack,
  key: string,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
) {
  const response = await fetch(`${stack.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, body: await jsonOf(response) };
}

export async function uploadAndApprove(stack: PayoutStack, csv: string): Promise<string> {
  const uploaded = await apiCall(
    stack,
    stack.makerKey,
    'POST',
    '/v1/payout-runs?fileName=test.csv',
    csv,
    'text/csv',
  );
  if (uploaded.status !== 201) throw new Error(`upload failed: ${JSON.stringify(uploaded.body)}`);
  const runId = uploaded.body.runId as string;
  const approved = await apiCall(stack, stack.approverKey, 'POST', `/v1/payout-runs/${runId}/approve`, '{}');
  if (approved.status !== 200) throw new Error(`approve failed: ${JSON.stringify(approved.body)}`);
  return runId;
}

/** Polls payrun's records (not Temporal) until the run reaches one of `statuses`. */
export async function waitForRunStatus(
  db: Db,
  runId: string,
  statuses: string[],
  options: { timeout?: number; whileWaiting?: () => Promise<unknown> } = {},
): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const run = await db('payout_runs').where({ run_id: runId }).first();
      if (run && statuses.includes(run.status)) return run;
      const batches = await db('payout_batches')
        .where({ run_id: runId })
        .select('batch_id', 'status', 'status_reason');
      throw new Error(
        `run ${runId} is ${run?.status}, not ${statuses.join('/')}; batches: ${JSON.stringify(batches)}`,
      );
    },
    { timeout: options.timeout, between: options.whileWaiting },
  );
}

export interface PayoutFixture {
  env: TestWorkflowEnvironment;
  db: Db;
  stack: PayoutStack;
}

/**
 * One payout stack for a test file, started before its tests and closed after them. Read the
 * fields inside tests (they are set in beforeAll): `const t = usePayoutStack(createTimeSkippingEnv)`.
 */
export function usePayoutStack(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: PayoutStackOptions = {},
): PayoutFixture {
  const fixture = useStack(createEnv, payoutStackOptions(options));
  return {
    get env() {
      return fixture.env;
    },
    get db() {
      return fixture.db;
    },
    stack: fixture,
  };
}
