/**
 * The disbursement desk (DISBURSEMENT_DESK) through the API, on the dev server, against the sandbox: payouts
 * the gateway settles at once end in the desk's chunks without a workflow of their own; one answered pending
 * goes on in its own workflow and is settled by its notification; every order is paid at most once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiSettingsFrom } from '../../api/settings';
import { workflowExists } from '../../api/http/resumable';
import { deskChunkId, disbursementDeskWorkflowId, disbursementWorkflowId } from '../../contracts/payouts';
import { loadConfig } from '../../platform/config';
import { apiCall } from '../support/payout-stack';
import { testPayoutSettings } from '../support/settings';
import { useStack } from '../support/stack';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { captureHistory } from '../support/history-capture';
import { gatewaySaw, TEST_APPROVAL_POLICY } from '../support/approvals';

const taskQueue = `desk-${randomUUID()}`;
const deskId = disbursementDeskWorkflowId(taskQueue);
const payouts = testPayoutSettings(taskQueue);
const fixture = useStack(connectDevServer, {
  taskQueue,
  keys: {
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 } },
  app: {
    payouts: { ...payouts, disbursement: { ...payouts.disbursement, desk: true } },
    // Free below 1,000,000 VND, one approver from there.
    approvals: { policy: TEST_APPROVAL_POLICY },
  },
});

const wallet = (walletId: string) => ({ walletId, walletName: 'Nguyen Van B', personalId: null });

async function disburse(walletId: string, amount = 250_000) {
  const disbursementId = `dd_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const created = await apiCall(
    fixture,
    fixture.makerKey,
    'POST',
    '/v1/disbursements',
    JSON.stringify({ disbursementId, amount, wallet: wallet(walletId) }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return disbursementId;
}

const view = async (disbursementId: string) =>
  (await apiCall(fixture, fixture.makerKey, 'GET', `/v1/disbursements/${disbursementId}`)).body;

const finalView = (disbursementId: string) =>
  eventually(async () => {
    const body = await view(disbursementId);
    if (['succeeded', 'failed', 'needs_attention'].includes(body.status)) return body;
    throw new Error(`${disbursementId} is ${body.status}`);
  });

const paid = (orderId: string) =>
  fixture.sandbox.admin
    .ledger()
    .filter((entry) => entry.orderId === orderId && entry.outcome === 'succeeded');

const hasOwnWorkflow = (disbursementId: string) =>
  workflowExists(fixture.env.client, disbursementWorkflowId(disbursementId));

describe('the disbursement desk', () => {
  it('pays payouts answered at once in its chunks, each once, with no workflow of their own', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => disburse(`09${String(i).padStart(6, '0')}55`)),
    );
    const refused = await disburse('0900001007');
    for (const id of ids) {
      const done = await finalView(id);
      expect(done).toMatchObject({ status: 'succeeded', resultCode: 0, workflowId: deskId });
      expect(done.transId).toBeTruthy();
      expect(done.deskChunk).toMatch(new RegExp(`^${deskChunkId(deskId, 0).replace(/0$/, '')}\\d+$`));
      expect(paid(id)).toHaveLength(1);
      expect(await hasOwnWorkflow(id)).toBe(false);
    }
    // Their notifications (the sandbox sends one for every pay) are delivered: none is left in the inbox.
    await eventually(async () => {
      const waiting = await fixture
        .db('ipn_notifications')
        .whereIn('order_id', ids)
        .whereNull('signalled_at');
      expect(waiting).toEqual([]);
    });
    expect(await finalView(refused)).toMatchObject({ status: 'failed', resultCode: 1007 });
    expect(paid(refused)).toEqual([]);
    expect(await hasOwnWorkflow(refused)).toBe(false);
    // One desk for the queue, still running for the next payouts.
    const desk = await fixture.env.client.workflow.getHandle(deskId).describe();
    expect(desk.status.name).toBe('RUNNING');
    await captureHistory(fixture.env.client, deskId, 'first-chunks-scheduled', { stillOpen: true });
  });

  it('hands a payout answered pending to a workflow of its own, which its notification settles', async () => {
    const id = await disburse('0911117000');
    const done = await finalView(id);
    expect(done).toMatchObject({ status: 'succeeded', workflowId: disbursementWorkflowId(id) });
    expect(done.deskChunk).toBeTruthy();
    expect(paid(id)).toHaveLength(1);
    const own = await fixture.env.client.workflow.getHandle(disbursementWorkflowId(id)).result();
    expect(own).toMatchObject({ status: 'succeeded' });
  });

  it('leaves a payout that needs an approver to a workflow of its own, which waits and sends nothing', async () => {
    const id = await disburse('0912345678', 2_000_000);
    const waiting = await eventually(async () => {
      const body = await view(id);
      expect(body.status).toBe('awaiting_approval');
      return body;
    });
    expect(waiting).toMatchObject({ workflowId: disbursementWorkflowId(id), deskChunk: null });
    expect(await hasOwnWorkflow(id)).toBe(true);
    expect(gatewaySaw(fixture.sandbox, id)).toEqual({ movements: [], calls: [] });
    await fixture.env.client.workflow.getHandle(disbursementWorkflowId(id)).terminate('test over');
  });

  it('is on unless turned off or pay has a rate limit', () => {
    const settingsWith = (env: Record<string, string>) =>
      apiSettingsFrom(
        loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32), ...env }),
      ).payouts.disbursement.desk;
    expect(settingsWith({})).toBe(true);
    expect(settingsWith({ DISBURSEMENT_DESK: 'true' })).toBe(true);
    expect(settingsWith({ DISBURSEMENT_DESK: 'false' })).toBe(false);
    expect(settingsWith({ DISBURSEMENT_DESK: 'true', GATEWAY_RATE_LIMITS: 'disbursement.pay=5' })).toBe(
      false,
    );
    expect(() => settingsWith({ DISBURSEMENT_DESK: 'yes' })).toThrow(/DISBURSEMENT_DESK: true or false/);
  });
});
