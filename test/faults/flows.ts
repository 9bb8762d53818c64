/**
 * Every flow of the fault matrix (cells.ts): what it declares (operations and their roles) and how one cell
 * runs it end to end, as a user would, through payrun's API against the sandbox gateway, then reads what
 * payrun recorded and what the gateway's ledger (or its own state) says happened. A flow scopes the cell's
 * fault to its own object: by orderId prefix where the id is known before the call, else by a value of the
 * request only this cell sends (a wallet, an amount, a currency).
 */
import type { OperationName } from '../../gateway';
import type { FaultRule, LedgerEntry } from '../../sandbox';
import { BALANCE_GROUPS } from '../../activities/remittances/remittances';
import { REFERENCE_RATES } from '../../sandbox/rates';
import { addDays, dayOfGmt7 } from '../../contracts/subscriptions';
import { PAYMENT_REQUEST_TYPES, type PaymentRequestType } from '../../contracts/payments';
import type { Cell, FlowSpec } from './cells';

/** How a record or the ledger reads, in the words the verdict compares. */
export type Reading = 'succeeded' | 'failed' | 'pending' | 'attention' | 'none';

export interface Observation {
  /** What payrun's record says. */
  recorded: Reading;
  /** What the gateway says happened to this cell's object (its ledger, or its state). */
  happened: Reading;
  /** Money movements of this object that moved money (the gateway's, this cell's orders only). */
  movements: number;
  /** payrun's status and reason, for the report. */
  detail: string;
}

export type Scope = Pick<FaultRule, 'orderIdPrefix' | 'fields'>;

export interface CellContext {
  readonly cell: Cell;
  /** Unique per cell within the run. */
  readonly n: number;
  /** Unique per run: ids of every cell start with it. */
  readonly tag: string;
  // Test code reads answers loosely; the cells assert what matters of them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(key: Key, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Installs the cell's fault on `operation`, scoped so: nothing unless the cell faults that operation. */
  arm(operation: OperationName, scope: Scope): void;
  /** The cell's notification fault (and, when it asks, the notification's loss) for these orders. */
  armNotifications(orderIdPrefix: string, workflowId: string): void;
  /** Duplicate-order cells: another order of the merchant takes `orderId` before payrun sends it. */
  takeFirst(operation: OperationName, orderId: string): Promise<void>;
  ledger(): LedgerEntry[];
  /** The sandbox's admin, for the simulated customer and the gateway's own state. */
  readonly sandbox: import('../../sandbox').Sandbox['admin'];
  readonly db: import('../../db/shared/knex').Db;
  /** Polls `read` until it returns a value (or the cell's deadline passes: then it throws with `what`). */
  until<T>(what: string, read: () => Promise<T | undefined>): Promise<T>;
}

export type Key = 'maker' | 'approver' | 'payments' | 'billing' | 'remittance';

export interface Flow extends FlowSpec {
  /** Cells of this flow run one after another (their fault cannot be scoped to one object). */
  readonly serial?: boolean;
  run(ctx: CellContext): Promise<Observation>;
}

// ---- helpers ---------------------------------------------------------------------------------------------

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Ledger entries of one order that are payrun's (a foreign order that took the orderId sent others). */
const ours = (ctx: CellContext, orderId: string) =>
  ctx.ledger().filter((entry) => entry.orderId === orderId && !entry.requestId.startsWith('outsider-'));
const moving = (entries: LedgerEntry[]) => entries.filter((entry) => entry.outcome !== 'failed');
function ledgerReading(entries: LedgerEntry[]): Reading {
  if (entries.some((entry) => entry.outcome === 'succeeded')) return 'succeeded';
  if (entries.some((entry) => entry.outcome === 'pending')) return 'pending';
  return entries.length ? 'failed' : 'none';
}
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/** payrun's statuses, in the verdict's words. */
function readingOf(status: string): Reading {
  if (['succeeded', 'reconciled', 'active', 'paused', 'settled', 'deleted', 'captured'].includes(status))
    return 'succeeded';
  if (status === 'needs_attention') return 'attention';
  if (['failed', 'refused'].includes(status)) return 'failed';
  if (['expired', 'cancelled', 'not_authorized', 'rejected', 'authorization_expired'].includes(status))
    return 'none';
  return 'pending';
}

async function row<T = Record<string, unknown>>(
  ctx: CellContext,
  table: string,
  where: Record<string, unknown>,
): Promise<T | undefined> {
  return (await ctx.db(table).where(where).first()) as T | undefined;
}

/** A wallet number whose last four digits pick the sandbox scenario (`5555`: paid; `7000`: pending, then paid). */
const walletOf = (ctx: CellContext, ending: string) => `09${pad(ctx.n, 5)}${ending}`;

// ---- disbursements ----------------------------------------------------------------------------------------

const disbursement: Flow = {
  name: 'disbursement',
  // The desk pays it; one it cannot settle at once goes on in its own workflow.
  workflows: ['disbursementDesk', 'disbursement'],
  operations: {
    'disbursement.verify': 'creates-nothing',
    'disbursement.balance': 'creates-nothing',
    'disbursement.pay': 'moves-money',
    'payment.query': 'query',
  },
  notifications: true,
  duplicateOrder: ['disbursement.pay'],
  async run(ctx) {
    const id = `${ctx.tag}d${ctx.n}`;
    const scope = { orderIdPrefix: id };
    for (const operation of Object.keys(this.operations) as OperationName[]) ctx.arm(operation, scope);
    ctx.armNotifications(id, `disbursement/${id}`);
    await ctx.takeFirst('disbursement.pay', id);
    const created = await ctx.call('maker', 'POST', '/v1/disbursements', {
      disbursementId: id,
      amount: 100_000 + ctx.n,
      description: 'Fault matrix',
      wallet: { walletId: walletOf(ctx, ctx.cell.asks ? '7000' : '5555'), walletName: 'Matrix Receiver' },
    });
    if (created.status !== 201)
      throw new Error(`create answered ${created.status} ${JSON.stringify(created.body)}`);
    const record = await ctx.until('the disbursement to end', async () => {
      const found = await row(ctx, 'disbursements', { disbursement_id: id });
      return found && ['succeeded', 'failed', 'needs_attention'].includes(text(found.status))
        ? found
        : undefined;
    });
    // Every cell's payout goes through the desk (settled there, or handed to its own workflow from it).
    if (!record.desk_chunk) throw new Error(`${id} was not taken by the disbursement desk`);
    const entries = ours(ctx, id).filter((entry) => entry.kind === 'disbursement');
    return {
      recorded: readingOf(text(record.status)),
      happened: ledgerReading(entries),
      movements: moving(entries).length,
      detail: `${text(record.status)} ${text(record.result_code)} ${text(record.message)}`,
    };
  },
};

// ---- payout runs ------------------------------------------------------------------------------------------

const payoutRun: Flow = {
  name: 'payout run',
  workflows: ['payoutRun', 'payoutBatch'],
  operations: {
    'batch.init': 'creates-nothing',
    'batch.create': 'creates-nothing',
    'batch.query': 'query',
    'disbursement.balance': 'creates-nothing',
    'batch.pay': 'moves-money',
  },
  notifications: true,
  duplicateOrder: ['batch.init'],
  // After 8003, after the pay, and while items settle.
  asksAgain: ['batch.query'],
  async run(ctx) {
    const rows = [1, 2].map((item) => ({
      payoutId: `${ctx.tag}r${ctx.n}x${item}`,
      wallet: walletOf(ctx, ctx.cell.asks ? '7000' : `55${item}5`),
      amount: 20_000 + ctx.n * 10 + item,
    }));
    const csv = [
      'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
      ...rows.map((item) => `${item.payoutId},${item.wallet},Matrix Receiver,,${item.amount},Fault matrix,`),
    ].join('\n');
    // 503 uploads_busy: the API reads a few files at once; a careful client sends again.
    const uploaded = await ctx.until('the file to be taken', async () => {
      const answer = await ctx.call('maker', 'POST', '/v1/payout-runs?fileName=matrix.csv', csv);
      return answer.status === 503 ? undefined : answer;
    });
    if (uploaded.status !== 201)
      throw new Error(`upload answered ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
    const runId = text(uploaded.body.runId);
    const batchOrderId = `${runId}-b001`;
    for (const operation of Object.keys(this.operations) as OperationName[])
      ctx.arm(operation, { orderIdPrefix: batchOrderId });
    ctx.armNotifications(batchOrderId, `payout-batch/${batchOrderId}`);
    await ctx.takeFirst('batch.init', batchOrderId);
    const approved = await ctx.call('approver', 'POST', `/v1/payout-runs/${runId}/approve`, {});
    if (approved.status !== 200)
      throw new Error(`approve answered ${approved.status} ${JSON.stringify(approved.body)}`);
    const run = await ctx.until('the run to end (or its batch to need attention)', async () => {
      const found = await row(ctx, 'payout_runs', { run_id: runId });
      const batch = await row(ctx, 'payout_batches', { batch_id: batchOrderId });
      if (found && ['reconciled', 'needs_attention'].includes(text(found.status))) return found;
      if (text(batch?.status) === 'needs_attention') return { ...found, status: 'needs_attention' };
      return undefined;
    });
    const items = (await ctx
      .db('payout_items')
      .where({ run_id: runId })
      .select('payout_id', 'state')) as Array<{
      payout_id: string;
      state: string;
    }>;
    const entries = ours(ctx, batchOrderId).filter((entry) => entry.kind === 'batch-item');
    const perItem = rows.map((item) => entries.filter((entry) => entry.itemId === item.payoutId));
    const paid = perItem.map((list) => ledgerReading(list));
    const recorded =
      run.status === 'needs_attention'
        ? 'attention'
        : items.every((item) => item.state === 'SUCCEEDED')
          ? 'succeeded'
          : items.every((item) => ['FAILED', 'INELIGIBLE'].includes(item.state))
            ? 'failed'
            : 'pending';
    return {
      recorded,
      happened: paid.every((reading) => reading === 'succeeded')
        ? 'succeeded'
        : paid.every((reading) => reading === 'none')
          ? 'none'
          : 'pending',
      movements: Math.max(0, ...perItem.map((list) => moving(list).length)),
      detail: `${text(run.status)}: ${items.map((item) => item.state).join(', ')} ${text(run.status_reason)}`,
    };
  },
};

// ---- remittances ------------------------------------------------------------------------------------------

/** Foreign currencies a cell may have alone (its exchange-rate or balance fault is scoped by currency). */
const OWN_CURRENCIES = ['EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'] as const;
/** The cells whose fault is scoped by currency get one each; every other remittance converts USD. */
function currencyOf(ctx: CellContext): string {
  const scopedByCurrency = ['remittance.exchangeRate', 'disbursement.balance'];
  if (!ctx.cell.operation || !scopedByCurrency.includes(ctx.cell.operation)) return 'USD';
  const faults = ['answer lost', 'hang past the timeout', 'HTTP 503', 'retry later (10)'];
  const index =
    scopedByCurrency.indexOf(ctx.cell.operation) * faults.length + faults.indexOf(ctx.cell.fault!.name);
  return OWN_CURRENCIES[index]!;
}

const remittance: Flow = {
  name: 'remittance',
  workflows: ['remittance'],
  operations: {
    'remittance.exchangeRate': 'creates-nothing',
    'remittance.verify': 'creates-nothing',
    'disbursement.balance': 'creates-nothing',
    'remittance.buy': 'moves-money',
    'remittance.create': 'moves-money',
    'payment.query': 'query',
  },
  notifications: true,
  unaskable: ['remittance.buy'],
  async run(ctx) {
    const currency = currencyOf(ctx);
    // About 1.5 million VND, a few cents apart per cell: the buy's amount names the cell.
    const foreignAmount =
      Math.round((1_500_000 / REFERENCE_RATES[currency as keyof typeof REFERENCE_RATES]) * 100 + ctx.n) / 100;
    const walletId = walletOf(ctx, ctx.cell.asks ? '7000' : '5555');
    ctx.arm('remittance.exchangeRate', { fields: { baseCurrency: currency } });
    ctx.arm('remittance.verify', { fields: { 'receiver.walletId': walletId } });
    ctx.arm('disbursement.balance', {
      fields: { orderGroupId: BALANCE_GROUPS[currency as keyof typeof BALANCE_GROUPS] },
    });
    ctx.arm('remittance.buy', { fields: { 'rateInfo.amount': foreignAmount } });
    ctx.arm('remittance.create', { fields: { 'receiver.walletId': walletId } });
    const created = await ctx.call('remittance', 'POST', '/v1/remittances', {
      requestType: 'remitToWallet',
      baseCurrency: currency,
      foreignAmount,
      // A VND amount (below what the foreign amount buys at any sandbox rate): the approval policy weighs it
      // as it is, so the API asks for no rate of its own and the armed exchange-rate fault meets the
      // remittance's quote.
      amount: 1_400_000,
      receiver: { walletId, walletName: 'Tran Thi B', personalId: '012345678901' },
      remittanceInfo: {
        name: 'John Smith',
        partnerName: 'Acme Remit',
        orderingCountry: 'US',
        reason: 'RSN01',
      },
    });
    if (![201, 202].includes(created.status))
      throw new Error(`create answered ${created.status} ${JSON.stringify(created.body)}`);
    const id = text(created.body.remittanceId);
    // The create and its query come after a quote, a check, a balance and a buy: armed in time.
    ctx.arm('payment.query', { orderIdPrefix: id });
    ctx.armNotifications(id, `remittance/${id}`);
    const record = await ctx.until('the remittance to end', async () => {
      const found = await row(ctx, 'remittances', { remittance_id: id });
      return found && ['succeeded', 'failed', 'needs_attention'].includes(text(found.status))
        ? found
        : undefined;
    });
    const sent = ours(ctx, id).filter((entry) => entry.kind === 'remittance');
    const buys = ours(ctx, `${id}-buy`).filter((entry) => entry.kind === 'buy');
    return {
      recorded: readingOf(text(record.status)),
      happened: ledgerReading(sent),
      movements: Math.max(moving(sent).length, moving(buys).length),
      detail: `${text(record.status)}: ${text(record.status_reason)}`,
    };
  },
};

const remittanceQuote: Flow = {
  name: 'remittance quote',
  workflows: ['remittanceQuote'],
  operations: { 'remittance.exchangeRate': 'creates-nothing' },
  // The quote's only id is a fresh requestId (`quote-q…`): its cells run one at a time.
  serial: true,
  async run(ctx) {
    ctx.arm('remittance.exchangeRate', { orderIdPrefix: 'quote' });
    const answer = await ctx.call(
      'remittance',
      'GET',
      '/v1/remittance-quotes?baseCurrency=USD&foreignAmount=10',
    );
    const rate = Number(answer.body?.rate);
    return {
      recorded: answer.status === 200 && rate > 0 ? 'succeeded' : 'failed',
      happened: 'succeeded',
      movements: 0,
      detail: `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
    };
  },
};

// ---- one-time payments, refunds, capture, terminal settlement ---------------------------------------------

const PAYMENT_TYPES = PAYMENT_REQUEST_TYPES.filter((type) => type !== 'pos');
type PaymentType = PaymentRequestType;

/** Ends in 50: none of the sandbox's amount scenarios (1001, 7000, 8000, 8200 …). */
const paymentAmount = (ctx: CellContext) => 150_050 + ctx.n * 100;

async function createPayment(
  ctx: CellContext,
  id: string,
  type: PaymentType,
  extra: Record<string, unknown> = {},
) {
  const amount = paymentAmount(ctx);
  const email = { name: 'Matrix Customer', email: 'matrix@example.com' };
  const body =
    type === 'pos'
      ? {
          paymentId: id,
          storeId: `store${ctx.n}`,
          amount,
          paymentCode: `MX${ctx.n}`,
          orderInfo: 'Fault matrix',
        }
      : {
          paymentId: id,
          requestType: type,
          amount,
          orderInfo: 'Fault matrix',
          ...(['payWithCC', 'payWithPlatformPayA', 'payWithPlatformPayB'].includes(type)
            ? { userInfo: email }
            : {}),
          ...(type === 'payWithEdc'
            ? { storeId: `store${ctx.n}`, serialNumber: `SN${ctx.tag}${ctx.n}` }
            : {}),
          ...extra,
        };
  const created = await ctx.call(
    'payments',
    'POST',
    type === 'pos' ? '/v1/pos-payments' : '/v1/payments',
    body,
  );
  if (![201, 202].includes(created.status))
    throw new Error(`create answered ${created.status} ${JSON.stringify(created.body)}`);
  // The customer pays (not a POS, paid at the scan): whenever payrun's create has reached the gateway.
  if (type !== 'pos')
    await ctx.until('the order to wait for the customer', async () =>
      ctx.sandbox.awaitingCustomer().some((order) => order.orderId === id) ? true : undefined,
    );
  if (type !== 'pos') ctx.sandbox.approvePayment(id);
  return amount;
}

const paymentEnds = [
  'succeeded',
  'failed',
  'expired',
  'cancelled',
  'authorization_expired',
  'authorized_not_captured',
];

async function observePayment(ctx: CellContext, id: string, ends = paymentEnds): Promise<Observation> {
  const record = await ctx.until('the payment to end', async () => {
    const found = await row(ctx, 'payments', { payment_id: id });
    return found && ends.includes(text(found.status)) ? found : undefined;
  });
  const entries = ours(ctx, id).filter((entry) => entry.kind === 'payment');
  return {
    recorded: readingOf(text(record.status)),
    happened: ledgerReading(entries),
    movements: moving(entries).length,
    detail: `${text(record.status)} ${text(record.result_code)} ${text(record.result_message)}`,
  };
}

const paymentFlow = (type: PaymentType): Flow => ({
  name: `payment ${type}`,
  // The desk creates it; one whose create fails, or whose result does not come in time, goes on in its own workflow.
  workflows: ['paymentDesk', 'payment'],
  // The query's cells, and the notification's, run on a wallet payment (list A) and a card one (list B):
  // every type asks and is told the same way.
  operations: {
    [`payment.${type}`]: 'moves-money',
    ...(type === 'captureWallet' ? { 'payment.query': 'query' } : {}),
  },
  notifications: type === 'captureWallet' || type === 'payWithCC',
  duplicateOrder: [`payment.${type}` as OperationName],
  async run(ctx) {
    const id = `${ctx.tag}p${ctx.n}`;
    ctx.arm(`payment.${type}` as OperationName, { orderIdPrefix: id });
    ctx.arm('payment.query', { orderIdPrefix: id });
    ctx.armNotifications(id, `payment/${id}`);
    await ctx.takeFirst(`payment.${type}` as OperationName, id);
    // A foreign order holding the orderId: payrun's create is answered 41, and no customer pays payrun's.
    if (ctx.cell.fault?.name === 'duplicate order') {
      await ctx.call('payments', 'POST', '/v1/payments', {
        paymentId: id,
        requestType: 'captureWallet',
        amount: paymentAmount(ctx),
        orderInfo: 'Fault matrix',
      });
    } else await createPayment(ctx, id, type);
    const observed = await observePayment(ctx, id);
    // Every cell's payment but a POS goes through the desk (ended there, or handed to its own workflow from it).
    if (type !== 'pos' && !(await row(ctx, 'payments', { payment_id: id }))?.desk_chunk)
      throw new Error(`${id} was not taken by the payment desk`);
    return observed;
  },
});

const refund: Flow = {
  name: 'refund',
  workflows: ['refund'],
  operations: { 'refund.create': 'moves-money', 'refund.query': 'query' },
  duplicateOrder: ['refund.create'],
  async run(ctx) {
    const paymentId = `${ctx.tag}f${ctx.n}`;
    const refundOrder = `${paymentId}-r1`;
    await createPayment(ctx, paymentId, 'captureWallet');
    await observePayment(ctx, paymentId, ['succeeded']);
    ctx.arm('refund.create', { orderIdPrefix: refundOrder });
    ctx.arm('refund.query', { orderIdPrefix: refundOrder });
    // To be asked about, a refund's answer must be missing: its first answer is lost too.
    if (ctx.cell.asks)
      ctx.sandbox.addFaults({
        operation: 'refund.create',
        orderIdPrefix: refundOrder,
        dropResponse: true,
        times: 1,
      });
    await ctx.takeFirst('refund.create', refundOrder);
    const asked = await ctx.call('payments', 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 40_000 });
    if (![201, 202].includes(asked.status))
      throw new Error(`refund answered ${asked.status} ${JSON.stringify(asked.body)}`);
    const record = await ctx.until('the refund to end', async () => {
      const found = await row(ctx, 'refunds', { order_id: refundOrder });
      return found && ['succeeded', 'failed', 'needs_attention'].includes(text(found.status))
        ? found
        : undefined;
    });
    const entries = ours(ctx, refundOrder).filter((entry) => entry.kind === 'refund');
    const payment = await row(ctx, 'payments', { payment_id: paymentId });
    // Money given back to the refundable amount (a failed refund) while the gateway refunded: a second
    // refund could be made.
    const released = Number(payment?.refunded_amount) === 0 && ledgerReading(entries) === 'succeeded';
    return {
      recorded: released ? 'failed' : readingOf(text(record.status)),
      happened: ledgerReading(entries),
      movements: moving(entries).length,
      detail: `${text(record.status)} ${text(record.result_code)} ${text(record.result_message)}; refunded_amount ${text(payment?.refunded_amount)}`,
    };
  },
};

const capture: Flow = {
  name: 'capture',
  workflows: ['payment'],
  operations: { 'payment.confirm': 'moves-money' },
  async run(ctx) {
    const id = `${ctx.tag}c${ctx.n}`;
    await createPayment(ctx, id, 'captureWallet', { autoCapture: false });
    await observePayment(ctx, id, ['authorized_not_captured']);
    ctx.arm('payment.confirm', { orderIdPrefix: id });
    await ctx.call('payments', 'POST', `/v1/payments/${id}/capture`, {});
    // A capture whose answer was lost cannot be told from a held authorization by api/query: the payment
    // stays authorized and says so; the operator decides again, and a second capture of a captured
    // payment is answered 41, which means captured.
    const first = await observePayment(ctx, id, ['succeeded', 'failed', 'authorized_not_captured']);
    const status = text((await row(ctx, 'payments', { payment_id: id }))?.status);
    if (status === 'authorized_not_captured') {
      await ctx.until('the first decision to be over', async () => {
        const again = await ctx.call('payments', 'POST', `/v1/payments/${id}/capture`, {});
        return again.status === 200 || again.status === 202 ? true : undefined;
      });
      return {
        ...(await observePayment(ctx, id, ['succeeded', 'failed'])),
        detail: `decided twice; ${first.detail}`,
      };
    }
    return observePayment(ctx, id, ['succeeded', 'failed']);
  },
};

const terminalSettlement: Flow = {
  name: 'terminal settlement',
  workflows: ['terminalSettlement'],
  operations: { 'card.settle': 'creates-nothing' },
  async run(ctx) {
    const id = `${ctx.tag}t${ctx.n}`;
    const storeId = `store${ctx.n}`;
    const serialNumber = `SN${ctx.tag}${ctx.n}`;
    await createPayment(ctx, id, 'payWithEdc', { instrumentType: 'CARD' });
    await observePayment(ctx, id, ['succeeded']);
    ctx.arm('card.settle', { fields: { serialNumber } });
    const settled = await ctx.call('payments', 'POST', '/v1/terminals/settle', { storeId, serialNumber });
    if (![200, 201, 202].includes(settled.status))
      throw new Error(`settle answered ${settled.status} ${JSON.stringify(settled.body)}`);
    const record = await ctx.until('the settlement to end', async () => {
      const found = await ctx
        .db('terminal_settlements')
        .where({ store_id: storeId, serial_number: serialNumber })
        .whereIn('status', ['settled', 'failed'])
        .first();
      return found as Record<string, unknown> | undefined;
    });
    // The gateway's settlement of this terminal: the one entry that moved this cell's card payment.
    const amount = paymentAmount(ctx);
    const settlements = ctx
      .ledger()
      .filter((entry) => entry.kind === 'settlement' && entry.amount === amount);
    return {
      recorded: readingOf(text(record.status)),
      happened: settlements.length ? 'succeeded' : 'none',
      movements: 0,
      detail: `${text(record.status)} ${text(record.result_code)} ${text(record.result_message)}`,
    };
  },
};

// ---- subscriptions ----------------------------------------------------------------------------------------

async function createSubscription(ctx: CellContext, id: string, recurringAmount: number, approve = true) {
  const created = await ctx.call('billing', 'POST', '/v1/subscriptions', {
    subscriptionId: id,
    partnerClientId: `${id}-member`,
    amount: 0,
    orderInfo: 'Fault matrix',
    subscriptionInfo: {
      name: 'Matrix gym',
      type: 'FIXED',
      recurringAmount,
      frequency: 'MONTHLY',
      // Cycle 1 fell due yesterday: billed as soon as the customer authorizes (billing hour 0).
      nextPaymentDate: addDays(dayOfGmt7(Date.now()), -1),
    },
  });
  if (created.status !== 201)
    throw new Error(`create answered ${created.status} ${JSON.stringify(created.body)}`);
  // A foreign order holding the subscription's orderId: the order waiting for a customer is not payrun's.
  if (!approve) return;
  await ctx.until('the authorization link', async () =>
    ctx.sandbox.awaitingCustomer().some((order) => order.orderId === id) ? true : undefined,
  );
  ctx.sandbox.approvePayment(id);
}

async function chargeOfCycle1(ctx: CellContext, id: string) {
  return ctx.until('cycle 1 to be charged (or the subscription to end)', async () => {
    const subscription = await row(ctx, 'subscriptions', { subscription_id: id });
    const charges = (await ctx.db('subscription_charges').where({ subscription_id: id, cycle: 1 })) as Array<
      Record<string, unknown>
    >;
    const last = charges.sort((a, b) => Number(b.attempt) - Number(a.attempt))[0];
    if (last && ['succeeded', 'failed', 'needs_attention'].includes(text(last.status)))
      return { subscription, charge: last };
    if (
      subscription &&
      ['not_authorized', 'cancelled', 'expired', 'needs_reauthorization'].includes(text(subscription.status))
    )
      return { subscription, charge: undefined };
    return undefined;
  });
}

const subscription: Flow = {
  name: 'subscription',
  // The desk makes the start; cycle 1 is a plain cycle: its workflow hands it to the day's billing run.
  workflows: ['subscriptionDesk', 'subscription', 'billingRun'],
  operations: {
    'subscription.start': 'moves-money',
    'tokenization.cbQuery': 'query',
    'subscription.create': 'creates-nothing',
    'subscription.pay': 'moves-money',
    'payment.query': 'query',
  },
  notifications: true,
  duplicateOrder: ['subscription.start', 'subscription.pay'],
  // The authorization's query, then (asking) the pending charge's.
  asksAgain: ['payment.query'],
  async run(ctx) {
    const id = `${ctx.tag}s${ctx.n}`;
    for (const operation of Object.keys(this.operations) as OperationName[])
      ctx.arm(operation, { orderIdPrefix: id });
    ctx.armNotifications(id, `subscription/${id}`);
    await ctx.takeFirst('subscription.start', id);
    await ctx.takeFirst('subscription.pay', `${id}-c1`);
    // Asking: the charge is pending first (an amount ending 7000), so its outcome comes by query.
    const amount = ctx.cell.asks ? 57_000 + ctx.n * 10_000 : 50_050 + ctx.n * 100;
    // A foreign order holds the subscription's orderId: the order waiting for a customer is not payrun's.
    const foreignStart =
      ctx.cell.fault?.name === 'duplicate order' && ctx.cell.operation === 'subscription.start';
    await createSubscription(ctx, id, amount, !foreignStart);
    const { subscription: record, charge } = await chargeOfCycle1(ctx, id);
    // Every cell's subscription goes through the desk (started there, or handed to its workflow from it).
    if (!record?.desk_chunk) throw new Error(`${id} was not taken by the subscription desk`);
    const entries = ctx
      .ledger()
      .filter((entry) => entry.kind === 'subscription-charge' && entry.orderId.startsWith(`${id}-c1`))
      .filter((entry) => !entry.requestId.startsWith('outsider-'));
    return {
      recorded: charge ? readingOf(text(charge.status)) : readingOf(text(record?.status)),
      happened: ledgerReading(entries),
      movements: moving(entries).length,
      detail: `subscription ${text(record?.status)} ${text(record?.status_reason)}; cycle 1 ${text(charge?.status)} ${text(charge?.result_code)} ${text(charge?.message)}`,
    };
  },
};

const subscriptionPause: Flow = {
  name: 'subscription pause',
  workflows: ['subscription'],
  operations: { 'subscription.manage': 'creates-nothing' },
  async run(ctx) {
    const id = `${ctx.tag}m${ctx.n}`;
    await createSubscription(ctx, id, 50_050 + ctx.n * 100);
    await chargeOfCycle1(ctx, id);
    ctx.arm('subscription.manage', { orderIdPrefix: `${id}-m` });
    const paused = await ctx.call('billing', 'POST', `/v1/subscriptions/${id}/pause`, { reason: 'matrix' });
    const record = await ctx.until('the pause', async () => {
      const found = await row(ctx, 'subscriptions', { subscription_id: id });
      return found && text(found.status) !== 'active' ? found : paused.status >= 400 ? found : undefined;
    });
    const atGateway = ctx.sandbox.subscription(id)?.status;
    return {
      recorded: text(record?.status) === 'paused' ? 'succeeded' : readingOf(text(record?.status)),
      happened: atGateway === 'paused' ? 'succeeded' : 'none',
      movements: 0,
      detail: `${paused.status}; payrun ${text(record?.status)}, gateway ${atGateway}`,
    };
  },
};

// ---- saved methods ----------------------------------------------------------------------------------------

const BINDING_KINDS = {
  wallet: 'binding.linkWallet',
  card: 'binding.payWithCC',
  domestic: 'binding.payWithATM',
} as const;

async function bind(ctx: CellContext, kind: keyof typeof BINDING_KINDS, label: string, armed: boolean) {
  const partnerClientId = `${ctx.tag}${label}${ctx.n}`;
  const email = `${partnerClientId}@example.com`;
  if (armed)
    ctx.arm(
      BINDING_KINDS[kind],
      kind === 'wallet'
        ? { fields: { 'userInfo.phoneNumber': `09${pad(ctx.n, 8)}` } }
        : { fields: { 'userInfo.email': email } },
    );
  const created = await ctx.call('payments', 'POST', '/v1/saved-method-bindings', {
    kind,
    partnerClientId,
    userInfo: kind === 'wallet' ? { phoneNumber: `09${pad(ctx.n, 8)}` } : { name: 'Matrix Customer', email },
  });
  if (created.status !== 201)
    throw new Error(`binding answered ${created.status} ${JSON.stringify(created.body)}`);
  const bindingId = text(created.body.bindingId);
  if (armed) {
    ctx.arm('tokenization.cbQuery', { orderIdPrefix: bindingId });
    ctx.arm('tokenization.bind', { orderIdPrefix: bindingId });
    ctx.armNotifications(bindingId, `saved-method-binding/${bindingId}`);
  }
  await ctx.until('the binding link', async () =>
    ctx.sandbox.awaitingCustomer().some((order) => order.orderId === bindingId) ? true : undefined,
  );
  ctx.sandbox.approvePayment(bindingId);
  const record = await ctx.until('the binding to end', async () => {
    const found = await row(ctx, 'saved_method_bindings', { binding_id: bindingId });
    return found && ['active', 'failed', 'expired'].includes(text(found.status)) ? found : undefined;
  });
  return { bindingId, partnerClientId, record };
}

const bindingFlow = (kind: keyof typeof BINDING_KINDS): Flow => ({
  name: `saved-method binding ${kind}`,
  workflows: ['savedMethodBinding'],
  operations: {
    [BINDING_KINDS[kind]]: 'moves-money',
    ...(kind === 'wallet' ? { 'tokenization.cbQuery': 'query', 'tokenization.bind': 'creates-nothing' } : {}),
  },
  notifications: kind === 'wallet',
  async run(ctx) {
    const { partnerClientId, record } = await bind(ctx, kind, `b${kind[0]}`, true);
    const tokens = ctx.sandbox.tokens().filter((token) => token.partnerClientId.endsWith(partnerClientId));
    return {
      recorded: readingOf(text(record.status)),
      happened: tokens.some((token) => token.status === 'active') ? 'succeeded' : 'none',
      movements: 0,
      detail: `${text(record.status)} ${text(record.result_code)} ${text(record.message)}; ${tokens.length} tokens`,
    };
  },
});

async function savedMethod(ctx: CellContext) {
  const { record } = await bind(ctx, 'card', 'k', false);
  if (text(record.status) !== 'active') throw new Error(`the card did not bind: ${JSON.stringify(record)}`);
  return text(record.method_id);
}

async function observeSavedMethodPayment(ctx: CellContext, id: string): Promise<Observation> {
  const record = await ctx.until('the saved-method payment to end', async () => {
    const found = await row(ctx, 'saved_method_payments', { payment_id: id });
    return found && ['succeeded', 'failed', 'needs_attention'].includes(text(found.state))
      ? found
      : undefined;
  });
  const entries = ours(ctx, id).filter((entry) => entry.kind === 'payment');
  return {
    recorded: readingOf(text(record.state)),
    happened: ledgerReading(entries),
    movements: moving(entries).length,
    detail: `${text(record.state)} ${text(record.result_code)} ${text(record.message)}`,
  };
}

const savedMethodPayment: Flow = {
  name: 'saved-method payment',
  workflows: ['savedMethodPayment'],
  operations: { 'tokenization.pay': 'moves-money', 'payment.query': 'query' },
  notifications: true,
  duplicateOrder: ['tokenization.pay'],
  async run(ctx) {
    const methodId = await savedMethod(ctx);
    const id = `${ctx.tag}y${ctx.n}`;
    ctx.arm('tokenization.pay', { orderIdPrefix: id });
    ctx.arm('payment.query', { orderIdPrefix: id });
    ctx.armNotifications(id, `saved-method-payment/${id}`);
    await ctx.takeFirst('tokenization.pay', id);
    const paid = await ctx.call('payments', 'POST', '/v1/saved-method-payments', {
      paymentId: id,
      methodId,
      // Asking: pending first (ending 7000), its outcome by notification or query.
      amount: ctx.cell.asks ? 17_000 + ctx.n * 10_000 : 150_050 + ctx.n * 100,
      description: 'Fault matrix',
    });
    if (![201, 202].includes(paid.status))
      throw new Error(`pay answered ${paid.status} ${JSON.stringify(paid.body)}`);
    return observeSavedMethodPayment(ctx, id);
  },
};

const savedMethodOtp: Flow = {
  name: 'saved-method payment with OTP',
  workflows: ['savedMethodPayment'],
  // The pay whose answer (8200: a code was sent) may be lost, and the verify of the code.
  operations: { 'tokenization.pay': 'moves-money', 'tokenization.verify': 'moves-money' },
  async run(ctx) {
    const methodId = await savedMethod(ctx);
    const id = `${ctx.tag}o${ctx.n}`;
    ctx.arm('tokenization.pay', { orderIdPrefix: id });
    ctx.arm('tokenization.verify', { orderIdPrefix: id });
    const paid = await ctx.call('payments', 'POST', '/v1/saved-method-payments', {
      paymentId: id,
      methodId,
      amount: 18_200 + ctx.n * 10_000,
      description: 'Fault matrix',
    });
    if (![201, 202].includes(paid.status))
      throw new Error(`pay answered ${paid.status} ${JSON.stringify(paid.body)}`);
    const code = await ctx.until('the code to be sent', async () => {
      const inbox = ctx.sandbox.otpInbox().filter((message) => message.orderId === id);
      return inbox.at(-1);
    });
    // The gateway takes a code no sooner than 3 s after it sent it.
    await ctx.until('3 s after the code was sent', async () =>
      Date.now() > Date.parse(code.sentAt) + 3_200 ? true : undefined,
    );
    // When the pay's answer was lost, payrun counts the 3 s from its retry (it cannot know the send time) and
    // answers 429 otp_too_soon a little longer: the customer's app tries again, as this does.
    await ctx.until('the code to be taken', async () => {
      const sent = await ctx.call('payments', 'POST', `/v1/saved-method-payments/${id}/otp`, {
        code: code.code,
      });
      return sent.status === 429 ? undefined : sent;
    });
    return observeSavedMethodPayment(ctx, id);
  },
};

const savedMethodDeletion: Flow = {
  name: 'saved-method deletion',
  workflows: ['savedMethodDeletion'],
  operations: { 'tokenization.delete': 'creates-nothing' },
  async run(ctx) {
    const methodId = await savedMethod(ctx);
    const binding = await row(ctx, 'saved_methods', { method_id: methodId });
    ctx.arm('tokenization.delete', { orderIdPrefix: `${text(binding?.initial_order_id)}-del` });
    const deleted = await ctx.call('payments', 'DELETE', `/v1/saved-methods/${methodId}`);
    const record = await ctx.until('the deletion', async () => {
      const found = await row(ctx, 'saved_methods', { method_id: methodId });
      return found && text(found.status) !== 'deleting' && text(found.status) !== 'active'
        ? found
        : undefined;
    });
    const token = ctx.sandbox
      .tokens()
      .find((entry) => entry.initialOrderId === text(binding?.initial_order_id));
    return {
      recorded: readingOf(text(record.status)),
      happened: token?.status === 'revoked' ? 'succeeded' : 'none',
      movements: 0,
      detail: `${deleted.status}; payrun ${text(record.status)}, gateway ${text(token?.status)}`,
    };
  },
};

export const FLOWS: readonly Flow[] = [
  disbursement,
  payoutRun,
  remittance,
  remittanceQuote,
  ...PAYMENT_TYPES.map(paymentFlow),
  paymentFlow('pos'),
  refund,
  capture,
  terminalSettlement,
  subscription,
  subscriptionPause,
  bindingFlow('wallet'),
  bindingFlow('card'),
  bindingFlow('domestic'),
  savedMethodPayment,
  savedMethodOtp,
  savedMethodDeletion,
];

/** Workflows the worker registers that move no money and call no gateway operation. */
export const NOT_MONEY_FLOWS: Readonly<Record<string, string>> = {
  stackCheck: 'the self-check: one database write and one gateway balance read, nothing kept',
  webhookEndpoint: "delivers payrun's own events to a merchant endpoint; no gateway call",
  webhookResend: "re-delivers payrun's own events; no gateway call",
  holdRelease:
    'signals held items to go on at the chosen rate; no gateway call (each item makes its own, in its own flow)',
  payeeCheck: "a payee's wallet check (disbursement/verify): reads the receiver, moves no money",
  balanceWatch: 'reads the merchant balance against its thresholds and raises balance events; moves no money',
  merchantBalance: "one balance read for the dashboard's forecast; moves no money",
  subscriptionNotice: 'sends one mail to a subscriber; no gateway call',
  planPriceChange:
    "hands a plan's price change to each of its subscriptions (a signal); each subscription's own workflow makes the gateway calls",
  recurringPayoutOccurrence:
    'records one run of a schedule and starts its payoutRun (a flow of the matrix, which pays); no gateway call of its own',
};
