/** disbursement with fake activities: every classified answer of verify, balance, pay and the IPN. */
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../gateway';
import { disbursement } from '../../workflows/disbursement';
import {
  disbursementResultSignal,
  disbursementStatusQuery,
  disbursementWorkflowId,
  type DisbursementInput,
} from '../../workflows/disbursement-definitions';
import { captureHistory } from '../support/history-capture';
import { gatewayRejected, losingFirst, ok, useWorkflowHarness, type Fakes } from './support';

const h = useWorkflowHarness();

const wallet = { kind: 'wallet' as const, walletId: '0912345678', walletName: 'B', personalId: null };
const bank = { kind: 'bank' as const, bankAccountNo: '0123', bankAccountHolderName: 'C', bankCode: 'VCB' };
const checked = async () => ({ resultCode: 0, message: 'ok' });
const balance = (amount: number) => async () => ({ balance: amount });
/** pay as the activity answers since `disbursement-records-in-activities`: it recorded its answer. */
const recorded =
  <Answer extends object>(answer: Answer) =>
  async (input: { records?: true }) => ({
    ...answer,
    ...(input.records ? { recorded: true as const } : {}),
  });
const paid = recorded({ outcome: 'succeeded' as const, resultCode: 0, message: 'paid', transId: 't1' });
const pending = recorded({ outcome: 'pending' as const, resultCode: 7000, message: 'processing' });
/** pay as a worker from before the patch answers it (a rolling deploy): `records` ignored. */
const paidByOldWorker = async () => ({
  outcome: 'succeeded' as const,
  resultCode: 0,
  message: 'paid',
  transId: 't1',
});

async function disburse(
  receiver: DisbursementInput['receiver'],
  fakes: Fakes,
  timing: Partial<DisbursementInput> = {},
) {
  const disbursementId = h.id('d');
  const input: DisbursementInput = {
    disbursementId,
    amount: 250_000,
    description: 'payout',
    receiver,
    gatewayAttemptTimeout: '1 minute',
    resultWait: '1 day',
    ...timing,
  };
  const run = await h.start(disbursement, {
    workflowId: disbursementWorkflowId(disbursementId),
    args: [input],
    fakes: { recordDisbursement: ok, ...fakes },
  });
  /** The statuses the workflow records itself; each gateway activity records the step it stands for. */
  const statuses = () => run.inputs('recordDisbursement').map((record) => record.status);
  const askedToRecord = (name: 'checkDisbursementWallet' | 'disbursementBalance' | 'payDisbursement') =>
    run.inputs(name).every((input) => (input as { records?: true }).records === true);
  return { run, disbursementId, statuses, askedToRecord };
}

describe('disbursement to a wallet', () => {
  it('check ok, balance enough, paid (0): succeeded, paid once, three activities that record their own steps', async () => {
    const { run, askedToRecord } = await disburse(wallet, {
      checkDisbursementWallet: checked,
      disbursementBalance: balance(1_000_000),
      payDisbursement: paid,
    });
    expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
    expect(run.names()).toEqual(['checkDisbursementWallet', 'disbursementBalance', 'payDisbursement']);
    expect(
      ['checkDisbursementWallet', 'disbursementBalance', 'payDisbursement'].every((name) =>
        askedToRecord(name as 'payDisbursement'),
      ),
    ).toBe(true);
  });

  it('pay answered by a worker from before the patch (it recorded nothing): the workflow records the answer', async () => {
    const { run, statuses } = await disburse(wallet, {
      checkDisbursementWallet: checked,
      disbursementBalance: balance(1_000_000),
      payDisbursement: paidByOldWorker,
    });
    expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
    expect(statuses()).toEqual(['succeeded']);
    expect(run.inputs('recordDisbursement').at(-1)).toMatchObject({ transId: 't1' });
  });

  it.each([
    [1007, 'inactive wallet'],
    [4003, 'receiver info invalid'],
  ])('the wallet check refuses (%i, %s): failed, nothing paid', async (code) => {
    const { run, statuses } = await disburse(wallet, {
      checkDisbursementWallet: async () => ({ resultCode: code, message: 'no' }),
    });
    expect(await run.result()).toMatchObject({ status: 'failed', resultCode: code });
    expect(run.calls('payDisbursement')).toEqual([]);
    expect(statuses()).toEqual(['failed']);
  });

  it('the balance is short: failed as merchant_balance_short, nothing paid', async () => {
    const { run } = await disburse(wallet, {
      checkDisbursementWallet: checked,
      disbursementBalance: balance(249_999),
    });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'failed', resultCode: codeOf('merchant_balance_short') });
    expect(result.message).toContain('249999');
    expect(run.calls('payDisbursement')).toEqual([]);
  });
});

describe('disbursement to a bank', () => {
  it('skips the wallet check and the balance: paid at once', async () => {
    const { run, askedToRecord } = await disburse(bank, { payDisbursement: paid });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(run.names()).toEqual(['payDisbursement']);
    expect(askedToRecord('payDisbursement')).toBe(true);
  });

  it('the pay is refused (1507 unknown account): failed with the code', async () => {
    const { run } = await disburse(bank, {
      payDisbursement: recorded({ outcome: 'failed' as const, resultCode: 1507, message: 'no account' }),
    });
    expect(await run.result()).toEqual({ status: 'failed', resultCode: 1507, message: 'no account' });
    expect(run.names()).toEqual(['payDisbursement']);
  });

  it('a lost pay answer is re-sent with the same input: one order', async () => {
    const { run } = await disburse(bank, { payDisbursement: losingFirst('disbursement.pay', paid) });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    const [first, second] = run.calls('payDisbursement');
    expect([first!.attempt, second!.attempt]).toEqual([1, 2]);
    expect(second!.input).toEqual(first!.input);
  });

  it('a typed failure of pay (GatewayRejected) fails the workflow with its type and code', async () => {
    const { run } = await disburse(bank, {
      payDisbursement: async () => {
        throw gatewayRejected('disbursement.pay', 13);
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe('GatewayRejected');
    expect(failure.details?.[0]).toMatchObject({ resultCode: 13, outcome: 'failed' });
  });
});

describe('a pending payout (7000/7002) waits for the notification', () => {
  it.each([
    [0, 'succeeded'],
    [1007, 'failed'],
  ] as const)('IPN %i → %s; a second IPN changes nothing', async (code, status) => {
    const { run, statuses } = await disburse(bank, { payDisbursement: pending });
    await run.reached('payDisbursement');
    await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
    await run.handle.signal(disbursementResultSignal, { resultCode: code, message: 'final', transId: 't9' });
    await run.handle.signal(disbursementResultSignal, { resultCode: 99, message: 'late duplicate' });
    expect(await run.result()).toEqual({ status, resultCode: code, message: 'final' });
    expect(statuses()).toEqual([status]);
  });

  it.each([7000, 7002])(
    'an IPN that is still undecided (%i) is no outcome: the next, final one decides',
    async (undecided) => {
      const { run, statuses } = await disburse(bank, { payDisbursement: pending });
      await run.reached('payDisbursement');
      await expect.poll(() => run.handle.query(disbursementStatusQuery)).toBe('pending');
      await run.handle.signal(disbursementResultSignal, {
        resultCode: undecided,
        message: 'still processing',
      });
      await run.handle.signal(disbursementResultSignal, { resultCode: 0, message: 'paid', transId: 't9' });
      expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
      expect(statuses()).toEqual(['succeeded']);
      await captureHistory(h.env.client, run.workflowId, `undecided-notice-${undecided}-then-final`);
    },
  );

  it('no IPN within resultWait: asks the gateway; still pending, needs_attention, never a guess', async () => {
    const { run } = await disburse(bank, {
      payDisbursement: async () => ({
        outcome: 'pending' as const,
        resultCode: 7002,
        message: 'provider processing',
      }),
      queryDisbursementResult: async () => ({ state: 'pending' as const }),
    });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'needs_attention', resultCode: 7002 });
    const [pay] = run.calls('payDisbursement');
    const [asked] = run.calls('queryDisbursementResult');
    expect(run.gap(pay!, asked!)).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(run.calls('payDisbursement')).toHaveLength(1);
    await captureHistory(h.env.client, run.workflowId, 'asked-still-pending-needs-attention');
  });

  it('a late IPN: asks with doubling waits, the last cut short at resultWait, then needs_attention', async () => {
    const { run } = await disburse(
      bank,
      { payDisbursement: pending, queryDisbursementResult: async () => ({ state: 'pending' as const }) },
      { ipnTimeout: '1 minute', resultWait: '1 hour' },
    );
    expect(await run.result()).toMatchObject({ status: 'needs_attention', resultCode: 7000 });
    const [pay] = run.calls('payDisbursement');
    // Waits of 1, 2, 4, 8 and 16 minutes, then the 29 left of the hour.
    expect(
      run.calls('queryDisbursementResult').map((ask) => Math.round(run.gap(pay!, ask) / 60_000)),
    ).toEqual([1, 3, 7, 15, 31, 60]);
    await captureHistory(h.env.client, run.workflowId, 'asked-until-result-wait');
  });

  it('no IPN: the gateway’s answer to the query settles it', async () => {
    const { run, disbursementId } = await disburse(bank, {
      payDisbursement: async () => ({ outcome: 'pending' as const, resultCode: 7000, message: 'pending' }),
      queryDisbursementResult: async () => ({
        state: 'succeeded' as const,
        notice: { resultCode: 0, message: 'paid', transId: 'tq' },
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'succeeded', resultCode: 0 });
    expect(run.inputs('queryDisbursementResult')).toEqual([{ disbursementId }]);
    expect(run.calls('payDisbursement')).toHaveLength(1);
  });
});
