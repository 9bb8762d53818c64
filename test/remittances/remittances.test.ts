/**
 * Remittances end to end on the time-skipping server, against the sandbox over real HTTP: created
 * through the API, quoted, verified, bought, sent, and settled by the create answer, an IPN, or a
 * poll when the IPN is lost. Time only jumps where a test waits on a workflow result or skips it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from '../../db/shared/knex';
import { randomUUID } from 'node:crypto';
import type { remittanceQuote } from '../../workflows/remittances/remittance';
import { remittanceQuoteWorkflowId, remittanceWorkflowId } from '../../contracts/remittances';
import { connectTestDatabase } from '../support/database';
import {
  bankRemittance,
  remittanceCall,
  startRemittanceStack,
  waitForRemittance,
  walletRemittance,
  type RemittanceStack,
} from '../support/remittance-stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { captureHistory } from '../support/history-capture';

let env: TestWorkflowEnvironment;
let db: Db;
let stack: RemittanceStack;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  db = connectTestDatabase();
  stack = await startRemittanceStack(env, db);
});

afterAll(async () => {
  await stack?.close();
  await db?.destroy();
  await env?.teardown();
});

beforeEach(() => {
  stack.sandbox.admin.reset();
  stack.settings.timing.quoteTtl = '5 minutes';
});

async function create(body: unknown, idempotencyKey?: string) {
  const created = await remittanceCall(
    stack,
    stack.operatorKey,
    'POST',
    '/v1/remittances',
    body,
    idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  );
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  return created.body as { remittanceId: string; status: string };
}

const view = async (remittanceId: string) =>
  (await remittanceCall(stack, stack.viewerKey, 'GET', `/v1/remittances/${remittanceId}`)).body;

/** Lets time-skipping run the workflow to its end (retry backoffs and timers skip). */
const finish = (remittanceId: string) =>
  env.client.workflow.getHandle(remittanceWorkflowId(remittanceId)).result();

/** Money the sandbox moved for this remittance: its buy and its remittance order. */
const movements = (remittanceId: string) =>
  stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(remittanceId));

async function activitiesRun(remittanceId: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(remittanceWorkflowId(remittanceId)).fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.activityTaskScheduledEventAttributes?.activityType?.name
      ? [event.activityTaskScheduledEventAttributes.activityType.name]
      : [],
  );
}

describe('quotes', () => {
  it('asks the gateway for one live rate in a short workflow of its own', async () => {
    const workflowId = remittanceQuoteWorkflowId(randomUUID());
    const { rate } = await env.client.workflow.execute<typeof remittanceQuote>('remittanceQuote', {
      taskQueue: stack.settings.taskQueue,
      workflowId,
      args: [{ baseCurrency: 'EUR' }],
    });
    expect(rate).toBeGreaterThan(27_000);
    await captureHistory(env.client, workflowId, 'eur-rate');
  });

  it('quotes a live rate for a base currency, with what a foreign amount would buy', async () => {
    const quote = await remittanceCall(
      stack,
      stack.viewerKey,
      'GET',
      '/v1/remittance-quotes?baseCurrency=EUR&foreignAmount=100.5',
    );
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ baseCurrency: 'EUR', exchangeCurrency: 'VND', validForSeconds: 300 });
    expect(quote.body.rate).toBeGreaterThan(27_000);
    expect(quote.body.exchangeAmount).toBe(Math.round(100.5 * quote.body.rate));
  });
});

describe('one step (autoCapture true)', () => {
  it('remits to a wallet: quote → verify → balance → buy → create; the create answer settles it', async () => {
    const body = walletRemittance('0912345678');
    const created = await create(body, 'wallet-one-step');
    expect(created.status).toBe('accepted');
    // The same Idempotency-Key replays the answer: one remittance, one workflow.
    const replay = await create(body, 'wallet-one-step');
    expect(replay.remittanceId).toBe(created.remittanceId);

    const row = await waitForRemittance(db, created.remittanceId);
    expect(row.status, String(row.status_reason)).toBe('succeeded');
    const shown = await view(created.remittanceId);
    const rate = shown.rateUsed.rate;
    expect(shown).toMatchObject({
      status: 'succeeded',
      requestType: 'remitToWallet',
      receiver: 'wallet ****5678',
      baseCurrency: 'USD',
      foreignAmount: 100,
      exchangeAmount: Math.round(100 * rate),
      amountSent: Math.round(100 * rate),
      rateUsed: { quoteSeq: 1 },
      quotes: [{ seq: 1, rate, used: true }],
      result: { resultCode: 0, source: 'create', transId: expect.any(String) },
      needsAttention: null,
    });
    // Receiver details never leave PostgreSQL through the API.
    expect(JSON.stringify(shown)).not.toContain('012345678901');
    expect(JSON.stringify(shown)).not.toContain('0912345678');

    expect(movements(created.remittanceId)).toEqual([
      expect.objectContaining({ orderId: `${created.remittanceId}-buy`, kind: 'buy', amount: 100 }),
      expect.objectContaining({ orderId: created.remittanceId, kind: 'remittance', outcome: 'succeeded' }),
    ]);
    expect(stack.sandbox.admin.balance('USD')).toBe(9_900);
    expect(await activitiesRun(created.remittanceId)).toEqual([
      'recordRemittanceStatus',
      'quoteRemittanceRate',
      'recordRemittanceStatus',
      'verifyRemittanceReceiver',
      'recordRemittanceStatus',
      'remittanceBalance',
      'recordRemittanceStatus',
      'buyForRemittance',
      'recordRemittanceStatus',
      'remittanceBalance',
      'recordRemittanceStatus',
      'createRemittanceOrder',
      'recordRemittanceStatus',
    ]);

    const list = await remittanceCall(stack, stack.viewerKey, 'GET', '/v1/remittances?status=succeeded');
    expect(list.body.remittances.map((entry: { remittanceId: string }) => entry.remittanceId)).toContain(
      created.remittanceId,
    );
    await captureHistory(env.client, remittanceWorkflowId(created.remittanceId), 'one-step-wallet');
  });

  it('remits a chosen VND amount to a bank account, without a wallet check', async () => {
    const created = await create(bankRemittance('0123456789', { amount: 6_000_000 }));
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row.status, String(row.status_reason)).toBe('succeeded');
    const shown = await view(created.remittanceId);
    expect(shown).toMatchObject({
      receiver: 'bank 970436 account ****6789',
      foreignAmount: 250.5,
      requestedAmount: 6_000_000,
      amountSent: 6_000_000,
      exchangeAmount: Math.round(250.5 * shown.rateUsed.rate),
    });
    expect(await activitiesRun(created.remittanceId)).not.toContain('verifyRemittanceReceiver');
    // The rest of the conversion stays in the merchant's VND balance.
    expect(stack.sandbox.admin.balance('VND')).toBe(shown.exchangeAmount - 6_000_000);
    await captureHistory(env.client, remittanceWorkflowId(created.remittanceId), 'one-step-bank');
  });
});

describe('two step (autoCapture false, wallet only)', () => {
  it('is authorized, waits for capture, and completes by IPN when the gateway captures it', async () => {
    const created = await create(walletRemittance('0912340001', { autoCapture: false }));
    await waitForRemittance(db, created.remittanceId, ['awaiting_capture']);
    expect(stack.sandbox.admin.captureRemittance(created.remittanceId)).toBe(true);
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row).toMatchObject({ status: 'succeeded', result_code: 0, result_source: 'ipn' });
    expect(await db('ipn_notifications').where({ order_id: created.remittanceId })).toHaveLength(1);
    await captureHistory(env.client, remittanceWorkflowId(created.remittanceId), 'two-step-captured-by-ipn');
  });
});

describe('receivers that cannot receive', () => {
  it.each(['1007', '4001', '4003'])('a wallet ending %s fails the check; nothing is bought', async (code) => {
    const created = await create(walletRemittance(`091234${code}`));
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row).toMatchObject({ status: 'failed', result_code: Number(code), exchange_amount: null });
    expect(row.status_reason).toContain('Nothing was bought');
    expect(movements(created.remittanceId)).toEqual([]);
    expect(stack.sandbox.admin.balance('USD')).toBe(10_000);
  });
});

describe('quotes age', () => {
  it('quotes again before buying when the wallet check outlived the quote; the rate used is shown', async () => {
    stack.settings.timing.quoteTtl = '1 second';
    // Wallet "0010": the first check answers 10; the retry comes 2 s later, after the quote expired.
    const created = await create(walletRemittance('0912340010'));
    expect(await finish(created.remittanceId)).toBe('succeeded');
    const shown = await view(created.remittanceId);
    expect(shown.quotes).toHaveLength(2);
    expect(shown.quotes.map((quote: { used: boolean }) => quote.used)).toEqual([false, true]);
    expect(shown.rateUsed).toMatchObject({ quoteSeq: 2, rate: shown.quotes[1].rate });
    expect(new Date(shown.quotes[1].quotedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(shown.quotes[0].quotedAt).getTime(),
    );
    expect(movements(created.remittanceId).filter((entry) => entry.kind === 'buy')).toHaveLength(1);
  });
});

describe('money is not lost between steps', () => {
  it('fails before buying when the foreign balance is short', async () => {
    stack.sandbox.admin.setBalance('USD', 50);
    const created = await create(walletRemittance());
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row.status).toBe('failed');
    expect(row.status_reason).toMatch(/Insufficient USD balance: 50 available, 100 needed/);
    expect(movements(created.remittanceId)).toEqual([]);
  });

  it('keeps the VND bought on record as needs_attention when create is refused', async () => {
    const created = await create(bankRemittance('0123451507'));
    expect(await finish(created.remittanceId)).toBe('needs_attention');
    const shown = await view(created.remittanceId);
    expect(shown).toMatchObject({
      status: 'needs_attention',
      exchangeAmount: Math.round(250.5 * shown.rateUsed.rate),
      result: { resultCode: 1507 },
    });
    expect(shown.needsAttention).toMatch(/stays in the merchant's VND balance/);
    const moved = movements(created.remittanceId);
    expect(moved.filter((entry) => entry.kind === 'buy')).toHaveLength(1);
    expect(moved.filter((entry) => entry.kind === 'remittance')).toEqual([
      expect.objectContaining({ outcome: 'failed', resultCode: 1507 }),
    ]);
    expect(stack.sandbox.admin.balance('VND')).toBe(shown.exchangeAmount);
  });

  it('the buy’s answer lost: the retry hears 40, the spec has no query of a buy, so an operator is asked; never a second buy', async () => {
    stack.sandbox.admin.setFaults({ operation: 'remittance.buy', dropResponse: true, times: 1 });
    const created = await create(bankRemittance());
    expect(await finish(created.remittanceId)).toBe('needs_attention');
    const shown = await view(created.remittanceId);
    expect(shown.needsAttention).toMatch(/gateway answered 40 .* to the buy/);
    const moved = movements(created.remittanceId);
    expect(moved.filter((entry) => entry.kind === 'buy')).toHaveLength(1);
    expect(moved.filter((entry) => entry.kind === 'remittance')).toEqual([]);
  });

  it('a pending remittance that finally fails is needs_attention, with the code from the IPN', async () => {
    const created = await create(walletRemittance('0912347099'));
    await waitForRemittance(db, created.remittanceId, ['awaiting_result']);
    stack.sandbox.admin.settlePending();
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row).toMatchObject({ status: 'needs_attention', result_code: 99, result_source: 'ipn' });
  });
});

describe('the result: IPN or poll', () => {
  it('arrives by IPN for a pending (7000) remittance', async () => {
    const created = await create(walletRemittance('0912347000'));
    await waitForRemittance(db, created.remittanceId, ['awaiting_result']);
    stack.sandbox.admin.settlePending();
    const row = await waitForRemittance(db, created.remittanceId);
    expect(row).toMatchObject({ status: 'succeeded', result_code: 0, result_source: 'ipn' });
  });

  it('is polled with api/query when the IPN is dropped', async () => {
    stack.sandbox.admin.setFaults({ operation: 'remittance.create', ipn: { drop: true } });
    const created = await create(walletRemittance('0912347000'));
    await waitForRemittance(db, created.remittanceId, ['awaiting_result']);
    stack.sandbox.admin.settlePending();
    const row = await waitForRemittance(db, created.remittanceId, undefined, {
      // Nothing will arrive: skip the notification wait so the workflow asks the gateway.
      whileWaiting: () => env.sleep('3 seconds'),
    });
    expect(row).toMatchObject({ status: 'succeeded', result_code: 0, result_source: 'poll' });
    expect(
      stack.sandbox.admin
        .ipnLog()
        .some((entry) => entry.orderId === created.remittanceId && entry.outcome === 'dropped'),
    ).toBe(true);
    expect(await db('ipn_notifications').where({ order_id: created.remittanceId })).toHaveLength(0);
  });
});
