/**
 * A hold on a running billing day (issue 33's measurement): N subscriptions due at once (as `billing-day`);
 * once a quarter of them are charged, two admins hold `charge`. Prints the charges the sandbox saw after
 * the hold took effect (the workers' view is at most HOLD_STATE_MAX_AGE_MS old: only calls already in
 * flight, or begun within that bound, may still be sent), the items held and their total in VND, then
 * releases at BENCH_RELEASE_RATE a minute (default 600) and prints the time from the release to the last
 * charge against what the rate predicts, and the ledger check (every cycle charged exactly once).
 * A benchmark, not a test: nothing here asserts a duration.
 */
import { randomUUID } from 'node:crypto';
import { createApiKey } from '../../db/shared/api-keys';
import { HOLD_STATE_MAX_AGE_MS, type HoldView } from '../../contracts/holds';
import { subscriptionWorkflowId } from '../../contracts/subscriptions';
import { startBillingDay } from './billing-day';
import type { BenchStack } from './harness';

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 200);
const RATE = Number(process.env.BENCH_RELEASE_RATE ?? 600);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long after the hold every subscription should be charged or held. */
const SETTLE_MS = 120_000;

/** The subscriptions whose cycle 1 is neither charged nor held, with what their rows say. */
async function neitherChargedNorHeld(stack: BenchStack, ids: string[]): Promise<string> {
  const held = new Set(
    (
      await stack
        .db('held_items')
        .whereIn('workflow_id', ids.map(subscriptionWorkflowId))
        .select('workflow_id')
    ).map((row: { workflow_id: string }) => row.workflow_id),
  );
  const uncharged: Array<{ subscription_id: string; status: string; run_cycle: number | null }> = await stack
    .db('subscriptions as s')
    .whereIn('s.subscription_id', ids)
    .whereNotExists(
      stack
        .db('subscription_charges as c')
        .whereRaw('c.subscription_id = s.subscription_id')
        .where({ 'c.cycle': 1, 'c.status': 'succeeded' }),
    )
    .select('s.subscription_id', 's.status', 's.run_cycle');
  const rows = uncharged.filter((row) => !held.has(subscriptionWorkflowId(row.subscription_id)));
  const named = rows
    .slice(0, 10)
    .map((row) => `${row.subscription_id} (${row.status}, handed over: ${row.run_cycle ?? 'no'})`);
  return (
    `${rows.length} subscription(s) neither charged nor held ${SETTLE_MS / 1000} s after the hold: ` +
    `${named.join(', ')}${rows.length > 10 ? ', …' : ''}`
  );
}

export async function benchHeldBillingDay(stack: BenchStack): Promise<void> {
  const suffix = randomUUID().slice(0, 6);
  const adminA = (await createApiKey(stack.db, `bench-hold-a-${suffix}`, ['admin'])).key;
  const adminB = (await createApiKey(stack.db, `bench-hold-b-${suffix}`, ['admin'])).key;
  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const chargeHold = async () =>
    ((await api(adminA, 'GET', '/v1/holds')).holds as HoldView[]).find((hold) => hold.kind === 'charge')!;
  const charged = async (ids: string[]) =>
    Number(
      (
        await stack
          .db('subscription_charges')
          .whereIn('subscription_id', ids)
          .where({ cycle: 1, status: 'succeeded' })
          .count({ n: '*' })
          .first()
      )?.n,
    );

  console.log(
    `held-billing-day: ${COUNT} subscriptions due at once; charge held after a quarter are charged`,
  );
  const { ids, tag } = await startBillingDay(stack, COUNT);
  while ((await charged(ids)) < COUNT / 4) await pause(20);

  await api(adminA, 'POST', '/v1/holds/charge/hold', { reason: 'bench: hold on a running billing day' });
  const heldView = (await api(adminB, 'POST', '/v1/holds/charge/hold', {
    reason: 'bench: confirmed',
  })) as unknown as HoldView;
  const heldAt = Date.parse(heldView.heldAt!);
  const chargedAtHold = await charged(ids);
  const effective = heldAt + HOLD_STATE_MAX_AGE_MS;

  // Settled: every subscription is charged or held (nothing else is on its way). A cycle neither, long after
  // the hold, is one its workflow will only find held at the end of its grace: named, then the benchmark stops.
  let view = await chargeHold();
  const settleBy = Date.now() + SETTLE_MS;
  for (;;) {
    view = await chargeHold();
    if ((await charged(ids)) + view.held.count >= COUNT) break;
    if (Date.now() > settleBy) throw new Error(await neitherChargedNorHeld(stack, ids));
    await pause(250);
  }
  const chargesOf = async () =>
    (await stack.gateway.ledger()).filter(
      (entry) => entry.orderId.startsWith(`${tag}-`) && entry.orderId.endsWith('-c1'),
    );
  const beforeRelease = await chargesOf();
  const ledgerAfter = (from: number) => beforeRelease.filter((entry) => Date.parse(entry.at) > from).length;
  // A charge's record is written `submitted` right after the hold check passed, just before subscription/pay
  // is sent: its time is when the activity decided to send.
  const submittedAfter = async (from: number) =>
    Number(
      (
        await stack
          .db('subscription_charges')
          .whereIn('subscription_id', ids)
          .where({ cycle: 1 })
          .where('created_at', '>', new Date(from))
          .count({ n: '*' })
          .first()
      )?.n,
    );
  console.log(
    `  hold confirmed with ${chargedAtHold} of ${COUNT} charged (recorded succeeded at that moment). Charges whose ` +
      `activity passed the check after the confirmation: ${await submittedAfter(heldAt)}, after it took effect ` +
      `(+${HOLD_STATE_MAX_AGE_MS} ms): ${await submittedAfter(effective)}; pay movements the sandbox recorded after ` +
      `them: ${ledgerAfter(heldAt)} and ${ledgerAfter(effective)} (a call in flight, or queued in the sandbox, lands later)`,
  );
  console.log(`  held: ${view.held.count} items, ${view.held.totalVnd} VND (GET /v1/holds)`);

  await api(adminA, 'POST', '/v1/holds/charge/release', { ratePerMinute: RATE });
  const releasing = (await api(adminB, 'POST', '/v1/holds/charge/release', {})) as unknown as HoldView;
  const releasedAt = Date.parse(releasing.release!.startedAt!);
  while ((await charged(ids)) < COUNT) await pause(100);
  const ledger = await chargesOf();
  const last = Math.max(...ledger.map((entry) => Date.parse(entry.at)));
  const predicted = ((view.held.count - 1) / RATE) * 60;
  console.log(
    `  release at ${RATE}/min: last charge ${((last - releasedAt) / 1000).toFixed(1)} s after the release ` +
      `(the rate alone: ${predicted.toFixed(1)} s for ${view.held.count} items)`,
  );
  while ((await chargeHold()).status !== 'off') await pause(250);
  const paid = ledger.filter((entry) => entry.outcome === 'succeeded');
  const distinct = new Set(paid.map((entry) => entry.orderId)).size;
  console.log(
    `  sandbox ledger: ${paid.length} cycle-1 charges, ${distinct} distinct orders (each paid at most once: ${distinct === paid.length}; expected ${COUNT})`,
  );
}
