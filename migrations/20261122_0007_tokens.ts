import type { Knex } from 'knex';

/**
 * Saved payment methods (document 2): bindings (the link the customer completes), saved methods (the
 * token, sealed with AES-256-GCM, and its display fields), token payments and their OTP attempts (time
 * and outcome only: codes are never stored).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('bindings', (table) => {
    table.text('binding_id').primary();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.text('kind').notNullable();
    table.text('request_type').notNullable();
    table.text('partner_client_id').notNullable();
    /** What the gateway knows the user as: n<NNN>_<partnerClientId> for wallets. */
    table.text('gateway_client_id').notNullable();
    table.bigInteger('amount').notNullable();
    table.text('order_info').notNullable().defaultTo('');
    table.jsonb('user_info').notNullable().defaultTo('{}');
    table.text('redirect_url');
    table.text('status').notNullable();
    table.integer('result_code');
    table.text('message');
    table.text('pay_url');
    table.text('deeplink');
    table.text('qr_code_url');
    table.text('method_id');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['partner_client_id', 'kind']);
  });

  await db.schema.createTable('saved_methods', (table) => {
    table.text('method_id').primary();
    table.text('binding_id').notNullable().unique().references('bindings.binding_id');
    table.text('initial_order_id').notNullable().unique();
    table.text('partner_client_id').notNullable();
    table.text('gateway_client_id').notNullable();
    table.text('kind').notNullable();
    table.text('card_last4');
    table.text('card_type');
    table.text('bank_code');
    table.text('wallet_alias');
    table.text('token_ciphertext').notNullable();
    table.text('status').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('deleted_at', { useTz: true });
    table.timestamp('revoked_at', { useTz: true });
    table.index(['partner_client_id', 'status']);
  });

  await db.schema.createTable('token_payments', (table) => {
    table.text('payment_id').primary();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.text('method_id').notNullable().references('saved_methods.method_id');
    table.text('partner_client_id').notNullable();
    table.text('gateway_client_id').notNullable();
    table.text('kind').notNullable();
    table.bigInteger('amount').notNullable();
    table.text('description').notNullable().defaultTo('');
    table.text('state').notNullable();
    table.integer('result_code');
    table.text('message');
    table.text('trans_id');
    table.text('pay_url');
    table.text('deeplink');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['state', 'created_at']);
  });

  await db.schema.createTable('otp_attempts', (table) => {
    table.increments('id');
    table.text('payment_id').notNullable().references('token_payments.payment_id');
    /** The user (without the wallet prefix): the rules are per user. */
    table.text('partner_client_id').notNullable();
    table.text('kind').notNullable();
    table.text('outcome').notNullable();
    table.integer('result_code');
    table.timestamp('at', { useTz: true }).notNullable();
    table.index(['partner_client_id', 'at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('otp_attempts');
  await db.schema.dropTable('token_payments');
  await db.schema.dropTable('saved_methods');
  await db.schema.dropTable('bindings');
}
