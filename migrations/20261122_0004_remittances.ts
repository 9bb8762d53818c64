import type { Knex } from 'knex';

/**
 * Remittances (exchange-rate → verify → buy → create → result) and every quote each one fetched, so
 * an operator sees which rate was used and when it was quoted.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('remittances', (table) => {
    table.text('remittance_id').primary();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.text('status').notNullable();
    table.text('status_reason');
    table.text('request_type').notNullable();
    table.boolean('auto_capture').notNullable();
    table.text('base_currency').notNullable();
    table.decimal('foreign_amount', 16, 2).notNullable();
    /** VND the caller asked to send; null: the whole exchangeAmount. */
    table.bigInteger('requested_amount');
    table.bigInteger('rate_used');
    table.integer('quote_seq');
    table.timestamp('quoted_at', { useTz: true });
    table.bigInteger('exchange_amount');
    table.timestamp('bought_at', { useTz: true });
    table.bigInteger('amount_sent');
    /** Masked (last four digits only): safe for lists, logs and exports. */
    table.text('receiver_label').notNullable();
    /** The full receiver and sender details the gateway needs; never logged, never returned by the API. */
    table.jsonb('receiver_details').notNullable();
    table.jsonb('remittance_info').notNullable();
    table.text('reason').notNullable();
    table.text('order_info').notNullable().defaultTo('');
    table.integer('result_code');
    table.text('result_message');
    table.text('trans_id');
    table.text('result_source');
    table.text('attention_reason');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
    table.index(['status', 'created_at']);
  });

  await db.schema.createTable('remittance_quotes', (table) => {
    table.text('remittance_id').notNullable().references('remittances.remittance_id');
    table.integer('seq').notNullable();
    table.text('base_currency').notNullable();
    table.bigInteger('rate').notNullable();
    table.text('request_id').notNullable();
    table.timestamp('quoted_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.primary(['remittance_id', 'seq']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('remittance_quotes');
  await db.schema.dropTable('remittances');
}
