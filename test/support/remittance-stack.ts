/**
 * Everything a remittance touches, for one test file: the sandbox gateway over real HTTP, payrun's API
 * (quotes, creates, reads and the IPN receiver the sandbox calls), and a real worker, all on the given
 * Temporal environment and the run's own database.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RemittanceSettings } from '../../api/remittances/settings';
import type { Db } from '../../db/shared/knex';
import type { SandboxOptions } from '../../sandbox';
import { FINAL_REMITTANCE_STATUSES } from '../../contracts/remittances';
import { callApi } from './api';
import { startStack, type Stack } from './stack';
import { eventually } from './wait';

export type RemittanceStack = Stack<'operatorKey' | 'viewerKey'> & {
  /** The API's settings object: a test may change `timing` before it creates a remittance. */
  settings: RemittanceSettings;
};

/** Small waits, so fallbacks and retries happen within a test's time. */
export const testRemittanceSettings = (taskQueue: string): RemittanceSettings => ({
  taskQueue,
  timing: {
    gatewayAttemptTimeout: '3 seconds',
    gatewayRetryInterval: '2 seconds',
    ipnTimeout: '5 seconds',
    resultGiveUpAfter: '1 hour',
    quoteTtl: '5 minutes',
  },
});

export async function startRemittanceStack(
  env: TestWorkflowEnvironment,
  db: Db,
  options: Pick<SandboxOptions, 'timing' | 'balances'> = {},
): Promise<RemittanceStack> {
  const taskQueue = `remittance-${randomUUID()}`;
  const settings = testRemittanceSettings(taskQueue);
  const stack = await startStack(env, db, {
    taskQueue,
    sandbox: {
      timing: { pendingSettleMs: 60_000, ...options.timing },
      balances: { VND: 0, USD: 10_000, EUR: 10_000, ...options.balances },
    },
    app: { remittance: settings },
    keys: {
      operatorKey: { name: 'remittance', roles: ['remittance'] },
      viewerKey: { name: 'viewer', roles: ['viewer'] },
    },
  });
  return { ...stack, settings };
}

export const remittanceCall = (
  stack: Pick<RemittanceStack, 'api'>,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => callApi(stack.api, key, method, path, body, headers);

/** Polls payrun's records (not Temporal) until the remittance reaches one of `statuses`. */
export async function waitForRemittance(
  db: Db,
  remittanceId: string,
  statuses: readonly string[] = FINAL_REMITTANCE_STATUSES,
  options: { whileWaiting?: () => Promise<unknown> } = {},
): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const row = await db('remittances').where({ remittance_id: remittanceId }).first();
      if (row && statuses.includes(row.status)) return row;
      throw new Error(
        `remittance ${remittanceId} is ${row?.status} (${row?.status_reason}), not ${statuses.join('/')}`,
      );
    },
    { between: options.whileWaiting },
  );
}

// ---- request bodies: the last four digits of a wallet or account pick the sandbox's scenario
export const walletRemittance = (walletId = '0912345678', extra: Record<string, unknown> = {}) => ({
  requestType: 'remitToWallet',
  baseCurrency: 'USD',
  foreignAmount: 100,
  receiver: { walletId, walletName: 'Tran Thi B', personalId: '012345678901' },
  remittanceInfo: { name: 'John Smith', partnerName: 'Acme Remit', orderingCountry: 'US', reason: 'RSN01' },
  ...extra,
});

export const bankRemittance = (bankAccountNo = '0123456789', extra: Record<string, unknown> = {}) => ({
  requestType: 'remitToBank',
  baseCurrency: 'USD',
  foreignAmount: 250.5,
  receiver: {
    bankAccountNo,
    bankAccountHolderName: 'TRAN THI B',
    bankCode: '970436',
    nationality: 'VN',
    dob: '01/02/1990',
    gender: 'Female',
    personalId: '012345678901',
  },
  remittanceInfo: {
    name: 'John Smith',
    partnerName: 'Acme Remit',
    orderingCountry: 'US',
    reason: 'RSN05',
    senderNationality: 'US',
    senderDob: '15/08/1980',
    senderGender: 'Male',
    senderPersonalId: 'P1234567',
  },
  ...extra,
});
