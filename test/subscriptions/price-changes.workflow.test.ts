/**
 * Dated price changes in the subscription workflow, with fake activities: the new amount charged only from
 * its cycle and only once the customer authorized it (its token adopted first); without the authorization
 * the old amount (charge_old) or nothing and a flag (flag); reminders 7 and 1 days before; a late
 * authorization applies from the next cycle. DAILY cycles at 09:00 GMT+7 on the test server's clock.
 */
import { describe, expect, it } from 'vitest';
import {
  instantOf,
  PRICE_CHANGE_UNAUTHORIZED,
  priceChangeUpdate,
  reauthorizationOrderId,
  reauthorizationSignal,
  SUBSCRIPTION_REFUSED,
} from '../../contracts/subscriptions';
import { eventually } from '../support/wait';
import { ok, refusal, useWorkflowHarness, type Fakes } from '../support/workflow-harness';
import { ledger, subscriptionSteps, type Sub } from './subscription-fixtures';

const h = useWorkflowHarness();
const { active, skipTo } = subscriptionSteps(h);

const priceFakes: Fakes = {
  announcePriceChange: async ({ reauthorizationOrderId: orderId }) => ({
    resultCode: 0,
    message: 'ok',
    payUrl: `https://pay.example/${orderId}`,
  }),
  // Not authorized, and the gateway says so of the order (its link expired): a reminder may ask on a new one.
  activateReauthorization: async () => ({ authorized: false, message: 'not yet', orderClosed: true }),
  adoptReauthorization: ok,
  recordPriceChange: ok,
};

/** Amount charged per cycle (first attempts), in cycle order. */
const charged = (run: Sub) =>
  run.inputs('chargeSubscriptionCycle').map((charge) => [charge.cycle, charge.amount]);

const changePrice = (
  run: Sub,
  newAmount: number,
  effectiveDate: string,
  ifNotReauthorized: 'charge_old' | 'flag',
) =>
  run.handle.executeUpdate(priceChangeUpdate, {
    args: [{ priceChangeId: 'pc-1', newAmount, effectiveDate, ifNotReauthorized }],
  });

describe('subscription: dated price changes', () => {
  it('a decrease the customer authorized: the old amount before its cycle, the new one from it', async () => {
    const { run, subscriptionId, due } = await active(
      { ...priceFakes, activateReauthorization: async () => ({ authorized: true, message: 'ok' }) },
      {},
      6,
    );
    const accepted = await changePrice(run, 30_000, due(3), 'charge_old');
    const orderId = reauthorizationOrderId(subscriptionId, 1);
    expect(accepted).toEqual({ priceChangeId: 'pc-1', payUrl: `https://pay.example/${orderId}` });
    expect(run.inputs('announcePriceChange')).toEqual([
      {
        subscriptionId,
        priceChangeId: 'pc-1',
        newAmount: 30_000,
        effectiveDate: due(3),
        reauthorizationOrderId: orderId,
      },
    ]);
    // The customer authorizes the new amount (its notification) before the date.
    await run.handle.signal(reauthorizationSignal, { orderId, resultCode: 0, callbackToken: 'cb-new' });
    await run.reached('activateReauthorization');
    expect(run.inputs('activateReauthorization')).toEqual([
      { subscriptionId, priceChangeId: 'pc-1', orderId, callbackToken: 'cb-new' },
    ]);
    await skipTo(instantOf(due(4), 10));
    await run.reached('chargeSubscriptionCycle', 4);
    expect(charged(run)).toEqual([
      [1, 50_000],
      [2, 50_000],
      [3, 30_000],
      [4, 30_000],
    ]);
    // The new token took over once, just before the first charge of the new amount.
    expect(run.inputs('adoptReauthorization')).toEqual([
      { subscriptionId, priceChangeId: 'pc-1', newAmount: 30_000 },
    ]);
    const names = run.names();
    expect(names.indexOf('adoptReauthorization')).toBeLessThan(
      run
        .calls()
        .findIndex(
          (call) => call.name === 'chargeSubscriptionCycle' && (call.input as { cycle: number }).cycle === 3,
        ),
    );
    expect(run.inputs('recordPriceChange').at(-1)).toMatchObject({
      priceChangeId: 'pc-1',
      status: 'applied',
      priceFlag: null,
    });
  });

  it('a rise never authorized, charge_old: the old amount on and after its date; reminders 7 and 1 days before', async () => {
    const { run, subscriptionId, due } = await active(priceFakes, {}, 12);
    await changePrice(run, 80_000, due(9), 'charge_old');
    await skipTo(instantOf(due(10), 10));
    await run.reached('chargeSubscriptionCycle', 10);
    expect(charged(run).map(([, amount]) => amount)).toEqual(Array(10).fill(50_000));
    // Asked the gateway before each reminder and at each cycle from the change's date (a notification may
    // be lost), then fell back.
    const asked = (n: number) => ({
      subscriptionId,
      priceChangeId: 'pc-1',
      orderId: reauthorizationOrderId(subscriptionId, n),
    });
    expect(run.inputs('activateReauthorization')).toEqual([asked(1), asked(2), asked(3), asked(3)]);
    expect(run.calls('adoptReauthorization')).toEqual([]);
    expect(run.inputs('recordPriceChange')).toEqual([
      expect.objectContaining({ priceChangeId: 'pc-1', status: 'charged_old' }),
    ]);
    // Each reminder asks again with a fresh order (the gateway says the one before never will be authorized).
    const reminders = run.calls('announcePriceChange').slice(1);
    expect(reminders.map((call) => call.input)).toEqual([
      expect.objectContaining({
        reminderDaysBefore: 7,
        reauthorizationOrderId: reauthorizationOrderId(subscriptionId, 2),
      }),
      expect.objectContaining({
        reminderDaysBefore: 1,
        reauthorizationOrderId: reauthorizationOrderId(subscriptionId, 3),
      }),
    ]);
    // At the billing hour 7 days and 1 day before the date (to the second: the workflow task takes a moment).
    const second = (ms: number) => Math.floor(ms / 1000);
    expect(reminders.map((call) => second(call.scheduledAt))).toEqual([
      second(instantOf(due(2), 9)),
      second(instantOf(due(8), 9)),
    ]);
  });

  it('a rise never authorized, flag: nothing charged from its date, the cycles recorded skipped, the subscription flagged', async () => {
    const { run, due } = await active(priceFakes, {}, 5);
    await changePrice(run, 80_000, due(3), 'flag');
    await skipTo(instantOf(due(4), 10));
    await eventually(() => expect(ledger(run).filter((entry) => entry.status === 'skipped')).toHaveLength(2));
    expect(charged(run)).toEqual([
      [1, 50_000],
      [2, 50_000],
    ]);
    expect(
      ledger(run)
        .filter((entry) => entry.status === 'skipped')
        .map((entry) => [entry.cycle, entry.amount]),
    ).toEqual([
      [3, 0],
      [4, 0],
    ]);
    // Flagged once, not again each cycle.
    expect(run.inputs('recordPriceChange')).toEqual([
      expect.objectContaining({ status: 'flagged', priceFlag: PRICE_CHANGE_UNAUTHORIZED }),
    ]);
  });

  it('a rise authorized after its date (flag): the next cycle adopts the new token and charges the new amount', async () => {
    let authorized = false;
    const { run, subscriptionId, due } = await active(
      {
        ...priceFakes,
        activateReauthorization: async () => ({ authorized, message: authorized ? 'ok' : 'not yet' }),
      },
      {},
      6,
    );
    await changePrice(run, 80_000, due(3), 'flag');
    await skipTo(instantOf(due(3), 10));
    await eventually(() => expect(ledger(run).filter((entry) => entry.status === 'skipped')).toHaveLength(1));
    authorized = true;
    await run.handle.signal(reauthorizationSignal, {
      orderId: reauthorizationOrderId(subscriptionId, 1),
      resultCode: 0,
      callbackToken: 'cb-late',
    });
    await skipTo(instantOf(due(4), 10));
    await run.reached('chargeSubscriptionCycle', 3);
    expect(charged(run)).toEqual([
      [1, 50_000],
      [2, 50_000],
      [4, 80_000],
    ]);
    expect(run.inputs('chargeSubscriptionCycle').at(-1)).toMatchObject({ cycle: 4, attempt: 0 });
    expect(run.inputs('recordPriceChange').map((record) => [record.status, record.priceFlag])).toEqual([
      ['flagged', PRICE_CHANGE_UNAUTHORIZED],
      ['applied', null],
    ]);
  });

  it('refuses a change for today, or to the amount charged already, and changes nothing', async () => {
    const { run, today } = await active(priceFakes, {}, 3);
    const failure = await refusal(changePrice(run, 60_000, today, 'flag'));
    expect(failure).toMatchObject({
      type: SUBSCRIPTION_REFUSED,
      message: expect.stringContaining('future day'),
    });
    const same = await refusal(changePrice(run, 50_000, '2999-01-01', 'flag'));
    expect(same).toMatchObject({ type: SUBSCRIPTION_REFUSED });
    expect(run.calls('announcePriceChange')).toEqual([]);
  });
});
