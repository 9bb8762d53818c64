import type { Knex } from 'knex';

/** Payout runs (one uploaded file), their batches (≤ 1000 items, one gateway batch each) and items. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('payout_runs', (table) => {
    table.text('run_id').primary();
    table.text('status').notNullable();
    table.text('status_reason');
    table.text('file_name').notNullable();
    table.text('file_sha256').notNullable();
    table.integer('row_count').notNullable();
    table.bigInteger('total_amount').notNullable();
    table.integer('batch_count').notNullable();
    table.text('workflow_id').notNullable().unique();
    table.text('uploaded_by_key').notNullable();
    table.text('uploaded_by').notNullable();
    table.timestamp('uploaded_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.text('decided_by_key');
    table.text('decided_by');
    table.timestamp('decided_at', { useTz: true });
    table.text('decision_note');
    table.jsonb('reconciliation');
    table.timestamp('completed_at', { useTz: true });
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['status', 'uploaded_at']);
  });

  await db.schema.createTable('payout_batches', (table) => {
    table.text('batch_id').primary();
    table.text('run_id').notNullable().references('payout_runs.run_id');
    table.integer('seq').notNullable();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.integer('item_count').notNullable();
    table.bigInteger('total_amount').notNullable();
    table.text('status').notNullable();
    table.text('status_reason');
    table.integer('result_code');
    table.jsonb('gateway_totals');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.unique(['run_id', 'seq']);
  });

  await db.schema.createTable('payout_items', (table) => {
    table.text('run_id').notNullable().references('payout_runs.run_id');
    table.text('batch_id').notNullable().references('payout_batches.batch_id');
    table.text('payout_id').notNullable();
    table.integer('row_number').notNullable();
    table.text('wallet_id').notNullable();
    table.text('wallet_name').notNullable();
    table.text('personal_id');
    table.bigInteger('amount').notNullable();
    table.text('description').notNullable().defaultTo('');
    table.text('store_id');
    table.text('state').notNullable();
    table.integer('result_code');
    table.text('message');
    table.text('trans_id');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.primary(['run_id', 'payout_id']);
    table.index(['batch_id', 'state']);
  });
  // A payout id is paid at most once: while an item is queued, eligible, paid or pending, no other run
  // may hold the same id. Items of rejected or expired runs become CANCELLED and free their id, as do
  // INELIGIBLE and FAILED ones (nothing was paid).
  await db.raw(
    "create unique index payout_items_one_live_payout on payout_items (payout_id) where state not in ('INELIGIBLE', 'FAILED', 'CANCELLED')",
  );

  // Every gateway notification that passed verification, once: redeliveries hit the unique key.
  await db.schema.createTable('ipn_notifications', (table) => {
    table.bigIncrements('id');
    table.text('kind').notNullable();
    table.text('order_id').notNullable();
    table.text('dedupe_key').notNullable().unique();
    table.integer('result_code');
    table.text('raw_body').notNullable();
    table.text('workflow_id');
    table.timestamp('received_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('signalled_at', { useTz: true });
    table.index(['order_id']);
  });

  await db.schema.createTable('disbursements', (table) => {
    table.text('disbursement_id').primary();
    table.text('order_id').notNullable().unique();
    table.text('workflow_id').notNullable().unique();
    table.text('request_type').notNullable();
    table.bigInteger('amount').notNullable();
    table.text('receiver_label').notNullable();
    table.text('description').notNullable().defaultTo('');
    table.text('status').notNullable();
    table.integer('result_code');
    table.text('message');
    table.text('trans_id');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('disbursements');
  await db.schema.dropTable('ipn_notifications');
  await db.schema.dropTable('payout_items');
  await db.schema.dropTable('payout_batches');
  await db.schema.dropTable('payout_runs');
}
