/**
 * The sandbox delivers at most `ipnMaxInFlight` notifications at once, as a gateway's dispatcher pool
 * does; the others wait their turn and none is lost. Unbounded, a burst of 10,000 opened a socket per
 * notification and, in the one-process dev bench, ran past the file limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, startTestGateway, wallet, type TestGateway } from './support';
import { eventually } from '../support/wait';

const HOLD_MS = 60;
let gw: TestGateway;
let receiver: Server;
let url = '';
let open = 0;
let mostOpen = 0;
let received = 0;

beforeAll(async () => {
  // A slow merchant: each notification is answered after HOLD_MS, so deliveries overlap.
  receiver = createServer((request, response) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        open -= 1;
        received += 1;
        response.writeHead(204).end();
      }, HOLD_MS),
    );
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/disbursement`;
  gw = await startTestGateway({ balances: { VND: 1_000_000_000 }, timing: { ipnMaxInFlight: 3 } });
});

afterAll(async () => {
  await gw?.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('IPN deliveries in flight', () => {
  it('20 payouts at once: every notification delivered, never more than 3 at a time', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        gw.client.call('disbursement.pay', {
          ...ids(`burst${i}`),
          requestType: 'disburseToWallet',
          amount: 100_000,
          disbursementMethod: wallet('5678'),
          orderInfo: 'burst',
          ipnUrl: url,
        }),
      ),
    );
    await eventually(async () => {
      if (received < 20) throw new Error(`${received} of 20 notifications received`);
    });
    expect(mostOpen).toBe(3);
  });
});
