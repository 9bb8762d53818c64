/** remittance and remittanceQuote with fake activities: every stop before and after the buy, IPN or query. */
import { describe, expect, it } from 'vitest';
import { MAX_EXCHANGE_AMOUNT } from '../../gateway';
import { remittance, remittanceQuote } from '../../workflows/remittances/remittance';
import {
  remittanceProgressQuery,
  remittanceQuoteWorkflowId,
  remittanceResultSignal,
  remittanceWorkflowId,
  type RemittanceInput,
} from '../../contracts/remittances';
import { captureHistory } from '../support/history-capture';
import { eventually } from '../support/wait';
import {
  gatewayRejected,
  inTurn,
  losingFirst,
  ok,
  useWorkflowHarness,
  type AnswerOf,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const RATE = 25_000;
const timing: RemittanceInput['timing'] = {
  gatewayAttemptTimeout: '1 minute',
  // A retried call takes long enough for the quote (3 minutes) to age.
  gatewayRetryInterval: '4 minutes',
  ipnTimeout: '2 minutes',
  resultGiveUpAfter: '30 minutes',
  quoteTtl: '3 minutes',
};

type Create = AnswerOf<'createRemittanceOrder'>;
type Query = AnswerOf<'queryRemittanceResult'>;
const created = (outcome: Create['outcome'], resultCode: number): Create =>
  ({ outcome, resultCode, message: `create ${resultCode}`, transId: 'tx-1' }) as Create;
const queried = (state: Query['state'], resultCode: number): Query =>
  ({ state, resultCode, message: `query ${resultCode}`, transId: 'tx-2' }) as Query;

const happy: Fakes = {
  recordRemittanceStatus: ok,
  quoteRemittanceRate: async ({ seq }) => ({ rate: RATE + seq - 1, quotedAt: '' }),
  verifyRemittanceReceiver: async () => ({ accepted: true as const }),
  remittanceBalance: async () => ({ balance: 1e12 }),
  buyForRemittance: async ({ foreignAmount, rate }) => ({
    outcome: 'bought' as const,
    rate,
    exchangeAmount: Math.round(foreignAmount * rate),
  }),
  createRemittanceOrder: async () => created('succeeded', 0),
};

async function remit(fakes: Fakes, options: Partial<RemittanceInput> = {}) {
  const remittanceId = h.id('rm');
  const run = await h.start(remittance, {
    workflowId: remittanceWorkflowId(remittanceId),
    args: [
      {
        remittanceId,
        requestType: 'remitToWallet',
        baseCurrency: 'USD',
        foreignAmount: 100,
        autoCapture: true,
        timing,
        ...options,
      },
    ],
    fakes: { ...happy, ...fakes },
  });
  return { run, remittanceId };
}

const lastRecord = (run: Run<typeof remittance>) => run.inputs('recordRemittanceStatus').at(-1)!;
const gatewaySteps = (run: Run<typeof remittance>) =>
  run.names().filter((name) => name !== 'recordRemittanceStatus');

describe('remittance: stops before anything is bought (failed)', () => {
  it('the receiver wallet cannot receive: failed with its code, nothing bought', async () => {
    const { run } = await remit({
      verifyRemittanceReceiver: async () => ({
        accepted: false as const,
        resultCode: 1007,
        message: 'inactive',
      }),
    });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run)).toMatchObject({
      status: 'failed',
      result: { resultCode: 1007, message: 'inactive', source: 'create' },
    });
    expect(run.calls('buyForRemittance')).toEqual([]);
  });

  it('a bank receiver is not verified', async () => {
    const { run } = await remit({}, { requestType: 'remitToBank' });
    expect(await run.result()).toBe('succeeded');
    expect(run.calls('verifyRemittanceReceiver')).toEqual([]);
  });

  it('the foreign balance is short', async () => {
    const { run } = await remit({ remittanceBalance: async () => ({ balance: 99.99 }) });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run).reason).toContain('Insufficient USD balance');
    expect(run.calls('buyForRemittance')).toEqual([]);
  });

  it('more than 12 digits of VND', async () => {
    const foreignAmount = Math.ceil(MAX_EXCHANGE_AMOUNT / RATE) + 1;
    const { run } = await remit({}, { foreignAmount });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run).reason).toContain('more than 12 digits');
  });

  it('the VND amount is outside the requestType range (remitToBank ≥ 50,000)', async () => {
    const { run } = await remit({}, { requestType: 'remitToBank', foreignAmount: 1 });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run).reason).toContain('remitToBank sends 50000..');
  });

  it('the amount to send is more than the quote buys', async () => {
    const { run } = await remit({}, { amount: 100 * RATE + 1 });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run).reason).toContain('less than the');
    expect(run.calls('buyForRemittance')).toEqual([]);
  });

  it('the rate moved past what the approval policy weighed: failed, nothing bought, never more sent', async () => {
    const { run } = await remit({}, { valuedVnd: 100 * RATE - 1 });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run).reason).toContain('more than the 2499999 VND the approval policy weighed');
    expect(run.calls('buyForRemittance')).toEqual([]);
  });

  it('the buy is refused: failed, nothing bought', async () => {
    const { run } = await remit({
      buyForRemittance: async () => ({ outcome: 'refused' as const, resultCode: 1100, message: 'no funds' }),
    });
    expect(await run.result()).toBe('failed');
    expect(lastRecord(run)).toMatchObject({ status: 'failed', result: { resultCode: 1100 } });
    expect(run.calls('createRemittanceOrder')).toEqual([]);
  });
});

describe('remittance: the quote', () => {
  it('a quote older than quoteTtl is taken again before the buy, which uses the new one', async () => {
    const { run, remittanceId } = await remit({
      remittanceBalance: losingFirst('disbursement.balance', async () => ({ balance: 1e12 })),
    });
    expect(await run.result()).toBe('succeeded');
    expect(run.inputs('quoteRemittanceRate')).toEqual([
      { remittanceId, seq: 1 },
      { remittanceId, seq: 2 },
    ]);
    expect(run.inputs('buyForRemittance')).toEqual([
      { remittanceId, quoteSeq: 2, foreignAmount: 100, rate: RATE + 1 },
    ]);
    const [quote1, quote2] = run.calls('quoteRemittanceRate');
    expect(run.gap(quote1!, quote2!)).toBeGreaterThanOrEqual(3 * MINUTE);
  });

  it('a fresh quote is used as it is: one quote, one buy', async () => {
    const { run } = await remit({});
    expect(await run.result()).toBe('succeeded');
    expect(gatewaySteps(run)).toEqual([
      'quoteRemittanceRate',
      'verifyRemittanceReceiver',
      'remittanceBalance',
      'buyForRemittance',
      'remittanceBalance',
      'createRemittanceOrder',
    ]);
    expect(run.inputs('remittanceBalance').map((input) => input.currency)).toEqual(['USD', 'VND']);
  });
});

describe('remittance: after the buy (needs_attention, never bought again)', () => {
  it('the buy answer is unknown (41): needs_attention, payrun will not buy again', async () => {
    const { run } = await remit({
      buyForRemittance: async () => ({ outcome: 'unknown' as const, resultCode: 41, message: 'dup' }),
    });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run).attention).toContain('payrun will not buy again');
    expect(run.calls('buyForRemittance')).toHaveLength(1);
  });

  it('the VND balance is short after the buy', async () => {
    const { run } = await remit({
      remittanceBalance: async ({ currency }) => ({ balance: currency === 'VND' ? 10 : 1e12 }),
    });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run).attention).toContain('stays in the merchant');
    expect(run.calls('createRemittanceOrder')).toEqual([]);
  });

  it('remittance/create fails (typed failure): needs_attention with the gateway words', async () => {
    const { run } = await remit({
      createRemittanceOrder: async () => {
        throw gatewayRejected('remittance.create', 13, 'bad signature');
      },
    });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run).reason).toContain(
      'remittance/create could not be sent: remittance.create: result 13',
    );
  });

  it('remittance/create is refused: needs_attention with the code', async () => {
    const { run } = await remit({ createRemittanceOrder: async () => created('refused', 4001) });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run)).toMatchObject({ result: { resultCode: 4001, source: 'create' } });
  });

  it('remittance/create succeeds: succeeded from the create answer; amountSent is what was bought', async () => {
    const { run, remittanceId } = await remit({});
    expect(await run.result()).toBe('succeeded');
    expect(run.inputs('createRemittanceOrder')).toEqual([{ remittanceId, amount: 100 * RATE }]);
    expect(lastRecord(run)).toMatchObject({
      status: 'succeeded',
      result: { resultCode: 0, transId: 'tx-1', source: 'create' },
    });
    expect(await run.handle.query(remittanceProgressQuery)).toMatchObject({
      status: 'succeeded',
      rate: RATE,
      quotes: 1,
      exchangeAmount: 100 * RATE,
      amountSent: 100 * RATE,
    });
  });

  it('a given amount is sent instead of the whole exchange amount', async () => {
    const { run, remittanceId } = await remit({}, { amount: 2_000_000 });
    expect(await run.result()).toBe('succeeded');
    expect(run.inputs('createRemittanceOrder')).toEqual([{ remittanceId, amount: 2_000_000 }]);
  });
});

describe('remittance: waiting for the result', () => {
  const untilWaiting = (run: Run<typeof remittance>, status: string) =>
    eventually(() => expect(lastRecord(run).status).toBe(status));

  it.each([
    ['pending', true, 'awaiting_result'],
    ['pending', false, 'awaiting_capture'],
    ['duplicate', true, 'awaiting_result'],
  ] as const)(
    'create %s (autoCapture %s) → %s; a pending IPN is ignored, the final one decides',
    async (outcome, autoCapture, status) => {
      const { run } = await remit(
        { createRemittanceOrder: async () => created(outcome, outcome === 'pending' ? 7000 : 41) },
        { autoCapture },
      );
      await untilWaiting(run, status);
      await run.handle.signal(remittanceResultSignal, { resultCode: 7002, message: 'still' });
      await run.handle.signal(remittanceResultSignal, { resultCode: 0, message: 'done', transId: 't' });
      expect(await run.result()).toBe('succeeded');
      expect(lastRecord(run)).toMatchObject({ result: { resultCode: 0, source: 'ipn' } });
      expect(run.calls('queryRemittanceResult')).toEqual([]);
    },
  );

  it('a failed result IPN: needs_attention (VND was bought), with the code', async () => {
    const { run } = await remit({ createRemittanceOrder: async () => created('pending', 7000) });
    await untilWaiting(run, 'awaiting_result');
    await run.handle.signal(remittanceResultSignal, { resultCode: 1007, message: 'closed' });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run)).toMatchObject({
      result: { resultCode: 1007, source: 'ipn' },
      attention: expect.stringContaining('failed at the gateway (1007)'),
    });
  });

  it('no IPN: api/query after ipnTimeout, doubling while pending, until succeeded (source poll)', async () => {
    const { run } = await remit({
      createRemittanceOrder: async () => created('pending', 7000),
      queryRemittanceResult: inTurn(
        queried('pending', 7000),
        queried('unknown', 42),
        queried('succeeded', 0),
      ),
    });
    expect(await run.result()).toBe('succeeded');
    expect(lastRecord(run)).toMatchObject({ result: { resultCode: 0, transId: 'tx-2', source: 'poll' } });
    const steps = [...run.calls('createRemittanceOrder'), ...run.calls('queryRemittanceResult')];
    expect(steps.slice(1).map((call, i) => Math.round(run.gap(steps[i]!, call) / MINUTE))).toEqual([2, 4, 8]);
  });

  it('the query finds it failed: needs_attention (source poll)', async () => {
    const { run } = await remit({
      createRemittanceOrder: async () => created('pending', 7000),
      queryRemittanceResult: async () => queried('failed', 1007),
    });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run)).toMatchObject({ result: { resultCode: 1007, source: 'poll' } });
  });

  it('no final result within resultGiveUpAfter: needs_attention naming the last answer', async () => {
    const { run } = await remit({
      createRemittanceOrder: async () => created('pending', 7000),
      queryRemittanceResult: async () => queried('pending', 7000),
    });
    expect(await run.result()).toBe('needs_attention');
    expect(lastRecord(run).attention).toContain('No final result after 30 minutes (last answer 7000');
    // 2 + 4 + 8 + 16 = 30 minutes: four queries; then payrun asks on every 6 hours for 30 days.
    expect(run.calls('queryRemittanceResult')).toHaveLength(4 + 120);
    expect(
      run.inputs('recordRemittanceStatus').filter((record) => record.status === 'needs_attention'),
    ).toHaveLength(1);
    expect(run.calls('buyForRemittance')).toHaveLength(1);
    expect(run.calls('createRemittanceOrder')).toHaveLength(1);
  });
});

describe('remittance: an answer learnt after needs_attention', () => {
  it('moves the remittance on to succeeded: payrun asked on after it told an operator', async () => {
    let asks = 0;
    const { run } = await remit({
      createRemittanceOrder: async () => created('pending', 7000),
      queryRemittanceResult: async () =>
        ++asks < 7
          ? { state: 'unknown' as const, message: 'the gateway refused the query (99: Unknown error)' }
          : queried('succeeded', 0),
    });
    expect(await run.result()).toBe('succeeded');
    const statuses = run.inputs('recordRemittanceStatus').map((record) => record.status);
    expect(statuses.slice(-2)).toEqual(['needs_attention', 'succeeded']);
    await captureHistory(h.env.client, run.workflowId, 'needs-attention-then-asked-succeeded');
  });
});

describe('remittanceQuote', () => {
  const quote = (fakes: Fakes) =>
    h.start(remittanceQuote, {
      workflowId: remittanceQuoteWorkflowId(h.id('q')),
      args: [{ baseCurrency: 'EUR' }],
      fakes,
    });

  it('one exchange-rate call, nothing recorded', async () => {
    const run = await quote({ fetchExchangeRate: async () => ({ rate: 27_000 }) });
    expect(await run.result()).toEqual({ rate: 27_000 });
    expect(run.inputs('fetchExchangeRate')).toEqual([{ baseCurrency: 'EUR' }]);
  });

  it('a live quote gives up after three attempts', async () => {
    const run = await quote({
      fetchExchangeRate: losingFirst('remittance.exchangeRate', async () => ({ rate: 1 }), 99),
    });
    expect((await run.failure()).type).toBe('GatewayTransportError');
    expect(run.calls('fetchExchangeRate').map((call) => call.attempt)).toEqual([1, 2, 3]);
  });
});
