import { describe, expect, it } from 'vitest';
import { parseNotification } from '../../gateway';
import { batchSteps, sum, type Item } from './batch-steps';
import { ids, keys, wallet, useTestGateway } from './support';

// Pending items settle only when a test says so, and validation lasts long enough to be observed even
// on a loaded machine: the assertions below read those in-between states. (Settling on its own after
// pendingSettleMs is checked in batch-auto-settle.test.ts.)
const { gw, ipn } = useTestGateway({
  balances: { VND: 100_000_000_000 },
  timing: { pendingSettleMs: 600_000, batchValidationMs: 400 },
});

/** 1000 items: mostly plain wallets, plus every batch scenario. */
function thousandItems(): Item[] {
  const special: Record<number, string> = {
    0: '1007',
    1: '4001',
    2: '4002',
    3: '4003',
    4: '1008',
    5: '7000',
    6: '7002',
    7: '7099',
  };
  return Array.from({ length: 1000 }, (_, i) => ({
    id: `item-${i}`,
    method: wallet(special[i % 100] ?? String(5000 + (i % 1000)).padStart(4, '0'), `Receiver ${i}`),
    amount: 10_000 + i,
  }));
}

const itemsEndingIn = (items: readonly Item[], ...lastFour: string[]) =>
  items.filter((item) => lastFour.includes(item.method.walletId.slice(-4)));

const { initAndCreate, batchIpn, queryAll } = batchSteps(gw, ipn);

describe('batch disbursement of 1000 items', () => {
  it('init → create → 8003 IPN → pay → result IPN → query pages → settle pending', async () => {
    const items = thousandItems();
    const { orderId, amount, init, create } = await initAndCreate(items);
    expect(init.body.mToken).toEqual(expect.any(String));
    expect(create.body).toMatchObject({
      resultCode: 0,
      totalUploadedCount: 1000,
      totalUploadedAmount: amount,
    });
    expect(create.classification.action).toBe('wait-for-ipn');

    const ineligible = itemsEndingIn(items, '1007', '4001', '4002', '4003');
    const created = await ipn.waitFor(batchIpn(orderId, 8003));
    const createdIpn = parseNotification('batch.created', created.raw, keys);
    expect(createdIpn.classification?.action).toBe('batch-created');
    expect(createdIpn.fields).toMatchObject({ requestType: 'batchWallet', amount });
    expect(createdIpn.fields.disbursementBatchInfo).toEqual({
      totalUploadedCount: 1000,
      totalUploadedAmount: amount,
      totalSucceedCount: 1000 - ineligible.length,
      totalSucceedAmount: amount - sum(ineligible),
      totalErrorCount: ineligible.length,
      totalErrorAmount: sum(ineligible),
    });

    const before = gw.sandbox.admin.balance('VND');
    const pay = await gw.client.call('batch.pay', { ...ids('pay'), orderId });
    expect(pay.body).toMatchObject({ resultCode: 0, totalUploadedCount: 1000 });

    const failed = itemsEndingIn(items, '1008');
    const pending = itemsEndingIn(items, '7000', '7002', '7099');
    const succeeded = items.length - ineligible.length - failed.length - pending.length;
    const paid = await ipn.waitFor(batchIpn(orderId, 0));
    const paidIpn = parseNotification('batch.paid', paid.raw, keys);
    expect(paidIpn.fields.disbursementBatchInfo).toMatchObject({
      totalSucceedCount: succeeded,
      totalErrorCount: ineligible.length + failed.length,
      totalPendingCount: pending.length,
      totalPendingAmount: sum(pending),
    });
    // Pending items stay reserved; failed ones were given back.
    expect(gw.sandbox.admin.balance('VND')).toBe(before - (amount - sum(ineligible) - sum(failed)));

    const pages = await queryAll(orderId);
    expect(pages).toHaveLength(20);
    expect(pages.every((page) => page.body.disbursements?.length === 50)).toBe(true);
    expect(new Set(pages.flatMap((page) => page.body.disbursements!.map((item) => item.id))).size).toBe(1000);
    expect(pages[0]!.body).toMatchObject({
      totalPages: 20,
      totalUploadedCount: 1000,
      totalPendingCount: pending.length,
    });

    const onlyIneligible = await queryAll(orderId, ['INELIGIBLE']);
    const listed = onlyIneligible.flatMap((page) => page.body.disbursements!);
    expect(listed).toHaveLength(ineligible.length);
    expect(listed.every((item) => item.state === 'INELIGIBLE')).toBe(true);
    expect(onlyIneligible[0]!.body).toMatchObject({ totalPages: 1, totalUploadedCount: 1000 });
    expect(listed.find((item) => item.id === 'item-0')).toMatchObject({ resultCode: 1007 });

    const pendingPage = await gw.client.call('batch.query', {
      ...ids('q'),
      orderId,
      pageSize: 50,
      pageNum: 1,
      states: ['PENDING'],
    });
    expect(pendingPage.body.disbursements!.map((item) => item.resultCode).sort()).toEqual(
      [...Array(10).fill(7000), ...Array(10).fill(7002), ...Array(10).fill(7000)].sort(),
    );

    // Pending items settle: 7000/7002 succeed, 7099 fail, and another batch-paid IPN carries the totals.
    expect(gw.sandbox.admin.settlePending()).toEqual({ settled: pending.length });
    const [, update] = await ipn.waitForCount(batchIpn(orderId, 0), 2);
    const finalInfo = parseNotification('batch.paid', update!.raw, keys).fields.disbursementBatchInfo;
    const lateFailures = itemsEndingIn(items, '7099');
    expect(finalInfo).toMatchObject({
      totalPendingCount: 0,
      totalSucceedCount: succeeded + pending.length - lateFailures.length,
      totalErrorCount: ineligible.length + failed.length + lateFailures.length,
    });

    // Ledger: every eligible item moved money at most once, and the totals reconcile with the balance.
    const ledger = gw.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);
    const keysSeen = ledger.map((entry) => entry.itemId);
    expect(new Set(keysSeen).size).toBe(keysSeen.length);
    expect(ledger).toHaveLength(1000 - ineligible.length);
    const movedOut = ledger
      .filter((entry) => entry.outcome === 'succeeded')
      .reduce((t, e) => t + e.amount, 0);
    expect(gw.sandbox.admin.balance('VND')).toBe(before - movedOut);
    expect(ledger.some((entry) => entry.outcome === 'pending')).toBe(false);
  });
});

describe('batch rules', () => {
  const two = () => [
    { id: 'one', method: wallet('1111'), amount: 10_000 },
    { id: 'two', method: wallet('2222'), amount: 20_000 },
  ];

  it('query and pay while validating answer 7000 (no items, nothing paid)', async () => {
    const { orderId } = await initAndCreate(two(), 'early');
    const query = await gw.client.call('batch.query', { ...ids('q'), orderId, pageSize: 50, pageNum: 1 });
    expect(query.body).toMatchObject({ resultCode: 7000 });
    expect(query.body.disbursements).toBeUndefined();
    const early = { ...ids('pay'), orderId };
    const pay = await gw.client.call('batch.pay', early);
    expect(pay.resultCode).toBe(7000);
    expect(pay.message).toMatch(/still being validated/);
    await ipn.waitFor(batchIpn(orderId, 8003));
    // "Not yet" was not stored: the same requestId now pays.
    expect((await gw.client.call('batch.pay', early)).resultCode).toBe(0);
  });

  it('a batch is paid once: a second pay with a new requestId is refused with 41', async () => {
    const { orderId } = await initAndCreate(two(), 'twice');
    await ipn.waitFor(batchIpn(orderId, 8003));
    const first = await gw.client.call('batch.pay', { ...ids('pay'), orderId });
    expect(first.resultCode).toBe(0);
    const second = await gw.client.call('batch.pay', { ...ids('pay'), orderId });
    expect(second.resultCode).toBe(41);
    expect(second.classification.action).toBe('resolve-by-query');
    await ipn.waitFor(batchIpn(orderId, 0));
    expect(gw.sandbox.admin.ledger()).toHaveLength(2);
  });

  it('1100 when the balance cannot cover the eligible items; top up, then pay', async () => {
    const { orderId } = await initAndCreate(two(), 'short');
    await ipn.waitFor(batchIpn(orderId, 8003));
    gw.sandbox.admin.setBalance('VND', 25_000);
    await expect(gw.client.call('batch.pay', { ...ids('pay'), orderId })).rejects.toMatchObject({
      resultCode: 1100,
    });
    expect(gw.sandbox.admin.balance('VND')).toBe(25_000);
    gw.sandbox.admin.setBalance('VND', 30_000);
    expect((await gw.client.call('batch.pay', { ...ids('pay'), orderId })).resultCode).toBe(0);
    await ipn.waitFor(batchIpn(orderId, 0));
    expect(gw.sandbox.admin.balance('VND')).toBe(0);
  });

  it('the mToken must belong to the orderId (2001); create without init is 42; create twice is 41', async () => {
    const first = await initAndCreate(two(), 'tok');
    const other = ids('tok');
    await gw.client.call('batch.init', { ...ids('tok'), orderId: other.orderId, amount: 30_000 });
    const wrongToken = gw.client.call('batch.create', {
      ...ids('tok'),
      orderId: other.orderId,
      mToken: first.mToken,
      amount: 30_000,
      disbursements: two(),
    });
    await expect(wrongToken).rejects.toMatchObject({ resultCode: 2001 });
    const noInit = gw.client.call('batch.create', {
      ...ids('tok'),
      mToken: first.mToken,
      amount: 30_000,
      disbursements: two(),
    });
    await expect(noInit).rejects.toMatchObject({ resultCode: 42 });
    const again = await gw.client.call('batch.create', {
      ...ids('tok'),
      orderId: first.orderId,
      mToken: first.mToken,
      amount: 30_000,
      disbursements: two(),
    });
    expect(again.resultCode).toBe(41);
    const reinit = await gw.client.call('batch.init', {
      ...ids('tok'),
      orderId: first.orderId,
      amount: 30_000,
    });
    expect(reinit.resultCode).toBe(41);
  });
});
