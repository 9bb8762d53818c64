/** The billing run's reads and the hand-over writes on the subscription row (docs/subscriptions.md). */
import type { Db } from '../shared/knex';
import { chargeOrderId, type HandedCycle } from '../../contracts/subscriptions';

/**
 * The workflow hands one cycle over; it is the only writer of a hand-over, apart from the run's success.
 * `scope`: the task queue of the workflow handing over; only that queue's run charges it. Never backwards: an
 * attempt retried after the run already charged this cycle (and handed the next one over in its success)
 * changes nothing. The row's own condition is re-checked under its lock, so a success committing meanwhile
 * wins; without it the row would name the charged cycle again and the next one would go to the fallback.
 *
 * True when the due day's run will search again and so find this hand-over: its day row (billing_run_days)
 * is read in the same statement, under a share lock. A search holding the row's lock waits for this
 * statement to commit and then sees the hand-over; one that found nothing and let the row go was before it,
 * and the row is then gone. False: the caller starts the run.
 */
export async function handOver(db: Db, cycle: HandedCycle, scope: string): Promise<boolean> {
  const rows: { searching: boolean }[] = await db('subscriptions')
    .with('searching_run', (run) =>
      run
        .from('billing_run_days')
        .where({ run_scope: scope, day: cycle.dueDate })
        .where('searching_until', '>', db.fn.now())
        .forShare()
        .select(db.raw('1')),
    )
    .where({ subscription_id: cycle.subscriptionId })
    .where((row) => {
      row.whereNull('run_cycle').orWhere('run_cycle', '<=', cycle.cycle);
    })
    .whereNotExists(
      db('subscription_charges')
        .where({ order_id: chargeOrderId(cycle.subscriptionId, cycle.cycle, 0) })
        .select(db.raw('1')),
    )
    .update({
      run_scope: scope,
      run_cycle: cycle.cycle,
      run_amount: cycle.amount,
      run_due_date: cycle.dueDate,
      updated_at: db.fn.now(),
    })
    .returning(db.raw('exists (select 1 from searching_run) as searching'));
  return rows[0]?.searching === true;
}

/**
 * Clears the hand-over of this cycle, and of a later one the run's success wrote on the workflow's behalf
 * (the workflow may not have heard of it). Under the row's lock like the run's claim: whichever comes
 * first wins, and a claim that won sent the very order the workflow then sends itself.
 */
export async function takeBack(db: Db, subscriptionId: string, cycle: number): Promise<void> {
  await db('subscriptions')
    .where({ subscription_id: subscriptionId })
    .where('run_cycle', '>=', cycle)
    .update({ run_cycle: null, run_amount: null, run_due_date: null, updated_at: db.fn.now() });
}

/**
 * Cycles handed over, due by `day`, on active subscriptions, whose charge has not been claimed yet (no
 * charge row for its order), oldest date first. A claimed one never comes back: the run moves on.
 */
export async function findHanded(db: Db, day: string, limit: number, scope: string): Promise<HandedCycle[]> {
  const rows: { subscription_id: string; run_cycle: number; run_amount: string; run_due_date: string }[] =
    await db('subscriptions as s')
      .whereNotNull('s.run_cycle')
      .where('s.run_scope', scope)
      .whereRaw('s.run_cycle = s.next_cycle')
      .where('s.run_due_date', '<=', day)
      .where('s.status', 'active')
      .whereRaw('(s.expiry_date is null or s.expiry_date > ?)', [day])
      .whereNotExists(
        db('subscription_charges as c')
          .whereRaw("c.order_id = s.subscription_id || '-c' || s.run_cycle")
          .select(db.raw('1')),
      )
      .orderBy([
        { column: 's.run_due_date', order: 'asc' },
        { column: 's.subscription_id', order: 'asc' },
      ])
      .limit(limit)
      .select('s.subscription_id', 's.run_cycle', 's.run_amount', 's.run_due_date');
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    cycle: Number(row.run_cycle),
    amount: Number(row.run_amount),
    dueDate: row.run_due_date,
  }));
}

/**
 * The run's search for its next round, holding its day row's lock (see handOver): the row says the run will
 * search again for `leaseMs`, and is let go, in the same transaction, when the search finds nothing and
 * the run ends. A run that ends otherwise lets it go with `stopSearching`, or its lease runs out.
 */
export async function searchHanded(
  db: Db,
  day: string,
  limit: number,
  scope: string,
  leaseMs: number,
): Promise<HandedCycle[]> {
  return db.transaction(async (trx) => {
    await trx('billing_run_days')
      .insert({
        run_scope: scope,
        day,
        searching_until: trx.raw('now() + make_interval(secs => ?)', [leaseMs / 1000]),
      })
      .onConflict(['run_scope', 'day'])
      .merge(['searching_until']);
    const cycles = await findHanded(trx, day, limit, scope);
    if (cycles.length === 0) await stopSearching(trx, day, scope);
    return cycles;
  });
}

/** The day's run will not search again: hand-overs start it. */
export async function stopSearching(db: Db, day: string, scope: string): Promise<void> {
  await db('billing_run_days').where({ run_scope: scope, day }).delete();
}
