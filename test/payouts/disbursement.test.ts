/** Single disbursements through the API, on the time-skipping server, against the sandbox. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiCall, usePayoutStack } from '../support/payout-stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { captureHistory } from '../support/history-capture';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { eventually } from '../support/wait';

const fixture = usePayoutStack(createTimeSkippingEnv);

const wallet = (walletId: string) => ({ walletId, walletName: 'Nguyen Van B', personalId: null });
const bank = (bankAccountNo: string) => ({
  bankAccountNo,
  bankAccountHolderName: 'TRAN THI C',
  bankCode: 'VCB',
});

async function disburse(body: Record<string, unknown>) {
  const disbursementId = `d_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const created = await apiCall(
    fixture.stack,
    fixture.stack.makerKey,
    'POST',
    '/v1/disbursements',
    JSON.stringify({ disbursementId, ...body }),
  );
  return { disbursementId, created };
}

async function finalState(
  disbursementId: string,
  statuses = ['succeeded', 'failed', 'needs_attention'],
  skip?: string,
) {
  return eventually(
    async () => {
      const view = await apiCall(
        fixture.stack,
        fixture.stack.makerKey,
        'GET',
        `/v1/disbursements/${disbursementId}`,
      );
      if (statuses.includes(view.body.status)) return view.body;
      throw new Error(`${disbursementId} is ${view.body.status}, not ${statuses.join('/')}`);
    },
    { between: skip ? () => fixture.env.sleep(skip) : undefined },
  );
}

const movements = (orderId: string) =>
  fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);

describe('single disbursement', () => {
  it('pays a wallet after checking it and the balance', async () => {
    const { disbursementId, created } = await disburse({ amount: 250_000, wallet: wallet('0912345678') });
    expect(created.status).toBe(201);
    expect(created.body.receiver).toBe('wallet ****5678');
    const done = await finalState(disbursementId);
    expect(done).toMatchObject({ status: 'succeeded', resultCode: 0, amount: 250_000 });
    expect(done.transId).toBeTruthy();
    expect(movements(disbursementId)).toHaveLength(1);
    await captureHistory(fixture.env.client, disbursementWorkflowId(disbursementId), 'wallet-paid');
  });

  it('does not pay a wallet that fails the check', async () => {
    const { disbursementId } = await disburse({ amount: 250_000, wallet: wallet('0900001007') });
    expect(await finalState(disbursementId)).toMatchObject({ status: 'failed', resultCode: 1007 });
    expect(movements(disbursementId)).toHaveLength(0);
    await captureHistory(fixture.env.client, disbursementWorkflowId(disbursementId), 'wallet-check-failed');
  });

  it('pays a bank account, and reports an unknown one', async () => {
    const paid = await disburse({ amount: 500_000, bank: bank('0123456789') });
    expect(await finalState(paid.disbursementId)).toMatchObject({ status: 'succeeded' });
    const unknown = await disburse({ amount: 500_000, bank: bank('9999991507') });
    expect(await finalState(unknown.disbursementId)).toMatchObject({ status: 'failed', resultCode: 1507 });
  });

  it('waits for the notification of a pending payout', async () => {
    const { disbursementId } = await disburse({ amount: 300_000, wallet: wallet('0900007000') });
    expect(await finalState(disbursementId)).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(movements(disbursementId)).toEqual([expect.objectContaining({ outcome: 'succeeded' })]);
    await captureHistory(fixture.env.client, disbursementWorkflowId(disbursementId), 'pending-then-notified');
  });

  it('asks the gateway when the notification of a pending payout is lost, and pays once', async () => {
    fixture.stack.sandbox.admin.setFaults({ notification: 'disbursement.result', ipn: { drop: true } });
    try {
      const { disbursementId } = await disburse({ amount: 300_000, wallet: wallet('0900007002') });
      await finalState(disbursementId, ['pending']);
      const done = await finalState(disbursementId, ['succeeded', 'failed', 'needs_attention'], '1 minute');
      expect(done).toMatchObject({ status: 'succeeded', resultCode: 0 });
      expect(movements(disbursementId)).toEqual([expect.objectContaining({ outcome: 'succeeded' })]);
      await captureHistory(
        fixture.env.client,
        disbursementWorkflowId(disbursementId),
        'notification-lost-asked',
      );
    } finally {
      fixture.stack.sandbox.admin.clearFaults();
    }
  });

  it('asks an operator when neither a notification nor the gateway says anything for a day', async () => {
    fixture.stack.sandbox.admin.setFaults([
      { notification: 'disbursement.result', ipn: { drop: true } },
      { operation: 'payment.query', resultCode: 42 },
    ]);
    try {
      const { disbursementId } = await disburse({ amount: 300_000, wallet: wallet('0900007002') });
      await finalState(disbursementId, ['pending']);
      const done = await finalState(disbursementId, ['succeeded', 'failed', 'needs_attention'], '6 hours');
      expect(done).toMatchObject({ status: 'needs_attention' });
    } finally {
      fixture.stack.sandbox.admin.clearFaults();
    }
  });

  it('refuses when the merchant balance is short, paying nothing', async () => {
    const before = fixture.stack.sandbox.admin.balance('VND');
    fixture.stack.sandbox.admin.setBalance('VND', 100_000);
    try {
      const { disbursementId } = await disburse({ amount: 250_000, wallet: wallet('0912345678') });
      expect(await finalState(disbursementId)).toMatchObject({ status: 'failed', resultCode: 1100 });
      expect(movements(disbursementId)).toHaveLength(0);
    } finally {
      fixture.stack.sandbox.admin.setBalance('VND', before);
    }
  });

  it('names the field and rule of bad input, and pays a disbursement id once', async () => {
    const lowBank = await disburse({ amount: 5000, bank: bank('0123456789') });
    expect(lowBank.created.status).toBe(400);
    expect(lowBank.created.body.error.problems).toEqual([expect.objectContaining({ field: 'body.amount' })]);
    const both = await disburse({ amount: 5000, wallet: wallet('0912345678'), bank: bank('0123456789') });
    expect(both.created.body.error.problems[0].field).toBe('body.wallet');
    const badWallet = await disburse({ amount: 5000, wallet: wallet('+84912345678') });
    expect(badWallet.created.body.error.problems[0]).toMatchObject({ field: 'body.wallet.walletId' });

    const first = await disburse({ amount: 250_000, wallet: wallet('0912345678') });
    const again = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/disbursements',
      JSON.stringify({ disbursementId: first.disbursementId, amount: 250_000, wallet: wallet('0912345678') }),
    );
    expect(again.status).toBe(409);
    await finalState(first.disbursementId);
    expect(movements(first.disbursementId)).toHaveLength(1);
  });
});
