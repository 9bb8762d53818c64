/**
 * Every capability end to end on the production shape (`npm run cluster`: Temporal server on
 * PostgreSQL, `api/main.ts` and two `workers/main.ts` as their own processes), through payrun's HTTP
 * API only. The sandbox's admin API plays the customer (approvals, the OTP inbox) and shows the money
 * that moved (its ledger). Workflow histories show which worker process ran each task.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addDays, dayOfGmt7, instantOf } from '../../contracts/subscriptions';
import { savedMethodBindingWorkflowId, savedMethodPaymentWorkflowId } from '../../contracts/saved-methods';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { paymentWorkflowId, terminalSettlementWorkflowId } from '../../contracts/payments';
import { remittanceWorkflowId } from '../../contracts/remittances';
import { payoutFile } from '../support/payout-stack';
import { bankRemittance } from '../support/remittance-stack';
import { eventually } from '../support/wait';
import { useCluster } from './cluster-fixture';
import { freshId } from '../support/ids';

const t = useCluster();

// `_` and hex: no ending payrun derives gateway ids with (gateway/ids.ts), which the API refuses.
const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** GETs `path` until `done(body)` holds; the error names what was last seen. */
async function until(key: string, path: string, done: (body: Body) => boolean, timeout?: number) {
  return eventually(
    async () => {
      const answer = await t.api(key, 'GET', path);
      if (answer.status === 200 && done(answer.body)) return answer.body;
      throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`);
    },
    timeout ? { timeout } : {},
  );
}

const entriesOf = async (orderId: string) => (await t.ledger()).filter((entry) => entry.orderId === orderId);

/** The workflow ran, and only on the cluster's worker processes (never in the API's). */
async function expectRanOnWorkers(workflowId: string) {
  const workers = t.cluster.workerNames.map((name) => t.identityOf(name));
  const identities = [...(await t.workerIdentities(workflowId))];
  expect(identities.length, workflowId).toBeGreaterThan(0);
  for (const identity of identities) expect(workers, workflowId).toContain(identity);
  return identities;
}

describe('every capability on the production shape, through the API', () => {
  it('pays a 2,500-row run once per row, reconciles, with batch tasks on both workers', async () => {
    const maker = await t.key(['payouts-maker']);
    const approver = await t.key(['payouts-approver']);
    const prefix = newId('cl');
    const uploaded = await t.api(
      maker,
      'POST',
      '/v1/payout-runs?fileName=cluster.csv',
      payoutFile(prefix, 2500),
      'text/csv',
    );
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const runId: string = uploaded.body.runId;
    const approved = await t.api(approver, 'POST', `/v1/payout-runs/${runId}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const run = await until(
      approver,
      `/v1/payout-runs/${runId}`,
      (body) => ['reconciled', 'needs_attention', 'failed'].includes(body.status),
      90_000,
    );
    const total = Array.from({ length: 2500 }, (_, index) => 10_000 + index).reduce((a, b) => a + b, 0);
    expect(run).toMatchObject({
      status: 'reconciled',
      progress: { done: 2500, total: 2500 },
      counts: { SUCCEEDED: { count: 2500, amount: total } },
      reconciliation: { balanced: true },
    });

    // Batch items are ledger entries under the batch's orderId, one per payout id.
    const batchIds = new Set(run.batches.map((batch: Body) => batch.batchId as string));
    const paid = (await t.ledger()).filter((entry) => batchIds.has(entry.orderId));
    const payoutIds = paid.map((entry) => entry.itemId);
    expect(paid).toHaveLength(2500);
    expect(new Set(payoutIds).size).toBe(2500);
    expect(new Set(payoutIds)).toEqual(
      new Set(Array.from({ length: 2500 }, (_, index) => `${prefix}-${index + 1}`)),
    );
    expect(paid.every((entry) => entry.outcome === 'succeeded')).toBe(true);
    expect(paid.reduce((sum, entry) => sum + entry.amount, 0)).toBe(total);

    const identities = new Set<string>();
    for (const batch of run.batches as Body[])
      for (const identity of await expectRanOnWorkers(batch.workflowId)) identities.add(identity);
    expect(identities).toEqual(new Set([t.identityOf('worker-1'), t.identityOf('worker-2')]));
  }, 150_000);

  it('disburses once to a wallet and once to a bank account', async () => {
    const maker = await t.key(['payouts-maker']);
    const targets = {
      wallet: { amount: 250_000, wallet: { walletId: '0912345678', walletName: 'Nguyen Van B' } },
      bank: {
        amount: 500_000,
        bank: { bankAccountNo: '0123456789', bankAccountHolderName: 'TRAN THI C', bankCode: 'VCB' },
      },
    };
    for (const [kind, body] of Object.entries(targets)) {
      const disbursementId = newId('d');
      const created = await t.api(maker, 'POST', '/v1/disbursements', { disbursementId, ...body });
      expect(created.status, `${kind}: ${JSON.stringify(created.body)}`).toBe(201);
      const done = await until(maker, `/v1/disbursements/${disbursementId}`, (view) =>
        ['succeeded', 'failed', 'needs_attention'].includes(view.status),
      );
      expect(done, kind).toMatchObject({ status: 'succeeded', resultCode: 0, amount: body.amount });
      expect(await entriesOf(disbursementId)).toEqual([
        expect.objectContaining({ kind: 'disbursement', amount: body.amount, outcome: 'succeeded' }),
      ]);
      // The cluster's default: the desk paid it, in a chunk on one of the workers; no workflow of its own.
      expect(done.workflowId, kind).toMatch(/^disbursement-desk\//);
      expect(done.deskChunk, kind).toMatch(new RegExp(`^${done.workflowId}#\\d+$`));
      await expectRanOnWorkers(done.workflowId);
      expect(await t.workerIdentities(disbursementWorkflowId(disbursementId)).catch(() => 'none')).toBe(
        'none',
      );
    }
  });

  it('quotes and remits to a bank account', async () => {
    const operator = await t.key(['remittance']);
    const quote = await t.api(operator, 'GET', '/v1/remittance-quotes?baseCurrency=USD&foreignAmount=250.5');
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body.rate).toBeGreaterThan(0);

    const created = await t.api(operator, 'POST', '/v1/remittances', bankRemittance('0123456789'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const remittanceId: string = created.body.remittanceId;
    const done = await until(operator, `/v1/remittances/${remittanceId}`, (view) =>
      ['succeeded', 'failed', 'needs_attention'].includes(view.status),
    );
    expect(done).toMatchObject({
      status: 'succeeded',
      foreignAmount: 250.5,
      amountSent: Math.round(250.5 * done.rateUsed.rate),
      result: { resultCode: 0 },
    });
    const moved = (await t.ledger()).filter((entry) => entry.orderId.startsWith(remittanceId));
    expect(moved).toEqual([
      expect.objectContaining({ orderId: `${remittanceId}-buy`, kind: 'buy', amount: 250.5 }),
      expect.objectContaining({ orderId: remittanceId, kind: 'remittance', outcome: 'succeeded' }),
    ]);
    await expectRanOnWorkers(remittanceWorkflowId(remittanceId));
  });

  it('authorizes a subscription and charges its first cycle', async () => {
    const billing = await t.key(['billing']);
    // The first cycle is due on the latest day whose billing hour (GMT+7) has passed, so the worker
    // charges it as soon as the customer authorizes, in real time.
    const billingHour = Number(t.cluster.environment.api.SUBSCRIPTION_BILLING_HOUR ?? 9);
    const today = dayOfGmt7(Date.now());
    const due = Date.now() >= instantOf(today, billingHour) ? today : addDays(today, -1);
    const subscriptionId = newId('s');
    const created = await t.api(billing, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId: newId('member'),
      amount: 0,
      orderInfo: 'Gym membership',
      subscriptionInfo: {
        name: 'Gym',
        type: 'FIXED',
        recurringAmount: 99_000,
        frequency: 'MONTHLY',
        nextPaymentDate: due,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(() => t.sandbox('POST', `/payments/${subscriptionId}/approve`, {}));

    const charged = await until(
      billing,
      `/v1/subscriptions/${subscriptionId}`,
      // 'submitted' and 'pending' are on the way; the charge is decided once it leaves them.
      (view) =>
        view.charges?.some((charge: Body) => !['submitted', 'pending'].includes(charge.status)) ?? false,
    );
    expect(charged).toMatchObject({ status: 'active' });
    // Its authorization was started by the subscription desk; the customer's answer started its workflow.
    expect(charged.deskChunk).toMatch(/^subscription-desk\//);
    expect(charged.charges).toEqual([
      expect.objectContaining({ cycle: 1, dueDate: due, amount: 99_000, status: 'succeeded' }),
    ]);
    expect(await entriesOf(`${subscriptionId}-c1`)).toEqual([
      expect.objectContaining({ kind: 'subscription-charge', amount: 99_000, outcome: 'succeeded' }),
    ]);
    await expectRanOnWorkers(charged.workflowId);
  });

  it('binds a card and pays with its token through the 8200 code', async () => {
    const payments = await t.key(['payments']);
    const partnerClientId = newId('card');
    const binding = await t.api(payments, 'POST', '/v1/saved-method-bindings', {
      kind: 'card',
      partnerClientId,
      userInfo: { email: 'an@example.com', name: 'Nguyen Van An' },
    });
    expect(binding.status, JSON.stringify(binding.body)).toBe(201);
    await eventually(() => t.sandbox('POST', `/payments/${binding.body.orderId}/approve`, {}));
    const bound = await until(payments, `/v1/saved-method-bindings/${binding.body.bindingId}`, (view) =>
      ['active', 'failed', 'expired'].includes(view.status),
    );
    expect(bound).toMatchObject({ status: 'active' });

    const paymentId = newId('tp');
    const created = await t.api(payments, 'POST', '/v1/saved-method-payments', {
      paymentId,
      methodId: bound.methodId,
      amount: 18_200,
      description: 'Order',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ state: 'awaiting_otp', resultCode: 8200 });
    const [message] = await eventually(async () => {
      const inbox = await t.sandbox<Body[]>(
        'GET',
        `/otp-inbox?partnerClientId=${encodeURIComponent(partnerClientId)}`,
      );
      const sent = inbox.filter((entry) => entry.orderId === paymentId);
      expect(sent).toHaveLength(1);
      return sent;
    });
    // The gateway takes a code no sooner than 3 s after it sent it: payrun answers 429 until then.
    const verified = await eventually(
      async () => {
        const answer = await t.api(payments, 'POST', `/v1/saved-method-payments/${paymentId}/otp`, {
          code: message.code,
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        return answer.body;
      },
      { timeout: 15_000 },
    );
    expect(verified).toMatchObject({ verdict: 'succeeded', payment: { state: 'succeeded' } });
    expect(await entriesOf(paymentId)).toEqual([
      expect.objectContaining({ kind: 'payment', amount: 18_200, outcome: 'succeeded' }),
    ]);
    await expectRanOnWorkers(savedMethodBindingWorkflowId(binding.body.bindingId));
    await expectRanOnWorkers(savedMethodPaymentWorkflowId(paymentId));
  });

  it('takes a one-time payment the customer approves, and refunds part of it', async () => {
    const payments = await t.key(['payments']);
    const paymentId = newId('p');
    const created = await t.api(payments, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount: 150_000,
      orderInfo: 'Tea',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      status: 'awaiting_customer',
      payUrl: expect.stringMatching(/^http/),
    });
    await t.sandbox('POST', `/payments/${paymentId}/approve`, {});
    const paid = await until(payments, `/v1/payments/${paymentId}`, (view) =>
      ['succeeded', 'failed'].includes(view.status),
    );
    expect(paid).toMatchObject({ status: 'succeeded', resultCode: 0, amount: 150_000 });

    const refund = await t.api(payments, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 40_000 });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    const refunded = await until(payments, `/v1/payments/${paymentId}`, (view) => view.refundedAmount > 0);
    expect(refunded).toMatchObject({ refundedAmount: 40_000, refundableAmount: 110_000 });
    const refunds = (await t.ledger()).filter(
      (entry) => entry.kind === 'refund' && entry.refundOf === paymentId,
    );
    expect(refunds).toEqual([expect.objectContaining({ amount: 40_000, outcome: 'succeeded' })]);
    expect(await entriesOf(paymentId)).toEqual([
      expect.objectContaining({ kind: 'payment', amount: 150_000, outcome: 'succeeded' }),
    ]);
    // The cluster's default: the payment desk created it, in a chunk on one of the workers, and the relay
    // recorded its result; no workflow of its own.
    expect(paid.workflowId).toMatch(/^payment-desk\//);
    expect(paid.deskChunk).toMatch(new RegExp(`^${paid.workflowId}#\\d+$`));
    await expectRanOnWorkers(paid.workflowId);
    expect(await t.workerIdentities(paymentWorkflowId(paymentId)).catch(() => 'none')).toBe('none');
  });

  it('settles a card terminal', async () => {
    const payments = await t.key(['payments']);
    const serialNumber = freshId('SN-', 8);
    const paymentId = newId('p');
    const created = await t.api(payments, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'payWithEdc',
      storeId: 'store-t',
      serialNumber,
      instrumentType: 'CARD',
      amount: 300_000,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(() => t.sandbox('POST', `/payments/${paymentId}/approve`, {}));
    expect(
      await until(payments, `/v1/payments/${paymentId}`, (view) =>
        ['succeeded', 'failed'].includes(view.status),
      ),
    ).toMatchObject({ status: 'succeeded', payType: 'edcDevice' });

    const settled = await t.api(payments, 'POST', '/v1/terminals/settle', {
      storeId: 'store-t',
      serialNumber,
    });
    expect(settled).toMatchObject({
      status: 201,
      body: { status: 'settled', resultCode: 0, settledPayments: 1 },
    });
    const settlements = (await t.ledger()).filter(
      (entry) => entry.kind === 'settlement' && entry.method === `store-t/${serialNumber}`,
    );
    expect(settlements).toEqual([expect.objectContaining({ amount: 300_000, outcome: 'succeeded' })]);
    const after = await t.api(payments, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 50_000 });
    expect(after).toMatchObject({ status: 409, body: { error: { code: 'terminal_payment_settled' } } });
    await expectRanOnWorkers(terminalSettlementWorkflowId(settled.body.settlementId));
  });
});
