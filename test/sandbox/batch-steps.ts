/** The steps every batch test takes against the sandbox, through payrun's own gateway client. */
import type { GatewayResult } from '../../gateway';
import { ids, type IpnReceiver, type TestGateway } from './support';

export type Item = { id: string; method: { walletId: string; walletName: string }; amount: number };

export const sum = (items: readonly Item[]) => items.reduce((total, item) => total + item.amount, 0);

export function batchSteps(gw: TestGateway, ipn: IpnReceiver) {
  async function initAndCreate(items: Item[], label = 'batch') {
    const { orderId } = ids(label);
    const amount = sum(items);
    const init = await gw.client.call('batch.init', {
      ...ids(label),
      orderId,
      amount,
      orderInfo: 'Lương tháng',
      ipnUrl: ipn.url('/batch'),
    });
    const mToken = String(init.body.mToken);
    const create = await gw.client.call('batch.create', {
      ...ids(label),
      orderId,
      mToken,
      amount,
      disbursements: items,
      ipnUrl: ipn.url('/batch'),
    });
    return { orderId, amount, mToken, init, create };
  }

  async function queryAll(orderId: string, states?: string[]) {
    const pages: GatewayResult<'batch.query'>[] = [];
    for (let pageNum = 1, totalPages = 1; pageNum <= totalPages; pageNum += 1) {
      const page = await gw.client.call('batch.query', {
        ...ids('q'),
        orderId,
        pageSize: 50,
        pageNum,
        ...(states ? { states } : {}),
      });
      pages.push(page);
      totalPages = Number(page.body.totalPages);
    }
    return pages;
  }
  const batchIpn = (orderId: string, resultCode: number) => (n: { body: Record<string, unknown> }) =>
    n.body.orderId === orderId && n.body.resultCode === resultCode;
  return { initAndCreate, batchIpn, queryAll };
}
