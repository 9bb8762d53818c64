/** Pending batch items settle on their own once pendingSettleMs has passed (fast timing). */
import { describe, expect, it } from 'vitest';
import { batchSteps } from './batch-steps';
import { ids, useTestGateway, wallet } from './support';

const { gw, ipn } = useTestGateway({ balances: { VND: 100_000_000_000 } });
const { initAndCreate, batchIpn, queryAll } = batchSteps(gw, ipn);

describe('batch pending settlement', () => {
  it('pending batch items settle on their own after pendingSettleMs', async () => {
    const items = [{ id: 'a', method: wallet('7002'), amount: 20_000 }];
    const { orderId } = await initAndCreate(items, 'auto');
    await ipn.waitFor(batchIpn(orderId, 8003));
    await gw.client.call('batch.pay', { ...ids('pay'), orderId });
    await ipn.waitForCount(batchIpn(orderId, 0), 2, 5000);
    const [page] = await queryAll(orderId);
    expect(page!.body.disbursements![0]).toMatchObject({ state: 'SUCCEEDED', resultCode: 0 });
  });
});
