/**
 * `disburse`, the one activity that makes a whole payout, against the sandbox and the test database.
 * What matters is the attempt that runs again after an earlier one died part-way: Temporal retries an
 * activity whose worker crashed or whose answer was lost, and that retry must pay nothing twice and must
 * not fail a payout whose money already left.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDisbursementActivities } from '../../activities/payouts/disbursements';
import { codeOf, GatewayTransportError } from '../../gateway';
import type { DisbursementInput, DisbursementReceiver } from '../../contracts/payouts';
import { connectTestDatabase, eventTypesOf } from '../support/database';
import { useTestGateway, wallet } from '../sandbox/support';
import { freshId } from '../support/ids';

const db = connectTestDatabase();
afterAll(() => db.destroy());
const { gw, ipn } = useTestGateway({ balances: { VND: 1_000_000_000 } });

const activities = () =>
  createDisbursementActivities({ db, gateway: gw.client, disbursementIpnUrl: ipn.url('/disbursement') });

async function queued(receiver: DisbursementReceiver, amount = 250_000): Promise<DisbursementInput> {
  const id = freshId('da-', 18);
  await db('disbursements').insert({
    disbursement_id: id,
    order_id: id,
    workflow_id: `disbursement/${id}`,
    request_type: receiver.kind === 'wallet' ? 'disburseToWallet' : 'disburseToBank',
    amount,
    receiver_label: 'test',
    description: 'payout',
    status: 'queued',
    created_by_key: 'test',
    created_by: 'test',
  });
  return {
    disbursementId: id,
    amount,
    description: 'payout',
    receiver,
    gatewayAttemptTimeout: '10 seconds',
    resultWait: '1 day',
  };
}

const walletOf = (lastFour: string): DisbursementReceiver => ({
  kind: 'wallet',
  ...wallet(lastFour),
  personalId: null,
});
const recordOf = (id: string) =>
  db('disbursements').where({ disbursement_id: id }).first('status', 'result_code', 'trans_id');
const paidTo = (orderId: string) => gw.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);
const eventsOf = (id: string) => eventTypesOf(db, id);

describe('disburse: one activity for the whole payout', () => {
  it('checks the wallet and the balance, pays, and records each step and the answer', async () => {
    const input = await queued(walletOf('5678'));
    const answer = await activities().disburse(input);
    expect(answer).toMatchObject({ outcome: 'succeeded', resultCode: 0, recorded: true });
    expect(await recordOf(input.disbursementId)).toMatchObject({ status: 'succeeded', result_code: 0 });
    expect(paidTo(input.disbursementId)).toHaveLength(1);
    expect(await eventsOf(input.disbursementId)).toEqual(['disbursement.succeeded']);
  });

  it('a refused wallet check is recorded failed with its code, and nothing is paid', async () => {
    const input = await queued(walletOf('1007'));
    const answer = await activities().disburse(input);
    expect(answer).toMatchObject({ outcome: 'failed', resultCode: 1007 });
    expect(await recordOf(input.disbursementId)).toMatchObject({ status: 'failed', result_code: 1007 });
    expect(paidTo(input.disbursementId)).toEqual([]);
  });

  it('a short balance is recorded failed as merchant_balance_short, and nothing is paid', async () => {
    gw.sandbox.admin.setBalance('VND', 100_000);
    const input = await queued(walletOf('5678'));
    const answer = await activities().disburse(input);
    expect(answer).toMatchObject({ outcome: 'failed', resultCode: codeOf('merchant_balance_short') });
    expect(answer.message).toContain('100000');
    expect(paidTo(input.disbursementId)).toEqual([]);
  });

  it('pay sent but its answer lost: the next attempt does not read the balance again, hears 40, and the query settles it', async () => {
    const input = await queued(walletOf('5678'), 600_000);
    gw.sandbox.admin.setBalance('VND', 1_000_000);
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', dropResponse: true, times: 1 });
    await expect(activities().disburse(input)).rejects.toBeInstanceOf(GatewayTransportError);
    expect(await recordOf(input.disbursementId)).toMatchObject({ status: 'paying' });
    // The money left: what is left (400,000) is short of this payout, so a second balance check would
    // record a payout that was made as failed, and an operator could pay it again.
    expect(gw.sandbox.admin.balance('VND')).toBe(400_000);

    // The same requestId again: the gateway answers 40 (never the first answer), and the activity asks
    // api/query at once, which names this payout with its amount and transaction: succeeded.
    const again = await activities().disburse(input);
    expect(again).toMatchObject({ outcome: 'succeeded', resultCode: 0 });
    expect(await recordOf(input.disbursementId)).toMatchObject({ status: 'succeeded', result_code: 0 });
    expect(await eventsOf(input.disbursementId)).toEqual(['disbursement.succeeded']);
    expect(paidTo(input.disbursementId)).toHaveLength(1);
  });

  it('an answer already recorded is returned as it stands, without asking the gateway again', async () => {
    const paid = await queued({
      kind: 'bank',
      bankAccountNo: '0123456789',
      bankAccountHolderName: 'C',
      bankCode: 'VCB',
    });
    const refused = await queued(walletOf('1007'));
    const first = await activities().disburse(paid);
    await activities().disburse(refused);
    // Any call that reached the gateway now would fail the attempt.
    gw.sandbox.admin.setFaults([
      { operation: 'disbursement.verify', httpStatus: 503 },
      { operation: 'disbursement.pay', httpStatus: 503 },
    ]);
    expect(await activities().disburse(paid)).toEqual({ ...first, message: first.message });
    expect(await activities().disburse(refused)).toMatchObject({ outcome: 'failed', resultCode: 1007 });
    expect(paidTo(paid.disbursementId)).toHaveLength(1);
  });
});
