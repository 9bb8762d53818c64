import type { Knex } from 'knex';

/**
 * What each kind's requests add up to on each day (Asia/Ho_Chi_Minh), for the merchant and for each maker: the daily caps read two rows here instead of summing the day's approvals, which took 8 ms
 * at 10,000 requests of a day, 39 ms at 100,000 and 320 ms at 1,000,000, under the kind's lock. A request
 * adds its amount when it is recorded; a rejected or expired one takes it back (db/approvals/approvals.ts).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('approval_day_totals', (table) => {
    table.text('kind').notNullable();
    table.date('requested_day').notNullable();
    /** `merchant`: every maker's requests; `maker`: one maker's (`person`). */
    table.text('scope').notNullable();
    /** `requested_by_person` of the approvals counted; '' for the merchant's row. */
    table.text('person').notNullable();
    table.bigInteger('amount').notNullable();
    table.primary(['kind', 'requested_day', 'scope', 'person']);
  });
  // The requests recorded before the table: every one that still counts (not rejected, not expired).
  await db.raw(`
    insert into approval_day_totals (kind, requested_day, scope, person, amount)
    select kind, requested_day, 'merchant', '', sum(amount) from approvals
     where status not in ('rejected', 'expired') group by kind, requested_day
    union all
    select kind, requested_day, 'maker', requested_by_person, sum(amount) from approvals
     where status not in ('rejected', 'expired') group by kind, requested_day, requested_by_person`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('approval_day_totals');
}
