/**
 * 1,000 subscriptions through one cycle each against the sandbox (autoApprove: the simulated customer
 * authorizes every link). Each starts as a "later start" (amount 0) whose first payment date was
 * yesterday (GMT+7), so cycle 1 is due at once: API create → authorization IPN → subscription/create
 * → subscription/pay of cycle 1. Prints charges per second. A benchmark, not a test: nothing here
 * asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { createApiKey } from '../../db/shared/api-keys';
import { addDays, dayOfGmt7 } from '../../contracts/subscriptions';
import type { BenchStack } from './harness';
import { post } from './load';

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);

export async function benchSubscriptions(stack: BenchStack): Promise<void> {
  const key = (await createApiKey(stack.db, `bench-billing-${randomUUID().slice(0, 6)}`, ['billing'])).key;
  await stack.gateway.setAutoApprove(true);
  const tag = randomUUID().slice(0, 6);
  const firstDate = addDays(dayOfGmt7(Date.now()), -1);
  console.log(`subscriptions: ${COUNT} subscriptions, cycle 1 each (subscription/pay), sandbox autoApprove`);
  const started = performance.now();
  const concurrency = 32;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < COUNT; i = next++) {
        const response = await post(
          `${stack.apiUrl}/v1/subscriptions`,
          JSON.stringify({
            subscriptionId: `b${tag}-${i}`,
            partnerClientId: `bench${i}`,
            amount: 0,
            subscriptionInfo: {
              name: 'Bench',
              type: 'FIXED',
              recurringAmount: 25_000,
              frequency: 'MONTHLY',
              nextPaymentDate: firstDate,
            },
          }),
          { authorization: `Bearer ${key}` },
        );
        if (response.status !== 201) throw new Error(`create ${i}: ${response.status} ${response.text}`);
      }
    }),
  );
  const createdIn = (performance.now() - started) / 1000;
  for (;;) {
    const row = await stack
      .db('subscription_charges')
      .where({ status: 'succeeded' })
      .count({ n: '*' })
      .first();
    if (Number(row?.n) >= COUNT) break;
    const stuck = await stack
      .db('subscriptions')
      .where({ status: 'not_authorized' })
      .count({ n: '*' })
      .first();
    if (Number(stuck?.n) > 0) {
      const example = await stack
        .db('subscriptions')
        .where({ status: 'not_authorized' })
        .first('status_reason');
      throw new Error(
        `${String(stuck?.n)} subscriptions were not authorized: ${String(example?.status_reason)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const ledger = (await stack.gateway.ledger()).filter((entry) => entry.orderId.startsWith(`b${tag}-`));
  console.log(`  ${COUNT} subscriptions created, authorized and charged cycle 1: ${seconds.toFixed(1)} s`);
  console.log(`  charges per second: ${(COUNT / seconds).toFixed(1)}`);
  console.log(`  the creates (201, 32 at once) took ${createdIn.toFixed(1)} s of it`);
  console.log(
    `  sandbox ledger: ${ledger.length} charges, ${new Set(ledger.map((e) => e.orderId)).size} distinct`,
  );
}
