/**
 * Fault cells of a price change's re-authorization calls (issue 37), on the time-skipping server against the
 * strict sandbox over HTTP, since the change's cycle is a future day that the dev server's matrix
 * (matrix.test.ts) cannot reach: the `-p<n>` order's create (subscription.start), the exchange of the
 * customer's new authorization for its token (subscription.create), the old authorization's cancel at the
 * change's cycle (subscription.manage), and the questions asked when the customer's notification is lost
 * (payment.query, tokenization.cbQuery). Each call meets, once: its answer lost (the retry re-sends the
 * same requestId, which the sandbox answers 40 as the spec answers a duplicate, where the call keeps one);
 * the worker dying after the call and before its write (the gateway did the work, the activity never
 * completed, Temporal runs it again: the sandbox processes the call and never answers); and, for the
 * questions, a refusal. Whatever happens, per cell:
 *
 * - no cycle is charged above what the customer had authorized when it was charged;
 * - at most one of the subscription's authorizations is live at the gateway;
 * - the change completes (`applied`, charged the new amount from its cycle) or takes the operator's fallback
 *   (`charged_old`), saying why.
 */
import { describe, expect, it } from 'vitest';
import type { OperationName } from '../../gateway';
import type { FaultRule } from '../../sandbox';
import { addDays, reauthorizationOrderId } from '../../contracts/subscriptions';
import { freshId } from '../support/ids';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, useSubscriptionStack } from '../subscriptions/stack';
import { subscriptionSteps } from '../subscriptions/steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, skipTo, until, ledgerOf } = subscriptionSteps(t);

const OLD = 50_000;
const NEW = 60_000;

interface Cell {
  operation: OperationName;
  fault: string;
  effect: Omit<FaultRule, 'operation' | 'orderIdPrefix'>;
  /** The customer's notification of the new authorization is lost: the change asks the gateway. */
  asks?: boolean;
}

const CALLS: OperationName[] = ['subscription.start', 'subscription.create', 'subscription.manage'];
const QUERIES: OperationName[] = ['payment.query', 'tokenization.cbQuery'];
const CELLS: Cell[] = [
  ...CALLS.flatMap((operation): Cell[] => [
    { operation, fault: 'answer lost', effect: { dropResponse: true, times: 1 } },
    { operation, fault: 'worker died after the call, before its write', effect: { hang: true, times: 1 } },
  ]),
  ...QUERIES.flatMap((operation): Cell[] =>
    [10, 99].map((code) => ({
      operation,
      fault: `query refused (${code})`,
      effect: { resultCode: code, times: 2 },
      asks: true,
    })),
  ),
];

async function activeSubscription() {
  const subscriptionId = freshId('f', 10);
  const start = await today();
  const created = await call(t, 'POST', '/v1/subscriptions', {
    subscriptionId,
    partnerClientId: freshId('member', 6),
    amount: 0,
    orderInfo: 'Fault cell',
    subscriptionInfo: {
      name: 'Gym',
      type: 'FIXED',
      recurringAmount: OLD,
      frequency: 'DAILY',
      nextPaymentDate: addDays(start, 1),
      expiryDate: addDays(start, 10),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  t.sandbox.admin.approvePayment(subscriptionId);
  await until(subscriptionId, (s) => s.status === 'active', 'active');
  return { subscriptionId, start };
}

describe('a price change’s re-authorization calls under faults', () => {
  it.each(CELLS.map((cell) => [`${cell.operation} · ${cell.fault}`, cell] as const))(
    '%s: never above the authorized amount, one live authorization, the change applied or fallen back',
    async (_name, cell) => {
      const { subscriptionId, start } = await activeSubscription();
      const newOrder = reauthorizationOrderId(subscriptionId, 1);
      const label = `${subscriptionId} ${cell.operation} ${cell.fault}`;
      t.sandbox.admin.addFaults({
        label,
        operation: cell.operation,
        orderIdPrefix: newOrder,
        ...cell.effect,
      });
      if (cell.asks) t.sandbox.admin.addFaults({ orderIdPrefix: newOrder, ipn: { drop: true } });

      const effective = addDays(start, 2);
      const scheduled = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/price-changes`, {
        newAmount: NEW,
        effectiveCycle: effective,
        ifNotReauthorized: 'charge_old',
      });
      expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
      // The customer authorizes the new amount (the order exists at the gateway even when its answer was lost).
      await eventually(() => {
        if (!t.sandbox.admin.awaitingCustomer().some((order) => order.orderId === newOrder))
          throw new Error(`${newOrder} is not waiting for the customer`);
      });
      t.sandbox.admin.approvePayment(newOrder);

      await skipTo(addDays(start, 3));
      await until(subscriptionId, (s) => s.charges.length >= 3, 'cycles 1 to 3 charged');
      const changes = (
        await call(t, 'GET', `/v1/subscriptions/${subscriptionId}/price-changes`, undefined, t.viewerKey)
      ).body.priceChanges as Array<{ status: string; statusReason: string }>;
      const change = changes[0]!;

      const charged = ledgerOf(subscriptionId)
        .filter((entry) => /-c\d+(-r\d+)?$/.test(entry.orderId) && entry.outcome !== 'failed')
        .map((entry) => [entry.orderId.replace(`${subscriptionId}-`, ''), entry.amount]);
      const applied = change.status === 'applied';
      expect(['applied', 'charged_old'], `${label}: ${JSON.stringify(change)}`).toContain(change.status);
      expect(change.statusReason).toBeTruthy();
      // Cycle 1 before the change; from its cycle, the new amount only once the customer's token took over
      // (a later cycle when the gateway could not be asked at the first), and never back.
      expect(charged.map(([cycle]) => cycle)).toEqual(['c1', 'c2', 'c3']);
      const amounts = charged.map(([, amount]) => amount);
      expect(amounts[0]).toBe(OLD);
      const firstNew = amounts.indexOf(NEW);
      const expected = amounts.map((_, i) => (applied && firstNew !== -1 && i >= firstNew ? NEW : OLD));
      expect(amounts, label).toEqual(expected);
      if (applied) expect(firstNew, label).toBeGreaterThan(0);
      // One live authorization: the old one cancelled when the new took over, the old one alone otherwise.
      const orders = [subscriptionId, 1, 2, 3].map((n) =>
        typeof n === 'string' ? n : reauthorizationOrderId(subscriptionId, n),
      );
      const live = orders.filter((id) => t.sandbox.admin.subscription(id)?.status === 'active');
      expect(live, label).toEqual(applied ? [newOrder] : [subscriptionId]);
      // The fault really happened (its rule used up, or used at least once): no cell passes by silence.
      const rule = t.sandbox.admin.faults().find((listed) => listed.label === label);
      expect(rule === undefined || rule.applied > 0, `${label} was never met`).toBe(true);
    },
  );
});
