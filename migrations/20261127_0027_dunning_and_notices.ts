import type { Knex } from 'knex';

/**
 * Dunning schedules (what follows an insufficient-funds failure), the subscriber's notice address and
 * language, and every notice sent to a subscriber. A notice's key is its primary key: one occasion, one
 * row, so a retried activity finds the notice it already sent and never sends it again.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('dunning_schedules', (table) => {
    table.text('dunning_schedule_id').primary();
    table.text('name').notNullable();
    /** Exactly one of the two: hours after the failure, or the next payday (day of month) at retry_at_hour GMT+7. */
    table.integer('retry_after_hours');
    table.integer('retry_on_day_of_month');
    table.integer('retry_at_hour');
    table.integer('notice_before_attempt_hours').notNullable().defaultTo(0);
    table.boolean('send_reactivation_link').notNullable().defaultTo(false);
    table.integer('remind_every_days').notNullable().defaultTo(0);
    table.integer('cancel_after_days').notNullable().defaultTo(0);
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(`alter table dunning_schedules add constraint dunning_schedules_one_retry
    check ((retry_after_hours is null) <> (retry_on_day_of_month is null))`);

  await db.schema.alterTable('subscriptions', (table) => {
    /** null: the default schedule (one retry after SUBSCRIPTION_RETRY_DELAY_HOURS, no notices). */
    table.text('dunning_schedule_id').references('dunning_schedules.dunning_schedule_id');
    table.text('notice_email');
    table.text('notice_lang').notNullable().defaultTo('vi');
  });

  await db.schema.createTable('subscription_notices', (table) => {
    table.text('notice_key').primary();
    table
      .text('subscription_id')
      .notNullable()
      .references('subscriptions.subscription_id')
      .onDelete('CASCADE');
    table.text('kind').notNullable();
    table.text('lang').notNullable();
    /** sending (claimed, not known to be accepted) | sent | failed | skipped */
    table.text('status').notNullable();
    table.text('subject');
    table.text('message_id');
    /** The mail server's answer to the message (sent) or why it was not sent. */
    table.text('detail');
    table.integer('attempts').notNullable().defaultTo(0);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['subscription_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('subscription_notices');
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropColumn('notice_lang');
    table.dropColumn('notice_email');
    table.dropColumn('dunning_schedule_id');
  });
  await db.schema.dropTable('dunning_schedules');
}
