import { CODE } from '../codes';
import { defaultMessage, outcome, type HandlerOutcome, type HandlerTable } from '../handler';
import { walletScenario } from '../scenarios';
import type { Batch, BatchItem, BatchItemState } from '../state';
import type { SandboxWorld } from '../world';

/**
 * Document 3, batch disbursement: init (mToken) → create (upload; validation later, 8003 IPN) → pay
 * (payment later, result IPN) → query (pages). Each step handles the whole batch at once — no
 * per-item timers — so a 1000-item batch moves as fast as one item.
 */

const REQUEST_TYPE = 'batchWallet';

export const batchHandlers: HandlerTable = {
  'batch.init': {
    handle(request, world) {
      const { fields, orderId } = request;
      const taken = world.state.orders.get(orderId);
      const earlier = world.state.batches.get(orderId);
      // An init answered but lost can only be recovered by another init: the spec shows no way to read an
      // mToken again. So a batch not created yet is initiated again (gateway/README assumption 1), and the
      // mToken issued before stops working; once batch/create used the orderId, it is taken.
      if ((taken && !earlier) || (earlier && earlier.phase !== 'initiated'))
        return outcome(
          CODE.duplicateOrderId,
          `Duplicated orderId: ${orderId} was already used by ${taken?.operation ?? 'batch.create'}`,
        );
      const batch: Batch = {
        orderId,
        mToken: `mt${world.random.hex(40)}`,
        amount: Number(fields.amount),
        phase: 'initiated',
        initRequestId: request.requestId,
        ...(typeof fields.ipnUrl === 'string' ? { ipnUrl: fields.ipnUrl } : {}),
        items: [],
      };
      world.state.batches.set(orderId, batch);
      world.state.orders.set(orderId, { operation: 'batch.init', requestId: request.requestId });
      return outcome(CODE.success, undefined, { amount: batch.amount, mToken: batch.mToken });
    },
  },

  'batch.create': {
    handle(request, world) {
      const { fields, orderId } = request;
      const batch = world.state.batches.get(orderId);
      if (!batch)
        return outcome(CODE.invalidOrder, `orderId ${orderId} was not initiated (call batch init first)`);
      if (fields.mToken !== batch.mToken)
        return outcome(CODE.invalidToken, `mToken does not belong to orderId ${orderId}`);
      if (batch.phase !== 'initiated')
        return outcome(
          CODE.duplicateOrderId,
          `Duplicated orderId: batch ${orderId} was already created (requestId ${batch.createRequestId})`,
        );
      if (fields.amount !== batch.amount)
        return outcome(
          CODE.badFormat,
          `amount ${String(fields.amount)} differs from the total ${batch.amount} given at batch init`,
        );
      // The gateway refuses a batch the balance cannot cover at all, before validating anything;
      // the batch stays initiated, so the same orderId is created after a top-up (new requestId).
      if (!world.balances.canDebit('VND', batch.amount))
        return outcome(
          CODE.merchantBalanceInsufficient,
          `Merchant balance insufficient: ${world.balances.get('VND')} VND available, ` +
            `${batch.amount} VND uploaded in this batch; nothing was created`,
        );
      batch.items = (fields.disbursements as readonly Record<string, unknown>[]).map(toItem);
      batch.phase = 'validating';
      batch.createRequestId = request.requestId;
      if (typeof fields.description === 'string') batch.description = fields.description;
      if (typeof fields.ipnUrl === 'string') batch.ipnUrl = fields.ipnUrl;
      world.scheduler.after(world.config.timing.batchValidationMs, () => validate(world, batch));
      return outcome(
        CODE.success,
        'Batch uploaded; the validation result follows by IPN (8003)',
        uploaded(batch),
      );
    },
  },

  'batch.pay': {
    handle(request, world) {
      const { orderId } = request;
      const batch = world.state.batches.get(orderId);
      if (!batch || batch.phase === 'initiated')
        return outcome(CODE.invalidOrder, `no batch was created under orderId ${orderId}`);
      if (batch.phase === 'validating')
        return stillValidating(`batch ${orderId} is still being validated; pay after the 8003 notification`);
      if (batch.phase !== 'created')
        return outcome(
          CODE.duplicateOrderId,
          `Duplicated orderId: batch ${orderId} was already paid (requestId ${batch.payRequestId})`,
        );
      const eligible = sumAmounts(batch.items.filter((item) => item.state === 'ELIGIBLE'));
      if (!world.balances.canDebit('VND', eligible))
        return outcome(
          CODE.merchantBalanceInsufficient,
          `Merchant balance insufficient: ${world.balances.get('VND')} VND available, ` +
            `${eligible} VND needed for the eligible items; nothing was paid`,
          uploaded(batch),
        );
      // Reserved now so that other payouts cannot spend it before the payment step; failures give it back.
      world.balances.debit('VND', eligible);
      batch.phase = 'paying';
      batch.payRequestId = request.requestId;
      world.scheduler.after(world.config.timing.batchPaymentMs, () => pay(world, batch));
      return outcome(CODE.success, 'Batch payment accepted; the result follows by IPN', uploaded(batch));
    },
  },

  'batch.query': {
    handle(request, world) {
      const { fields, orderId } = request;
      const batch = world.state.batches.get(orderId);
      if (!batch || batch.phase === 'initiated')
        return outcome(CODE.invalidOrder, `no batch was created under orderId ${orderId}`);
      if (batch.phase === 'validating')
        return stillValidating(
          `batch ${orderId} is still being validated; items are listed after the 8003 notification`,
          uploaded(batch),
        );
      const states = fields.states as readonly BatchItemState[] | undefined;
      const filter = states && states.length > 0 ? new Set(states) : undefined;
      const matching = filter ? batch.items.filter((item) => filter.has(item.state!)) : batch.items;
      const pageSize = Number(fields.pageSize);
      const pageNum = Number(fields.pageNum);
      const page = matching.slice((pageNum - 1) * pageSize, pageNum * pageSize);
      return outcome(CODE.success, undefined, {
        ...totals(batch),
        disbursements: page.map(view),
        pageNum,
        pageSize,
        totalPages: Math.ceil(matching.length / pageSize),
      });
    },
  },
};

/**
 * "Not yet" answers are not kept under the requestId: nothing happened, so re-sending the same
 * request after the 8003 notification (an activity retry does exactly that) must get a real answer.
 */
function stillValidating(message: string, fields?: Readonly<Record<string, unknown>>): HandlerOutcome {
  return { ...outcome(CODE.processing, message, fields), untouched: { requestId: true } };
}

function toItem(entry: Readonly<Record<string, unknown>>): BatchItem {
  const method = entry.method as Readonly<Record<string, unknown>>;
  return {
    id: String(entry.id),
    walletId: String(method.walletId),
    ...(typeof method.walletName === 'string' ? { walletName: method.walletName } : {}),
    amount: Number(entry.amount),
    ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
    ...(typeof entry.storeId === 'string' ? { storeId: entry.storeId } : {}),
  };
}

/** Creation step: every item ELIGIBLE or INELIGIBLE by its wallet's scenario, then the 8003 IPN. */
function validate(world: SandboxWorld, batch: Batch): void {
  for (const item of batch.items) {
    const code = walletScenario(item.walletId).ineligible;
    if (code === undefined) setState(item, 'ELIGIBLE', CODE.success, 'Eligible');
    else setState(item, 'INELIGIBLE', code);
  }
  batch.phase = 'created';
  notify(
    world,
    batch,
    'batch.created',
    batch.createRequestId!,
    CODE.batchCreated,
    defaultMessage(CODE.batchCreated),
  );
}

/** Payment step: each ELIGIBLE item SUCCEEDED, FAILED or PENDING by scenario; then the result IPN. */
function pay(world: SandboxWorld, batch: Batch): void {
  let pending = 0;
  for (const item of batch.items) {
    if (item.state !== 'ELIGIBLE') continue;
    const payment = walletScenario(item.walletId).payment;
    const base = {
      orderId: batch.orderId,
      itemId: item.id,
      requestId: batch.payRequestId!,
      kind: 'batch-item' as const,
      amount: item.amount,
      currency: 'VND' as const,
    };
    if (payment.kind === 'reject') {
      world.balances.credit('VND', item.amount);
      setState(item, 'FAILED', payment.code);
      item.ledgerEntry = world.ledger.record({ ...base, outcome: 'failed', resultCode: payment.code });
      continue;
    }
    item.transId = world.nextTransId();
    if (payment.kind === 'success') {
      setState(item, 'SUCCEEDED', CODE.success);
      item.ledgerEntry = world.ledger.record({
        ...base,
        transId: item.transId,
        outcome: 'succeeded',
        resultCode: 0,
      });
    } else {
      pending += 1;
      setState(item, 'PENDING', payment.code);
      item.ledgerEntry = world.ledger.record({
        ...base,
        transId: item.transId,
        outcome: 'pending',
        resultCode: payment.code,
      });
    }
  }
  batch.phase = 'paid';
  notify(world, batch, 'batch.paid', batch.payRequestId!, CODE.success, 'Batch payment processed');
  if (pending > 0)
    world.pending.add(`batch:${batch.orderId}`, world.config.timing.pendingSettleMs, () =>
      settle(world, batch),
    );
}

/** PENDING items reach their final state together; another batch-paid IPN carries the new totals. */
function settle(world: SandboxWorld, batch: Batch): number {
  let settled = 0;
  for (const item of batch.items) {
    if (item.state !== 'PENDING') continue;
    settled += 1;
    const payment = walletScenario(item.walletId).payment;
    const finalCode = payment.kind === 'pending' ? payment.finalCode : CODE.success;
    if (finalCode === CODE.success) setState(item, 'SUCCEEDED', finalCode);
    else {
      world.balances.credit('VND', item.amount);
      setState(item, 'FAILED', finalCode);
    }
    if (item.ledgerEntry)
      world.ledger.settle(item.ledgerEntry, finalCode === 0 ? 'succeeded' : 'failed', finalCode);
  }
  notify(
    world,
    batch,
    'batch.paid',
    batch.payRequestId!,
    CODE.success,
    'Batch payment updated: pending items settled',
  );
  return settled;
}

function setState(item: BatchItem, state: BatchItemState, resultCode: number, message?: string): void {
  item.state = state;
  item.resultCode = resultCode;
  item.message = message ?? defaultMessage(resultCode);
}

function notify(
  world: SandboxWorld,
  batch: Batch,
  kind: 'batch.created' | 'batch.paid',
  requestId: string,
  resultCode: number,
  message: string,
): void {
  const all = totals(batch);
  const { totalPendingCount, totalPendingAmount, ...created } = all;
  world.ipn.send({
    kind,
    source: kind === 'batch.created' ? 'batch.create' : 'batch.pay',
    url: batch.ipnUrl,
    fields: {
      partnerCode: world.config.merchant.partnerCode,
      orderId: batch.orderId,
      requestId,
      amount: batch.amount,
      resultCode,
      message,
      requestType: REQUEST_TYPE,
      disbursementBatchInfo:
        kind === 'batch.created' ? created : { ...created, totalPendingCount, totalPendingAmount },
    },
  });
}

const sumAmounts = (items: readonly BatchItem[]) => items.reduce((sum, item) => sum + item.amount, 0);

function uploaded(batch: Batch) {
  return { totalUploadedCount: batch.items.length, totalUploadedAmount: sumAmounts(batch.items) };
}

/**
 * Totals over the whole batch, whatever the page or filter. "Succeed" counts items that moved or
 * will move money (ELIGIBLE before payment, SUCCEEDED after), "error" those that will not
 * (INELIGIBLE, FAILED), "pending" the PENDING ones.
 */
function totals(batch: Batch) {
  const sums = { succeed: [0, 0], error: [0, 0], pending: [0, 0] };
  for (const item of batch.items) {
    const bucket =
      item.state === 'ELIGIBLE' || item.state === 'SUCCEEDED'
        ? sums.succeed
        : item.state === 'PENDING'
          ? sums.pending
          : sums.error;
    bucket[0]! += 1;
    bucket[1]! += item.amount;
  }
  return {
    ...uploaded(batch),
    totalSucceedCount: sums.succeed[0]!,
    totalSucceedAmount: sums.succeed[1]!,
    totalErrorCount: sums.error[0]!,
    totalErrorAmount: sums.error[1]!,
    totalPendingCount: sums.pending[0]!,
    totalPendingAmount: sums.pending[1]!,
  };
}

function view(item: BatchItem) {
  return {
    id: item.id,
    method: {
      walletId: item.walletId,
      ...(item.walletName === undefined ? {} : { walletName: item.walletName }),
    },
    amount: item.amount,
    ...(item.description === undefined ? {} : { description: item.description }),
    ...(item.storeId === undefined ? {} : { storeId: item.storeId }),
    resultCode: item.resultCode,
    message: item.message,
    ...(item.transId === undefined ? {} : { transId: item.transId }),
    state: item.state,
  };
}
