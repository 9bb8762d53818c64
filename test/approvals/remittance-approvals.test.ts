/**
 * Nobody sends a remittance alone: over HTTP, with real workflows on the time-skipping server and the
 * sandbox gateway, under an APPROVAL_POLICY read from configuration. A database of the file's own keeps
 * the daily caps this file's alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { remittanceWorkflowId } from '../../contracts/remittances';
import { buyForRemittance, createRemittanceOrder } from '../../activities/remittances/remittances';
import type { GatewayClient } from '../../gateway';
import { eventsOf } from '../../db/events/events';
import { callApi } from '../support/api';
import { approvalWaitOf, gatewaySaw, TEST_APPROVAL_POLICY } from '../support/approvals';
import { useScratchDatabase } from '../support/database';
import { freshId } from '../support/ids';
import { testRemittanceSettings, walletRemittance } from '../support/remittance-stack';
import { startStack, type Stack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';

type Keys = 'maker' | 'makerTwin' | 'approverA' | 'approverB' | 'viewer' | 'capper';

const scratch = useScratchDatabase('remittance-approvals');
const t = {} as { env: TestWorkflowEnvironment; stack: Stack<Keys> };

beforeAll(async () => {
  t.env = await createTimeSkippingEnv();
  const taskQueue = `remittance-approvals-${freshId('', 8)}`;
  t.stack = await startStack(t.env, scratch.db, {
    taskQueue,
    keys: {
      maker: { name: 'Trần Văn Remit', roles: ['remittance'] },
      // The maker's second key: another case, the decomposed Unicode form, a double space; one person.
      makerTwin: { name: 'TRẦN  VĂN REMIT'.normalize('NFD'), roles: ['payouts-approver'] },
      approverA: { name: 'approver a', roles: ['payouts-approver'] },
      approverB: { name: 'approver b', roles: ['payouts-approver'] },
      viewer: { name: 'viewer', roles: ['viewer'] },
      capper: { name: 'capper', roles: ['remittance'] },
    },
    sandbox: { balances: { VND: 0, USD: 100_000 }, timing: { pendingSettleMs: 60_000 } },
    app: { remittance: testRemittanceSettings(taskQueue), approvals: { policy: TEST_APPROVAL_POLICY } },
  });
});

afterAll(async () => {
  await t.stack?.close();
  await t.env?.teardown();
});

async function remit(extra: Record<string, unknown>, key = t.stack.maker) {
  const created = await callApi(
    t.stack.api,
    key,
    'POST',
    '/v1/remittances',
    walletRemittance(undefined, { orderInfo: `family ${freshId('', 6)}`, ...extra }),
    { 'idempotency-key': freshId('rmt-apv-') },
  );
  return { remittanceId: created.body.remittanceId as string, created };
}

const decide = (key: string, id: string, decision: 'approve' | 'reject') =>
  callApi(t.stack.api, key, 'POST', `/v1/approvals/remittance/${id}/${decision}`, {});

const remittanceOf = async (id: string) =>
  (await callApi(t.stack.api, t.stack.maker, 'GET', `/v1/remittances/${id}`)).body;

const until = (id: string, status: string) =>
  eventually(async () => {
    const view = await remittanceOf(id);
    if (view.status !== status) throw new Error(`${id} is ${view.status}, not ${status}`);
    return view;
  });

/** Every gateway order of a remittance starts with its id (`<id>`, `<id>-verify`, `<id>-buy`). */
const movements = (id: string) => gatewaySaw(t.stack.sandbox, id).movements;
const gatewayCallsFor = (id: string) => gatewaySaw(t.stack.sandbox, id).calls;

const waitingWorkflow = (id: string) => approvalWaitOf(t.env.client, remittanceWorkflowId(id));

describe('remittances under the approval policy', () => {
  it('a remittance key alone cannot send above the policy: weighed at the quote plus 5%, it waits and nothing reaches the gateway', async () => {
    const { remittanceId, created } = await remit({ foreignAmount: 300 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.status).toBe('awaiting_approval');

    const waiting = await waitingWorkflow(remittanceId);
    expect(waiting.state).toMatchObject({ status: 'requested', approvers: 2, approvedBy: [] });
    expect(waiting.currentDetails).toMatch(/^Waiting for approval: 0 of 2 approvers/);

    // The same cached rate the quotes page reads.
    const quote = await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/remittance-quotes?baseCurrency=USD');
    const inbox = await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/approvals?kind=remittance');
    expect(inbox.status).toBe(200);
    expect(inbox.body.approvals.find((item: { id: string }) => item.id === remittanceId)).toMatchObject({
      kind: 'remittance',
      status: 'requested',
      amount: Math.ceil(Math.round(300 * quote.body.rate) * 1.05),
      receiver: 'wallet ****5678',
      description: expect.stringContaining('300 USD'),
      requestedBy: expect.stringMatching(/^Trần Văn Remit-/),
      requiredApprovers: 2,
    });
    expect(JSON.stringify(inbox.body)).not.toContain('0912345678');

    expect((await remittanceOf(remittanceId)).status).toBe('awaiting_approval');
    expect(gatewayCallsFor(remittanceId)).toEqual([]);
    expect(movements(remittanceId)).toEqual([]);
    const events = await eventsOf(scratch.db, 'approval', `remittance:${remittanceId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested']);
  });

  it('the maker cannot approve their own remittance, not with a second key of the same person', async () => {
    const { remittanceId } = await remit({ amount: 2_000_000 });
    await waitingWorkflow(remittanceId);
    const own = await decide(t.stack.makerTwin, remittanceId, 'approve');
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('own_request');
    expect((await decide(t.stack.maker, remittanceId, 'approve')).status).toBe(403);
    expect((await decide(t.stack.viewer, remittanceId, 'approve')).status).toBe(403);
    expect((await waitingWorkflow(remittanceId)).state.approvedBy).toEqual([]);
    expect((await remittanceOf(remittanceId)).status).toBe('awaiting_approval');
    expect(gatewayCallsFor(remittanceId)).toEqual([]);
  });

  it('once another person approves, it is bought and sent once', async () => {
    const { remittanceId } = await remit({ amount: 2_000_000 });
    await waitingWorkflow(remittanceId);
    expect(gatewayCallsFor(remittanceId)).toEqual([]);
    const approved = await decide(t.stack.approverA, remittanceId, 'approve');
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
    const done = await until(remittanceId, 'succeeded');
    expect(done.amountSent).toBe(2_000_000);
    const moved = movements(remittanceId);
    expect(moved.filter((entry) => entry.orderId === `${remittanceId}-buy`)).toHaveLength(1);
    expect(moved.filter((entry) => entry.orderId === remittanceId)).toHaveLength(1);
    const events = await eventsOf(scratch.db, 'approval', `remittance:${remittanceId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.approved']);
  });

  it('a rejected remittance ends rejected: nothing quoted, bought or sent', async () => {
    const { remittanceId } = await remit({ amount: 2_000_000 });
    await waitingWorkflow(remittanceId);
    const rejected = await decide(t.stack.approverB, remittanceId, 'reject');
    expect([rejected.status, rejected.body.status]).toEqual([200, 'rejected']);
    const view = await until(remittanceId, 'rejected');
    expect(view.statusReason).toContain('nothing was bought');
    expect(gatewayCallsFor(remittanceId)).toEqual([]);
    expect(movements(remittanceId)).toEqual([]);
    const events = await eventsOf(scratch.db, 'approval', `remittance:${remittanceId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.rejected']);
  });

  it('over the maker’s daily cap: 422 naming the cap, and nothing recorded', async () => {
    const first = await remit({ foreignAmount: 1_000, amount: 25_000_000 }, t.stack.capper);
    expect(first.created.status, JSON.stringify(first.created.body)).toBe(201);
    const mine = () =>
      scratch.db('remittances').where({ created_by: first.created.body.createdBy }).pluck('remittance_id');
    const before = await mine();

    const over = await remit({ amount: 6_000_000 }, t.stack.capper);
    expect(over.created.status).toBe(422);
    expect(over.created.body.error).toMatchObject({
      code: 'daily_cap_exceeded',
      problems: [{ field: 'body.amount', rule: 'approvalPolicy.kinds.remittance.perMakerDailyVnd' }],
    });
    expect(over.created.body.error.message).toContain('perMakerDailyVnd');
    expect(await mine()).toEqual(before);
    // Weighed from its foreign amount (no VND amount given), the refusal names that field.
    const weighed = await remit({ foreignAmount: 300 }, t.stack.capper);
    expect(weighed.created.status).toBe(422);
    expect(weighed.created.body.error.problems).toMatchObject([
      { field: 'body.foreignAmount', rule: 'approvalPolicy.kinds.remittance.perMakerDailyVnd' },
    ]);
    expect(await mine()).toEqual(before);
    expect(
      await scratch.db('approvals').where({ kind: 'remittance', requested_by: first.created.body.createdBy }),
    ).toHaveLength(1);
  });

  it('the worker buys and sends nothing for a remittance whose approval is not approved, whatever its workflow says', async () => {
    const { remittanceId } = await remit({ amount: 2_000_000 });
    await waitingWorkflow(remittanceId);
    // Any use of the gateway fails the test: the refusal must come first.
    const gateway = new Proxy({} as GatewayClient, {
      get: () => {
        throw new Error('the gateway was used');
      },
    });
    const deps = { db: scratch.db, gateway, remittanceIpnUrl: 'http://unused' };
    await expect(
      buyForRemittance(deps, { remittanceId, quoteSeq: 1, foreignAmount: 100, rate: 25_400 }),
    ).rejects.toMatchObject({ type: 'approval_not_pending' });
    await expect(createRemittanceOrder(deps, { remittanceId, amount: 2_000_000 })).rejects.toMatchObject({
      type: 'approval_not_pending',
    });
    expect(gatewayCallsFor(remittanceId)).toEqual([]);
  });
});
