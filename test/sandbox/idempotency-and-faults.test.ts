import { beforeEach, describe, expect, it } from 'vitest';
import { GatewayTransportError, parseNotification } from '../../gateway';
import { ids, keys, sleep, startTestGateway, useTestGateway, wallet } from './support';
import { eventually } from '../support/wait';

const { gw, ipn } = useTestGateway();
beforeEach(() => {
  ipn.answerWith(204);
});

const pay = (label = 'pay', lastFour = '1234') => ({
  ...ids(label),
  requestType: 'disburseToWallet' as const,
  amount: 100_000,
  disbursementMethod: wallet(lastFour),
  ipnUrl: ipn.url('/disbursement'),
});

describe('idempotency', () => {
  it('a requestId answered before is answered 40 (the spec: retry with a different requestId), never replayed', async () => {
    const request = pay();
    const first = await gw.client.call('disbursement.pay', request);
    expect(first.resultCode).toBe(0);
    const again = await gw.client.call('disbursement.pay', request);
    expect(again.resultCode).toBe(40);
    expect(again.classification.action).toBe('resolve-by-query');
    expect(again.body.transId).toBeUndefined();
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });

  it('a refused request keeps its requestId too: the same requestId answers 40, not the refusal again', async () => {
    const request = pay('refused', '1008');
    const first = await gw.client.call('disbursement.pay', request).catch((error: unknown) => error);
    expect(first).toMatchObject({ resultCode: 1008 });
    expect((await gw.client.call('disbursement.pay', request)).resultCode).toBe(40);
  });

  it('a requestId still being processed answers 40', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', latencyMs: 150, times: 1 });
    const request = pay();
    const slow = gw.client.call('disbursement.pay', request);
    // The sandbox takes a fault rule only after it has claimed the requestId: once the rule is used up,
    // the first request is in progress.
    await eventually(() => expect(gw.sandbox.admin.faults()).toEqual([]));
    const concurrent = await gw.client.call('disbursement.pay', request);
    expect(concurrent.resultCode).toBe(40);
    expect(concurrent.message).toMatch(/still being processed/);
    expect((await slow).resultCode).toBe(0);
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });

  it('a requestId reused for different content answers 40', async () => {
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    const reused = await gw.client.call('disbursement.pay', { ...request, amount: 200_000 });
    expect(reused.resultCode).toBe(40);
  });

  it('an orderId reused with a new requestId answers 41 and moves nothing', async () => {
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    const reused = await gw.client.call('disbursement.pay', {
      ...request,
      requestId: `${request.requestId}-new`,
    });
    expect(reused.resultCode).toBe(41);
    expect(reused.classification.action).toBe('resolve-by-query');
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });

  it('a balance read keeps its orderId (the reading hardest on the merchant): the same orderId again answers 41', async () => {
    const { orderId } = ids('lookup');
    expect((await gw.client.call('disbursement.balance', { ...ids('lookup'), orderId })).resultCode).toBe(0);
    expect((await gw.client.call('disbursement.balance', { ...ids('lookup'), orderId })).resultCode).toBe(41);
  });
});

describe('request faults', () => {
  it('latencyMs delays the answer', async () => {
    gw.sandbox.admin.setFaults({ latencyMs: 120 });
    const started = Date.now();
    await gw.client.call('disbursement.balance', ids('slow'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('httpStatus 503 processes nothing: the client sees a retryable transport error, the retry succeeds', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', httpStatus: 503, times: 1 });
    const request = pay();
    const error = await gw.client.call('disbursement.pay', request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ reason: 'http_status', status: 503, retryable: true });
    expect(gw.sandbox.admin.ledger()).toHaveLength(0);
    expect((await gw.client.call('disbursement.pay', request)).resultCode).toBe(0);
    expect(gw.sandbox.admin.faults()).toEqual([]);
  });

  it('hang: processed, never answered; the client times out and the retry with the same requestId hears 40', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', hang: true, times: 1 });
    const request = pay();
    const error = await gw.client
      .call('disbursement.pay', request, { timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ reason: 'timeout', retryable: true });
    expect(gw.sandbox.admin.ledger()).toEqual([expect.objectContaining({ orderId: request.orderId })]);
    expect((await gw.client.call('disbursement.pay', request)).resultCode).toBe(40);
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });

  it('dropResponse: processed, no answer; the retry with the same requestId hears 40, and api/query tells the outcome', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', dropResponse: true, times: 1 });
    const request = pay();
    const error = await gw.client.call('disbursement.pay', request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ reason: 'network', retryable: true });
    const retry = await gw.client.call('disbursement.pay', request);
    expect(retry.resultCode).toBe(40);
    const ledger = gw.sandbox.admin.ledger();
    expect(ledger).toHaveLength(1);
    const asked = await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId });
    expect(asked.body).toMatchObject({
      orderId: request.orderId,
      resultCode: 0,
      transId: ledger[0]!.transId,
    });
  });

  it("orderIdPrefix: a rule applies to one object's traffic only, and addFaults keeps the rules in force", async () => {
    const mine = pay('mine');
    const other = pay('other');
    gw.sandbox.admin.setFaults({
      operation: 'disbursement.balance',
      httpStatus: 503,
      orderIdPrefix: 'nobody',
    });
    gw.sandbox.admin.addFaults({
      operation: 'disbursement.pay',
      httpStatus: 503,
      orderIdPrefix: mine.orderId,
    });
    expect(await gw.client.call('disbursement.pay', mine).catch((e: unknown) => e)).toMatchObject({
      status: 503,
    });
    expect((await gw.client.call('disbursement.pay', other)).resultCode).toBe(0);
    expect(gw.sandbox.admin.faults()).toHaveLength(2);
  });

  it('resultCode 10: answered "retry later", nothing processed; the same requestId then goes through', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', resultCode: 10, times: 1 });
    const request = pay();
    const error = await gw.client.call('disbursement.pay', request).catch((e: unknown) => e);
    expect(error).toMatchObject({ resultCode: 10, retryable: true });
    expect(gw.sandbox.admin.ledger()).toHaveLength(0);
    expect((await gw.client.call('disbursement.pay', request)).resultCode).toBe(0);
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });

  it('probability: a seeded share of calls, the same calls again for the same seed and traffic', async () => {
    const faulted = async (seed: number) => {
      gw.sandbox.admin.reset();
      gw.sandbox.admin.setFaults({
        operation: 'disbursement.balance',
        httpStatus: 503,
        probability: 0.3,
        seed,
      });
      const outcomes: boolean[] = [];
      for (let i = 0; i < 60; i++) {
        const failed = await gw.client
          .call('disbursement.balance', { requestId: `r-${i}`, orderId: `o-${i}` })
          .then(
            () => false,
            () => true,
          );
        outcomes.push(failed);
      }
      expect(gw.sandbox.admin.faults()[0]?.applied).toBe(outcomes.filter(Boolean).length);
      return outcomes;
    };
    const first = await faulted(7);
    expect(await faulted(7)).toEqual(first);
    expect(await faulted(8)).not.toEqual(first);
    const share = first.filter(Boolean).length / first.length;
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.55);
  });

  it('close() releases a hanging connection', async () => {
    const own = await startTestGateway();
    own.sandbox.admin.setFaults({ hang: true, times: 1 });
    const call = own.client.call('disbursement.balance', ids('hang')).catch((e: unknown) => e);
    await eventually(() => expect(own.sandbox.admin.faults()).toEqual([]));
    await own.close();
    expect(await call).toMatchObject({ reason: 'network' });
  });
});

describe('IPN delivery and faults', () => {
  const ofOrder = (orderId: string) => (n: { body: Record<string, unknown> }) => n.body.orderId === orderId;

  it('drop: the IPN is never sent, and the log says so', async () => {
    gw.sandbox.admin.setFaults({ ipn: { drop: true }, times: 1 });
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog()).toEqual([
        expect.objectContaining({
          orderId: request.orderId,
          outcome: 'dropped',
          kind: 'disbursement.result',
        }),
      ]),
    );
    expect(ipn.received).toHaveLength(0);
  });

  it('duplicate: the same signed IPN arrives twice', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', ipn: { duplicate: true } });
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    const [a, b] = await ipn.waitForCount(ofOrder(request.orderId), 2);
    expect(a!.raw.equals(b!.raw)).toBe(true);
    parseNotification('disbursement.result', b!.raw, keys);
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog().map((e) => [e.outcome, e.duplicate])).toEqual([
        ['delivered', false],
        ['delivered', true],
      ]),
    );
  });

  it('copies: five identical signed copies are sent at the same moment', async () => {
    gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', ipn: { copies: 5 } });
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    const copies = await ipn.waitForCount(ofOrder(request.orderId), 5);
    expect(new Set(copies.map((copy) => copy.raw.toString())).size).toBe(1);
    await eventually(() => {
      const log = gw.sandbox.admin.ipnLog();
      expect(log).toHaveLength(5);
      expect(log.filter((entry) => entry.duplicate)).toHaveLength(4);
      expect(new Set(log.map((entry) => entry.signature)).size).toBe(1);
    });
  });

  it.each(['amount', 'resultCode', 'foreignKey', 'otherOrder'] as const)(
    'forge %s: a variant that fails verification is sent before the genuine notification',
    async (forge) => {
      gw.sandbox.admin.setFaults({ operation: 'disbursement.pay', ipn: { forge } });
      const earlier = pay('earlier');
      await gw.client.call('disbursement.pay', earlier);
      // The rule forges every notification: the earlier one's forgery and itself.
      await ipn.waitForCount(() => true, 2);
      ipn.clear();
      const request = pay();
      await gw.client.call('disbursement.pay', request);
      const [forged, genuine] = await ipn.waitForCount(() => true, 2);
      expect(() => parseNotification('disbursement.result', forged!.raw, keys)).toThrow();
      expect(parseNotification('disbursement.result', genuine!.raw, keys).fields.orderId).toBe(
        request.orderId,
      );
      if (forge === 'otherOrder') expect(forged!.body.orderId).toBe(earlier.orderId);
      await eventually(() =>
        expect(gw.sandbox.admin.ipnLog().filter((entry) => entry.forged === forge)).toHaveLength(2),
      );
    },
  );

  it.each([
    ['dropped', { drop: true }],
    ['held back', { reorder: true }],
    ['late', { delayMs: 60_000 }],
  ] as const)(
    'forge: the forgery is sent when the genuine notification is %s, one for each forge rule',
    async (_fate, fate) => {
      gw.sandbox.admin.setFaults([
        { operation: 'disbursement.pay', ipn: fate, times: 1 },
        { operation: 'disbursement.pay', ipn: { forge: 'amount' }, times: 1 },
        { operation: 'disbursement.pay', ipn: { forge: 'foreignKey' }, times: 1 },
      ]);
      const request = pay();
      await gw.client.call('disbursement.pay', request);
      const forged = await ipn.waitForCount(() => true, 2);
      for (const notification of forged)
        expect(() => parseNotification('disbursement.result', notification.raw, keys)).toThrow();
      await eventually(() =>
        expect(
          gw.sandbox.admin
            .ipnLog()
            .filter((entry) => entry.forged)
            .map((entry) => [entry.orderId, entry.forged])
            .sort(),
        ).toEqual([
          [request.orderId, 'amount'],
          [request.orderId, 'foreignKey'],
        ]),
      );
      // The genuine notification keeps its fate: nothing valid reached the merchant.
      expect(
        ipn.received.filter((notification) => notification.body.orderId === request.orderId),
      ).toHaveLength(2);
    },
  );

  it('reorder: a held IPN arrives after the next one', async () => {
    gw.sandbox.admin.setFaults({ ipn: { reorder: true }, times: 1 });
    const first = pay('first');
    const second = pay('second');
    await gw.client.call('disbursement.pay', first);
    expect(ipn.received).toHaveLength(0);
    await gw.client.call('disbursement.pay', second);
    await ipn.waitFor(ofOrder(first.orderId));
    expect(ipn.received.map((n) => n.body.orderId)).toEqual([second.orderId, first.orderId]);
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog().find((e) => e.orderId === first.orderId)).toMatchObject({
        reordered: true,
      }),
    );
  });

  it('delayMs: the IPN comes later', async () => {
    gw.sandbox.admin.setFaults({ ipn: { delayMs: 200 } });
    const request = pay();
    const sent = Date.now();
    await gw.client.call('disbursement.pay', request);
    await ipn.waitFor(ofOrder(request.orderId));
    expect(Date.now() - sent).toBeGreaterThanOrEqual(190);
  });

  it('a 5xx from the merchant is redelivered with backoff until accepted', async () => {
    ipn.answerWith(500);
    const request = pay();
    await gw.client.call('disbursement.pay', request);
    await ipn.waitForCount(ofOrder(request.orderId), 2);
    ipn.answerWith(204);
    await ipn.waitForCount(ofOrder(request.orderId), 3);
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog().map((e) => [e.attempt, e.outcome, e.httpStatus])).toEqual([
        [1, 'failed', 500],
        [2, 'failed', 500],
        [3, 'delivered', 204],
      ]),
    );
  });

  it('an unreachable ipnUrl is retried, then given up, and logged', async () => {
    const request = { ...pay(), ipnUrl: 'http://127.0.0.1:9/ipn' };
    await gw.client.call('disbursement.pay', request);
    const log = await eventually(() => {
      const entries = gw.sandbox.admin.ipnLog();
      expect(entries).toHaveLength(4);
      return entries;
    });
    expect(log.every((e) => e.outcome === 'failed' && e.error !== undefined)).toBe(true);
  });

  it('no IPN is sent after close()', async () => {
    const own = await startTestGateway({ timing: { ipnDelayMs: 100 } });
    const request = pay();
    await own.client.call('disbursement.pay', request);
    await own.close();
    // A check of absence has no event to wait on: it waits past the IPN's due time. It can only miss a
    // late IPN, never fail a correct sandbox.
    await sleep(150);
    expect(ipn.received).toHaveLength(0);
  });
});
