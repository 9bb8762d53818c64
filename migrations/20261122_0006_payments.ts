import type { Knex } from 'knex';

/**
 * One-time payments of document 1 (every api/create requestType and POS quick pay), their refunds
 * (one row per refund, each with its own gateway orderId and per-item transGroup states) and the
 * card-terminal settlements payrun asked for.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('payments', (table) => {
    table.text('payment_id').primary();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    /** A document-1 requestType, or `pos` for quick pay with a scanned payment code. */
    table.text('request_type').notNullable();
    table.bigInteger('amount').notNullable();
    /** created | awaiting_customer | pending | succeeded | failed | authorized_not_captured | expired */
    table.text('status').notNullable();
    table.boolean('auto_capture').notNullable().defaultTo(true);
    table.text('order_info').notNullable().defaultTo('');
    table.text('extra_data').notNullable().defaultTo('');
    /** items, userInfo, deliveryInfo, referenceId, lang, …: what the create call sends besides the above. */
    table.jsonb('request_details').notNullable();
    table.text('store_id');
    table.text('serial_number');
    table.text('instrument_type');
    table.text('pay_url');
    table.text('deeplink');
    table.text('qr_code_url');
    table.text('deeplink_mini_app');
    table.text('short_link');
    table.text('trans_id');
    table.text('pay_type');
    table.text('payment_option');
    table.jsonb('promotions');
    table.jsonb('card_payment_info');
    table.integer('result_code');
    table.text('result_message');
    /** Sum of refunds that are not failed: reserved before the gateway is called, released on failure. */
    table.bigInteger('refunded_amount').notNullable().defaultTo(0);
    table.integer('refund_seq').notNullable().defaultTo(0);
    /** Terminal card payments: when card/settle settled them (refunds through the API end there). */
    table.timestamp('settled_at', { useTz: true });
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
    table.index(['status', 'created_at']);
    table.index(['store_id', 'serial_number']);
  });

  await db.schema.createTable('refunds', (table) => {
    table.text('refund_id').primary();
    table.text('payment_id').notNullable().references('payments.payment_id');
    table.integer('seq').notNullable();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.bigInteger('amount').notNullable();
    table.text('description').notNullable().defaultTo('');
    /** created | pending | succeeded | failed | needs_attention */
    table.text('status').notNullable();
    /** transGroup items: [{ itemId, amount, status, resultCode?, refundTransId?, message? }] */
    table.jsonb('items').notNullable().defaultTo('[]');
    table.integer('result_code');
    table.text('result_message');
    table.text('trans_id');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
    table.unique(['payment_id', 'seq']);
  });

  await db.schema.createTable('terminal_settlements', (table) => {
    table.text('settlement_id').primary();
    table.text('store_id').notNullable();
    table.text('serial_number').notNullable();
    table.text('request_id').notNullable().unique();
    table.text('status').notNullable();
    table.integer('result_code');
    table.text('result_message');
    /** How many of payrun's terminal card payments this settlement closed for API refunds. */
    table.integer('settled_payments').notNullable().defaultTo(0);
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('terminal_settlements');
  await db.schema.dropTable('refunds');
  await db.schema.dropTable('payments');
}
