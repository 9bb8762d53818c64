/**
 * Nobody pays a single disbursement or a refund alone: over HTTP, with real workflows on the time-skipping server and
 * the sandbox gateway, under an APPROVAL_POLICY read from configuration. A database of the file's own keeps
 * the daily caps this file's alone.
 */
import { describe, expect, it } from 'vitest';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { decisionSigner } from '../../api/http/decision-signer';
import { approvalDecisionUpdate, approvalStateQuery } from '../../contracts/approvals';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { eventsOf } from '../../db/events/events';
import { callApi } from '../support/api';
import { captureHistory } from '../support/history-capture';
import { approvalWaitOf, gatewaySaw, TEST_APPROVAL_POLICY } from '../support/approvals';
import { freshId } from '../support/ids';
import { useScratchStack } from '../support/stack';
import { testDataConverter } from '../support/temporal';
import { eventually } from '../support/wait';

type Keys =
  | 'maker'
  | 'makerTwin'
  | 'approverA'
  | 'approverATwin'
  | 'approverB'
  | 'viewer'
  | 'capper'
  | 'cashier'
  | 'cashierTwin';

const taskQueue = `approvals-${freshId('', 8)}`;
const t = useScratchStack<Keys>('approvals', {
  taskQueue,
  keys: {
    maker: { name: 'Nguyễn Thị Maker', roles: ['payouts-maker'] },
    // The maker's second key: another case, the decomposed Unicode form, a double space; one person.
    makerTwin: { name: 'NGUYỄN  THỊ MAKER'.normalize('NFD'), roles: ['payouts-approver'] },
    approverA: { name: 'approver a', roles: ['payouts-approver'] },
    approverATwin: { name: 'Approver A', roles: ['payouts-approver'] },
    approverB: { name: 'approver b', roles: ['payouts-approver'] },
    viewer: { name: 'viewer', roles: ['viewer'] },
    capper: { name: 'capper', roles: ['payouts-maker'] },
    cashier: { name: 'cashier', roles: ['payments'] },
    cashierTwin: { name: 'Cashier', roles: ['payouts-approver'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: TEST_APPROVAL_POLICY } },
});

const wallet = { walletId: '0912345678', walletName: 'Nguyen Van B', personalId: null };

async function disburse(amount: number, key = t.stack.maker) {
  const disbursementId = freshId('d-apv-');
  const created = await callApi(t.stack.api, key, 'POST', '/v1/disbursements', {
    disbursementId,
    amount,
    description: `rent ${disbursementId}`,
    wallet,
  });
  return { disbursementId, created };
}

const decide = (key: string, id: string, decision: 'approve' | 'reject', note?: string) =>
  callApi(t.stack.api, key, 'POST', `/v1/approvals/disbursement/${id}/${decision}`, note ? { note } : {});

const disbursementOf = async (id: string) =>
  (await callApi(t.stack.api, t.stack.maker, 'GET', `/v1/disbursements/${id}`)).body;

const until = (id: string, status: string) =>
  eventually(async () => {
    const view = await disbursementOf(id);
    if (view.status !== status) throw new Error(`${id} is ${view.status}, not ${status}`);
    return view;
  });

const movements = (id: string) => gatewaySaw(t.stack.sandbox, id).movements;
const gatewayCallsFor = (id: string) => gatewaySaw(t.stack.sandbox, id).calls;

/** The workflow's own view of its approval, once it waits for one. */
const waitingWorkflow = (id: string) => approvalWaitOf(t.env.client, disbursementWorkflowId(id));

describe('single disbursements under the approval policy', () => {
  it('a maker alone cannot pay above the policy: it waits for approval and nothing reaches the gateway', async () => {
    const { disbursementId, created } = await disburse(6_000_000);
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('awaiting_approval');

    const waiting = await waitingWorkflow(disbursementId);
    expect(waiting.state).toMatchObject({ status: 'requested', approvers: 2, approvedBy: [] });
    // What the Temporal UI shows of the workflow.
    expect(waiting.currentDetails).toMatch(/^Waiting for approval: 0 of 2 approvers/);

    const inbox = await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/approvals?kind=disbursement');
    expect(inbox.status).toBe(200);
    expect(inbox.body.approvals.find((item: { id: string }) => item.id === disbursementId)).toMatchObject({
      kind: 'disbursement',
      status: 'requested',
      amount: 6_000_000,
      receiver: 'wallet ****5678',
      description: `rent ${disbursementId}`,
      requestedBy: expect.stringMatching(/^Nguyễn Thị Maker-/),
      requiredApprovers: 2,
      decisions: [],
      expiresAt: expect.any(String),
    });
    expect(JSON.stringify(inbox.body)).not.toContain('0912345678');

    expect((await disbursementOf(disbursementId)).status).toBe('awaiting_approval');
    expect(movements(disbursementId)).toEqual([]);
    expect(gatewayCallsFor(disbursementId)).toEqual([]);
    const events = await eventsOf(t.db, 'approval', `disbursement:${disbursementId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested']);
  });

  it('pays below the first band at once, with nobody else involved', async () => {
    const { disbursementId, created } = await disburse(900_000);
    expect(created.body.status).toBe('queued');
    await until(disbursementId, 'succeeded');
    expect(movements(disbursementId)).toHaveLength(1);
    await captureHistory(t.env.client, disbursementWorkflowId(disbursementId), 'approved-by-two-paid');
  });

  it('the maker cannot approve their own request, not with a second key of the same person', async () => {
    const { disbursementId } = await disburse(2_000_000);
    await waitingWorkflow(disbursementId);
    const own = await decide(t.stack.makerTwin, disbursementId, 'approve');
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('own_request');
    expect((await decide(t.stack.maker, disbursementId, 'approve')).status).toBe(403);
    expect((await decide(t.stack.viewer, disbursementId, 'approve')).status).toBe(403);
    expect((await waitingWorkflow(disbursementId)).state.approvedBy).toEqual([]);
    expect((await disbursementOf(disbursementId)).status).toBe('awaiting_approval');
    expect(movements(disbursementId)).toEqual([]);
  });

  it('an approval sent straight to Temporal, not through the API, is refused and audited; the item still waits', async () => {
    const { disbursementId } = await disburse(2_000_000);
    await waitingWorkflow(disbursementId);
    const workflowId = disbursementWorkflowId(disbursementId);
    // The attacker: its own client on the frontend, with the codec, naming an approver that exists.
    const attacker = new Client({
      connection: t.env.client.connection,
      namespace: t.env.client.options.namespace,
      dataConverter: testDataConverter,
    });
    const by = { keyId: 'k-forged', name: 'approver b' };
    const refusal = (proof?: unknown) =>
      attacker.workflow
        .getHandle(workflowId)
        .executeUpdate(approvalDecisionUpdate, {
          args: [
            { decision: 'approve', by: { ...by, roles: ['payouts-approver'] }, ...(proof ? { proof } : {}) },
          ],
        })
        .then(
          () => 'admitted',
          (error: WorkflowUpdateFailedError) => (error.cause as { type?: string }).type,
        );
    expect(await refusal()).toBe('decision_refused');
    const underAnotherKey = decisionSigner('not-the-decision-signing-key-0123456789')({
      subject: workflowId,
      action: 'approve',
      by,
    });
    expect(await refusal(underAnotherKey)).toBe('decision_refused');

    expect((await waitingWorkflow(disbursementId)).state.approvedBy).toEqual([]);
    expect((await disbursementOf(disbursementId)).status).toBe('awaiting_approval');
    expect(movements(disbursementId)).toEqual([]);
    const refused = await t
      .db('audit_log')
      .where({ target_type: 'approval', target_id: `disbursement:${disbursementId}`, outcome: 'refused' })
      .orderBy('id');
    expect(refused.map((entry) => [entry.action, entry.error_code, entry.details.reason])).toEqual([
      ['approval.approve', 'decision_refused', 'missing'],
      ['approval.approve', 'decision_refused', 'wrong_signature'],
    ]);
    // The API's own decision still counts.
    const approved = await decide(t.stack.approverA, disbursementId, 'approve');
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
    await until(disbursementId, 'succeeded');
    expect(movements(disbursementId)).toHaveLength(1);
  });

  it('two different people approve above the top band, then it is paid once', async () => {
    const { disbursementId } = await disburse(6_000_000);
    await waitingWorkflow(disbursementId);

    const first = await decide(t.stack.approverA, disbursementId, 'approve', 'invoice checked');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'requested', decisions: [{ decision: 'approve' }] });
    // The same person again, with the same key or another of theirs, is not a second approver.
    expect((await decide(t.stack.approverA, disbursementId, 'approve')).body.error.code).toBe(
      'approval_already_given',
    );
    expect((await decide(t.stack.approverATwin, disbursementId, 'approve')).body.error.code).toBe(
      'approval_already_given',
    );
    expect((await disbursementOf(disbursementId)).status).toBe('awaiting_approval');
    expect(movements(disbursementId)).toEqual([]);

    const second = await decide(t.stack.approverB, disbursementId, 'approve');
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('approved');
    await until(disbursementId, 'succeeded');
    expect(movements(disbursementId)).toHaveLength(1);

    const events = await eventsOf(t.db, 'approval', `disbursement:${disbursementId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.approved']);
    const audit = await t
      .db('audit_log')
      .where({ target_id: `disbursement:${disbursementId}` })
      .orderBy('id')
      .select('action', 'outcome', 'error_code');
    expect(audit.map((entry) => `${entry.action} ${entry.outcome} ${entry.error_code ?? ''}`.trim())).toEqual(
      [
        'approval.approve succeeded',
        'approval.approve refused approval_already_given',
        'approval.approve refused approval_already_given',
        'approval.approve succeeded',
      ],
    );
    const inbox = await callApi(
      t.stack.api,
      t.stack.viewer,
      'GET',
      '/v1/approvals?kind=disbursement&limit=200',
    );
    expect(inbox.body.approvals.map((item: { id: string }) => item.id)).not.toContain(disbursementId);
  });

  it('a rejected disbursement is never paid, and takes no later decision', async () => {
    const { disbursementId } = await disburse(2_000_000);
    await waitingWorkflow(disbursementId);
    const rejected = await decide(t.stack.approverA, disbursementId, 'reject', 'unknown receiver');
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    await until(disbursementId, 'rejected');
    const late = await decide(t.stack.approverB, disbursementId, 'approve');
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('approval_not_pending');
    expect(movements(disbursementId)).toEqual([]);
    expect(gatewayCallsFor(disbursementId)).toEqual([]);
    const events = await eventsOf(t.db, 'approval', `disbursement:${disbursementId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.rejected']);
    await captureHistory(t.env.client, disbursementWorkflowId(disbursementId), 'approval-rejected');
  });

  it('requests over the daily cap per maker are refused, even at once, and record nothing', async () => {
    // 30 million a day for one maker: of four 8-million requests sent together, three fit.
    const sent = await Promise.all(Array.from({ length: 4 }, () => disburse(8_000_000, t.stack.capper)));
    const accepted = sent.filter((one) => one.created.status === 201);
    const refused = sent.filter((one) => one.created.status !== 201);
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(1);
    const [over] = refused;
    expect(over!.created.status).toBe(422);
    expect(over!.created.body.error).toMatchObject({
      code: 'daily_cap_exceeded',
      problems: [{ field: 'body.amount', rule: 'approvalPolicy.kinds.disbursement.perMakerDailyVnd' }],
    });
    expect(over!.created.body.error.message).toContain('perMakerDailyVnd: 30000000 VND');
    expect(
      (await callApi(t.stack.api, t.stack.capper, 'GET', `/v1/disbursements/${over!.disbursementId}`)).status,
    ).toBe(404);
    expect(await t.db('approvals').where({ object_id: over!.disbursementId })).toEqual([]);
    expect(await t.db('gateway_order_ids').where({ object_id: over!.disbursementId })).toEqual([]);

    // A rejected request no longer counts against the cap.
    await waitingWorkflow(accepted[0]!.disbursementId);
    expect((await decide(t.stack.approverA, accepted[0]!.disbursementId, 'reject')).status).toBe(200);
    expect((await disburse(8_000_000, t.stack.capper)).created.status).toBe(201);
  });
});

describe('refunds under the approval policy', () => {
  /** A succeeded wallet payment of `amount`, made with the cashier's key. */
  async function paidPayment(amount: number) {
    const paymentId = freshId('p-apv-');
    const created = await callApi(t.stack.api, t.stack.cashier, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount,
    });
    expect(created.status).toBe(201);
    t.stack.sandbox.admin.approvePayment(paymentId);
    return eventually(async () => {
      const view = await callApi(t.stack.api, t.stack.cashier, 'GET', `/v1/payments/${paymentId}`);
      if (view.body.status !== 'succeeded') throw new Error(`${paymentId} is ${view.body.status}`);
      return view.body as { paymentId: string; refundableAmount: number };
    });
  }

  const refund = (paymentId: string, amount: number) =>
    callApi(t.stack.api, t.stack.cashier, 'POST', `/v1/payments/${paymentId}/refunds`, {
      amount,
      description: 'returned goods',
    });
  const decideRefund = (key: string, refundId: string, decision: 'approve' | 'reject') =>
    callApi(t.stack.api, key, 'POST', `/v1/approvals/refund/${refundId}/${decision}`, {});
  const refundIn = (paymentId: string, refundId: string, status: string) =>
    eventually(async () => {
      const { body } = await callApi(
        t.stack.api,
        t.stack.cashier,
        'GET',
        `/v1/payments/${paymentId}/refunds`,
      );
      const found = body.refunds.find((entry: { refundId: string }) => entry.refundId === refundId);
      if (found?.status !== status) throw new Error(`${refundId} is ${found?.status}, not ${status}`);
      return found;
    });
  const refundsSent = (paymentId: string) =>
    t.stack.sandbox.admin.requests().filter((entry) => entry.orderId?.startsWith(`${paymentId}-r`));
  const refundMovements = (paymentId: string) =>
    t.stack.sandbox.admin.ledger().filter((entry) => entry.kind === 'refund' && entry.refundOf === paymentId);
  const refundable = async (paymentId: string) =>
    (await callApi(t.stack.api, t.stack.cashier, 'GET', `/v1/payments/${paymentId}`)).body.refundableAmount;

  it('one payments key alone cannot refund above the policy; two other people approve, then it is refunded once', async () => {
    const payment = await paidPayment(8_000_000);
    const asked = await refund(payment.paymentId, 6_000_000);
    expect(asked.status).toBe(201);
    expect(asked.body.status).toBe('awaiting_approval');
    const refundId: string = asked.body.refundId;
    const waiting = await eventually(() =>
      t.env.client.workflow.getHandle(asked.body.workflowId).query(approvalStateQuery),
    );
    expect(waiting).toMatchObject({ status: 'requested', approvers: 2 });
    expect(refundsSent(payment.paymentId)).toEqual([]);

    const inbox = await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/approvals?kind=refund&limit=200');
    expect(inbox.body.approvals.find((item: { id: string }) => item.id === refundId)).toMatchObject({
      amount: 6_000_000,
      description: 'returned goods',
      requestedBy: expect.stringMatching(/^cashier-/),
    });

    expect((await decideRefund(t.stack.cashierTwin, refundId, 'approve')).body.error.code).toBe(
      'own_request',
    );
    expect((await decideRefund(t.stack.approverA, refundId, 'approve')).status).toBe(200);
    expect((await decideRefund(t.stack.approverATwin, refundId, 'approve')).body.error.code).toBe(
      'approval_already_given',
    );
    expect(refundsSent(payment.paymentId)).toEqual([]);
    expect((await decideRefund(t.stack.approverB, refundId, 'approve')).body.status).toBe('approved');
    await refundIn(payment.paymentId, refundId, 'succeeded');
    expect(refundMovements(payment.paymentId).map((entry) => entry.amount)).toEqual([6_000_000]);
    await captureHistory(t.env.client, asked.body.workflowId, 'approved-by-two-refunded');
  });

  it('a rejected refund sends nothing and gives its amount back', async () => {
    const payment = await paidPayment(3_000_000);
    const asked = await refund(payment.paymentId, 2_000_000);
    expect(asked.body.status).toBe('awaiting_approval');
    expect(await refundable(payment.paymentId)).toBe(1_000_000);
    await eventually(() => t.env.client.workflow.getHandle(asked.body.workflowId).query(approvalStateQuery));
    expect((await decideRefund(t.stack.approverA, asked.body.refundId, 'reject')).body.status).toBe(
      'rejected',
    );
    await refundIn(payment.paymentId, asked.body.refundId, 'rejected');
    expect(await refundable(payment.paymentId)).toBe(3_000_000);
    expect(refundsSent(payment.paymentId)).toEqual([]);
    expect(refundMovements(payment.paymentId)).toEqual([]);
  });

  it('a refund over the daily cap per maker is refused and reserves nothing', async () => {
    // The cashier asked for 8 million today above (the rejected 2 million no longer counts): 25 more is over 30.
    const payment = await paidPayment(25_000_000);
    const over = await refund(payment.paymentId, 25_000_000);
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({
      code: 'daily_cap_exceeded',
      problems: [{ rule: 'approvalPolicy.kinds.refund.perMakerDailyVnd' }],
    });
    expect(await refundable(payment.paymentId)).toBe(25_000_000);
    const listed = await callApi(
      t.stack.api,
      t.stack.cashier,
      'GET',
      `/v1/payments/${payment.paymentId}/refunds`,
    );
    expect(listed.body.refunds).toEqual([]);
  });
});

describe('when nobody decides', () => {
  // Last: it moves the workflows' clock past every expiry.
  it('a request nobody approves in time expires, and is never paid', async () => {
    const { disbursementId } = await disburse(2_000_000);
    await waitingWorkflow(disbursementId);
    await t.env.sleep('3 hours');
    await until(disbursementId, 'expired');
    const view = await callApi(
      t.stack.api,
      t.stack.viewer,
      'GET',
      `/v1/approvals/disbursement/${disbursementId}`,
    );
    expect(view.body).toMatchObject({
      status: 'expired',
      statusReason: expect.stringContaining('Nobody approved'),
    });
    expect((await decide(t.stack.approverA, disbursementId, 'approve')).body.error.code).toBe(
      'approval_not_pending',
    );
    expect(movements(disbursementId)).toEqual([]);
    const events = await eventsOf(t.db, 'approval', `disbursement:${disbursementId}`);
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.expired']);
  });
});
