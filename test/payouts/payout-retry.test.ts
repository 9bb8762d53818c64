/**
 * Retrying a run's failed rows, through the API on the time-skipping server and the sandbox: the retry is a
 * linked child run of exactly the failed rows, edited as a draft, approved like any run, and each row is paid
 * once across the family; every row's outcome is one event in the events API. A database of the file's own:
 * the last test lifts the database's guard to show the workflow's own refuses the same double payment.
 */
import { describe, expect, it } from 'vitest';
import { apiCall, payoutFile, waitForRunStatus, type PayoutStack } from '../support/payout-stack';
import { freshId } from '../support/ids';
import { useScratchStack } from '../support/stack';
import { eventually } from '../support/wait';

type Keys = 'makerKey' | 'approverKey' | 'viewerKey';

const t = useScratchStack<Keys>('payout_retry', {
  taskQueue: `payout-retry-${freshId('', 8)}`,
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
    viewerKey: { name: 'viewer', roles: ['viewer'] },
  },
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  workerTuning: { maxCachedWorkflows: 0 },
});

const stack = () => t.stack as unknown as PayoutStack;
const call = (key: string, method: string, path: string, body?: unknown) =>
  apiCall(stack(), key, method, path, body === undefined ? undefined : JSON.stringify(body));
const maker = (method: string, path: string, body?: unknown) => call(t.stack.makerKey, method, path, body);

/**
 * Receivers by row: 1 and 4 are refused at payment (1008, over the receiving limit), 2 is ineligible (4001,
 * restricted), 3 and 5 are paid.
 */
const WALLETS = ['0900001008', '0900004001', '0912345678', '0900001008', '0912340000'];
const PAID_WALLET = '0912345678';

async function reconciledRun(prefix: string): Promise<{ runId: string; ids: string[] }> {
  const csv = payoutFile(prefix, 5, (index) => WALLETS[index]!);
  const created = await apiCall(
    stack(),
    t.stack.makerKey,
    'POST',
    '/v1/payout-runs?fileName=salaries.csv',
    csv,
    'text/csv',
  );
  expect(created.status).toBe(201);
  const runId = created.body.runId as string;
  await approveAndSettle(runId);
  return { runId, ids: WALLETS.map((_, index) => `${prefix}-${index + 1}`) };
}

async function approveAndSettle(runId: string) {
  const approved = await call(t.stack.approverKey, 'POST', `/v1/payout-runs/${runId}/approve`, {});
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return waitForRunStatus(t.db, runId, ['reconciled', 'needs_attention']);
}

/** Every movement the sandbox made for a payout id, paid or refused, across every batch. */
const paymentsOf = (payoutId: string) =>
  t.stack.sandbox.admin
    .ledger()
    .filter((entry) => entry.itemId === payoutId && entry.outcome === 'succeeded');

/** Every payout_item event the events API lists, in feed order. */
interface ItemEvent {
  type: string;
  object: { type: string; id: string };
  data: Record<string, unknown>;
}

async function itemEvents(): Promise<ItemEvent[]> {
  const events: ItemEvent[] = [];
  let after: string | null = null;
  for (;;) {
    const query = `type=payout_item.succeeded&type=payout_item.failed&limit=500${after ? `&after=${after}` : ''}`;
    const page = await call(t.stack.viewerKey, 'GET', `/v1/events?${query}`);
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    if (!page.body.hasMore) return events;
    after = page.body.nextCursor;
  }
}

describe('retrying failed rows', () => {
  it('makes a child of exactly the failed rows, pays an edited row with the edit, each row once, and adds up', async () => {
    const prefix = freshId('retry-');
    const { runId, ids } = await reconciledRun(prefix);
    const parent = await maker('GET', `/v1/payout-runs/${runId}`);
    expect(parent.body).toMatchObject({
      status: 'reconciled',
      children: [],
      parentRunId: null,
      rootRunId: runId,
    });

    // Each row's outcome is one event, with the gateway's code and payrun's reason for a failed one.
    const parentEvents = await eventually(async () => {
      const mine = (await itemEvents()).filter((event) => event.data.runId === runId);
      expect(mine).toHaveLength(5);
      return mine;
    });
    const eventOf = (payoutId: string) => parentEvents.filter((event) => event.object.id === payoutId);
    for (const id of ids) expect(eventOf(id)).toHaveLength(1);
    expect(eventOf(ids[0]!)[0]).toMatchObject({
      type: 'payout_item.failed',
      object: { type: 'payout_item', id: ids[0] },
      data: {
        runId,
        rootRunId: runId,
        itemNo: 2,
        payoutId: ids[0],
        orderId: `${runId}-b001`,
        amount: 10_000,
        receiverLabel: 'wallet ****1008',
        state: 'FAILED',
        resultCode: 1008,
        message: expect.any(String),
        reason: {
          en: expect.stringContaining('receiving limit'),
          vi: expect.stringContaining('hạn mức nhận'),
        },
      },
    });
    expect(eventOf(ids[1]!)[0]).toMatchObject({
      type: 'payout_item.failed',
      data: { state: 'INELIGIBLE', resultCode: 4001, reason: { en: expect.stringContaining('restricted') } },
    });
    expect(eventOf(ids[2]!)[0]).toMatchObject({
      type: 'payout_item.succeeded',
      data: { state: 'SUCCEEDED', resultCode: 0, reason: null, transId: expect.any(String), amount: 10_002 },
    });

    // The retry: a draft child of exactly rows 1, 2 and 4.
    const retried = await maker('POST', `/v1/payout-runs/${runId}/retry-failed`, {});
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const childId = retried.body.runId as string;
    expect(retried.body).toMatchObject({
      status: 'draft',
      parentRunId: runId,
      rootRunId: runId,
      rowCount: 3,
    });
    const draftItems = await maker('GET', `/v1/payout-runs/${childId}/items`);
    expect(draftItems.body.items.map((item: { payoutId: string }) => item.payoutId)).toEqual([
      ids[0],
      ids[1],
      ids[3],
    ]);
    // One open retry per family; a draft is no reconciled run to retry.
    const again = await maker('POST', `/v1/payout-runs/${runId}/retry-failed`, {});
    expect([again.status, again.body.error.code]).toEqual([409, 'retry_already_open']);
    const ofDraft = await maker('POST', `/v1/payout-runs/${childId}/retry-failed`, {});
    expect([ofDraft.status, ofDraft.body.error.code]).toEqual([409, 'run_not_reconciled']);

    // A row that was paid cannot be slipped into the draft: the database refuses a second live item.
    await expect(
      t.db('payout_items').insert({
        run_id: childId,
        batch_id: `${childId}-b001`,
        payout_id: ids[2],
        row_number: 4,
        wallet_id: PAID_WALLET,
        wallet_name: 'Receiver 3',
        amount: 10_002,
        state: 'QUEUED',
      }),
    ).rejects.toMatchObject({ constraint: 'payout_items_one_live_payout' });

    // Edits are checked as uploaded rows are, and a refused one changes nothing.
    const badId = await maker('PATCH', `/v1/payout-runs/${childId}/items/2`, { personalId: 'ABC' });
    expect(badId.status).toBe(400);
    expect(badId.body.error.problems).toEqual([
      expect.objectContaining({ field: 'personalId', rule: 'digits_max_12' }),
    ]);
    const tooSmall = await maker('PATCH', `/v1/payout-runs/${childId}/items/2`, { amount: 10 });
    expect(tooSmall.status).toBe(400);
    const edited = await maker('PATCH', `/v1/payout-runs/${childId}/items/2`, {
      walletId: PAID_WALLET,
      amount: 20_000,
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.items[0]).toMatchObject({ itemNo: 2, walletId: PAID_WALLET, amount: 20_000 });
    const removed = await maker('PATCH', `/v1/payout-runs/${childId}/items/3`, { remove: true });
    expect(removed.body.items.map((item: { itemNo: number }) => item.itemNo)).toEqual([2, 5]);

    const submitted = await maker('POST', `/v1/payout-runs/${childId}/submit`, {});
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body).toMatchObject({ status: 'awaiting_approval', rowCount: 2, totalAmount: 30_003 });
    const lateEdit = await maker('PATCH', `/v1/payout-runs/${childId}/items/5`, { amount: 5_000 });
    expect([lateEdit.status, lateEdit.body.error.code]).toEqual([409, 'run_not_draft']);
    // Nothing is paid before a second person approves.
    expect(t.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(childId))).toEqual([]);
    const child = await approveAndSettle(childId);
    expect(child.status, String(child.status_reason)).toBe('reconciled');

    // The edited row was paid with the edit, once; no row of the family was paid twice.
    expect(paymentsOf(ids[0]!)).toEqual([
      expect.objectContaining({ orderId: `${childId}-b001`, amount: 20_000 }),
    ]);
    for (const id of ids) expect(paymentsOf(id).length).toBeLessThanOrEqual(1);
    expect(paymentsOf(ids[3]!)).toEqual([]);

    const parentNow = await maker('GET', `/v1/payout-runs/${runId}`);
    expect(parentNow.body.children).toEqual([
      expect.objectContaining({ runId: childId, status: 'reconciled', rowCount: 2 }),
    ]);
    const combined = await maker('GET', `/v1/payout-runs/${runId}/reconciliation`);
    expect(combined.status).toBe(200);
    expect(
      combined.body.rows.map((row: Record<string, unknown>) => [
        row.itemNo,
        row.outcome,
        row.paidBy ?? row.runId,
      ]),
    ).toEqual([
      [2, 'paid', childId],
      [3, 'failed', runId],
      [4, 'paid', runId],
      [5, 'failed', childId],
      [6, 'paid', runId],
    ]);
    const { totals } = combined.body;
    expect(totals).toEqual({
      rows: { count: 5, amount: 50_010 },
      paid: { count: 3, amount: 30_006, paidAmount: 40_006 },
      failed: { count: 2, amount: 20_004 },
      pending: { count: 0, amount: 0 },
    });
    expect(totals.paid.count + totals.failed.count + totals.pending.count).toBe(totals.rows.count);
    expect(totals.paid.amount + totals.failed.amount + totals.pending.amount).toBe(totals.rows.amount);

    // The retry's outcomes are events too: the payout id failed in the parent, then was paid by its child.
    const events = await eventually(async () => {
      const mine = (await itemEvents()).filter((event) => event.object.id === ids[0]);
      expect(mine).toHaveLength(2);
      return mine;
    });
    expect(events.map((event) => [event.type, event.data.runId, event.data.amount])).toEqual([
      ['payout_item.failed', runId, 10_000],
      ['payout_item.succeeded', childId, 20_000],
    ]);
    expect(events[1]!.data).toMatchObject({ rootRunId: runId, orderId: `${childId}-b001` });
  }, 120_000);

  it('a retry of a retry whose batch holds a row the family already paid sends nothing, even past the database', async () => {
    const prefix = freshId('forced-');
    const { runId, ids } = await reconciledRun(prefix);
    const child = (await maker('POST', `/v1/payout-runs/${runId}/retry-failed`, {})).body.runId as string;
    expect((await maker('POST', `/v1/payout-runs/${child}/submit`, {})).status).toBe(200);
    expect((await approveAndSettle(child)).status).toBe('reconciled');
    // Rows 1, 2 and 4 failed again in the child; its own retry (a grandchild) keeps the family's root.
    const grandchild = await maker('POST', `/v1/payout-runs/${child}/retry-failed`, {});
    expect(grandchild.body).toMatchObject({
      status: 'draft',
      parentRunId: child,
      rootRunId: runId,
      rowCount: 3,
    });
    const grandchildId = grandchild.body.runId as string;

    // Forced past the database's guard (lifted for this file's own database only): a row paid by the root.
    await t.db.raw('drop index payout_items_one_live_payout');
    try {
      await t.db('payout_items').insert({
        run_id: grandchildId,
        batch_id: `${grandchildId}-b001`,
        payout_id: ids[2],
        row_number: 4,
        wallet_id: PAID_WALLET,
        wallet_name: 'Receiver 3',
        amount: 10_002,
        state: 'QUEUED',
      });
      expect((await maker('POST', `/v1/payout-runs/${grandchildId}/submit`, {})).status).toBe(200);
      const run = await approveAndSettle(grandchildId);
      expect(run.status).toBe('needs_attention');
      const batch = await t
        .db('payout_batches')
        .where({ batch_id: `${grandchildId}-b001` })
        .first();
      expect(batch.status).toBe('failed');
      expect(batch.status_reason).toContain(ids[2]);
      // Nothing of that batch reached the gateway: the paid row was paid once, by the root.
      expect(
        t.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(grandchildId)),
      ).toEqual([]);
      expect(paymentsOf(ids[2]!)).toEqual([expect.objectContaining({ orderId: `${runId}-b001` })]);
    } finally {
      await t.db('payout_items').where({ run_id: grandchildId, payout_id: ids[2] }).delete();
      await t.db.raw(
        "create unique index payout_items_one_live_payout on payout_items (payout_id) where state not in ('INELIGIBLE', 'FAILED', 'CANCELLED')",
      );
    }
  }, 120_000);
});
