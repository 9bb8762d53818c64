/**
 * What the notification tests share: a record with a workflow that only listens (no worker polls its queue),
 * the gateway's signed result of a single payout, and an API process that died after claiming a
 * notification (its Temporal signals never return).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/shared/knex';
import { buildNotification } from '../../gateway';
import { testMerchant } from './settings';
import { freshId } from './ids';
import { disbursementRecord } from './database';

/** A disbursement record and a workflow that only listens, to count the signals it gets. */
export async function listeningDisbursement(db: Db, temporal: Client, amount = 50_000) {
  const disbursementId = freshId('dsb-', 8);
  const workflowId = `disbursement/${disbursementId}`;
  await db('disbursements').insert(
    disbursementRecord(disbursementId, {
      request_type: 'disburseToWallet',
      amount,
      receiver_label: 'wallet ****5678',
      // Waiting for the gateway's result, as a payout answered 7000 is.
      status: 'pending',
    }),
  );
  await temporal.workflow.start('disbursement', {
    taskQueue: `nobody-${randomUUID()}`,
    workflowId,
    args: [],
  });
  const signals = async () =>
    ((await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter(
      (event) => event.workflowExecutionSignaledEventAttributes,
    );
  return { disbursementId, workflowId, signals };
}

/** The gateway's signed result of a single payout (or a remittance), paid: `fields` change any of it. */
export const payoutResult = (
  orderId: string,
  fields: Record<string, unknown> = {},
  kind: 'disbursement.result' | 'remittance.result' = 'disbursement.result',
) =>
  buildNotification(
    kind,
    {
      partnerCode: testMerchant.partnerCode,
      orderId,
      requestId: `${orderId}-pay`,
      amount: 50_000,
      orderInfo: 'Salary',
      transId: 4_100_000_001,
      resultCode: 0,
      message: 'Successful.',
      responseTime: 1_763_800_000_000,
      extraData: '',
      ...fields,
    },
    testMerchant,
  );

/**
 * A Temporal client as an API process that died mid-signal shows it from outside: the signals to the
 * workflows `dies` names never return (every workflow's, without it).
 */
export function signalsNeverSettle(
  client: Client,
  dies: (workflowId: string) => boolean = () => true,
): Client {
  const bound = (target: object, name: string | symbol) => {
    const value = Reflect.get(target, name) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  };
  const workflow = new Proxy(client.workflow, {
    get: (target, name) =>
      name === 'signalWithStart'
        ? (type: string, options: { workflowId: string }) =>
            dies(options.workflowId)
              ? new Promise(() => {})
              : (target.signalWithStart as (...args: unknown[]) => unknown)(type, options)
        : name === 'getHandle'
          ? (workflowId: string, ...rest: unknown[]) => {
              const handle = (target.getHandle as (...args: unknown[]) => object)(workflowId, ...rest);
              return dies(workflowId)
                ? new Proxy(handle, {
                    get: (inner, key) => (key === 'signal' ? () => new Promise(() => {}) : bound(inner, key)),
                  })
                : handle;
            }
          : bound(target, name),
  });
  return new Proxy(client, { get: (target, name) => (name === 'workflow' ? workflow : bound(target, name)) });
}

/** A Temporal client that only records which workflows the relay signalled (the desks' chunk tests). */
export function signalRecorder(): { temporal: Client; signalled: string[] } {
  const signalled: string[] = [];
  const temporal = {
    workflow: {
      getHandle: (workflowId: string) => ({
        signal: async () => {
          signalled.push(workflowId);
        },
      }),
    },
  } as unknown as Client;
  return { temporal, signalled };
}
