import type { Knex } from 'knex';

/**
 * The payee directory (contracts/payees): one row per payee with its details now, one row per version of
 * them (who proposed, who approved), and one row per proposed change, which changes the payee only when a
 * second person approves it. Payout items remember the payee a file named. And the balance watch: one row
 * per currency with its threshold and whether the balance was last seen below it, so a crossing is told once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('payees', (table) => {
    table.text('payee_id').primary();
    table.text('kind').notNullable();
    table.text('name').notNullable();
    table.text('wallet_id');
    table.text('personal_id');
    table.text('bank_code');
    table.text('bank_account_no');
    table.text('bank_card_no');
    table.text('reference');
    table.text('status').notNullable().defaultTo('active');
    table.integer('version').notNullable().defaultTo(1);
    table.text('name_check').notNullable();
    table.text('registered_name');
    table.integer('check_result_code');
    table.text('check_message');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // When an approved change last altered where the money goes or to whom: the approver's "changed" flag.
    table.timestamp('details_changed_at', { useTz: true });
    table.index(['wallet_id']);
    table.index(['status', 'created_at']);
  });
  await db.schema.createTable('payee_versions', (table) => {
    table.text('payee_id').notNullable().references('payees.payee_id');
    table.integer('version').notNullable();
    table.jsonb('details').notNullable();
    table.text('name_check').notNullable();
    table.text('status').notNullable();
    table.text('change_id');
    table.text('proposed_by').notNullable();
    table.text('approved_by');
    table.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.primary(['payee_id', 'version']);
  });
  await db.schema.createTable('payee_changes', (table) => {
    table.text('change_id').primary();
    table.text('payee_id').notNullable().references('payees.payee_id');
    table.text('action').notNullable();
    table.text('status').notNullable();
    table.jsonb('details');
    table.text('reason');
    table.text('name_check');
    table.text('registered_name');
    table.integer('check_result_code');
    table.text('check_message');
    table.integer('base_version').notNullable();
    table.text('proposed_by_key').notNullable();
    table.text('proposed_by').notNullable();
    table.timestamp('proposed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.text('decided_by_key');
    table.text('decided_by');
    table.timestamp('decided_at', { useTz: true });
    table.index(['payee_id', 'proposed_at']);
  });
  // At most one open proposal per payee: two would race to replace the same version.
  await db.raw(
    `create unique index payee_changes_one_open on payee_changes (payee_id) where status = 'proposed'`,
  );
  await db.schema.alterTable('payout_items', (table) => {
    table.text('payee_id');
  });
  await db.schema.createTable('balance_thresholds', (table) => {
    table.text('currency').primary();
    table.bigInteger('threshold').notNullable();
    table.text('set_by').notNullable();
    table.timestamp('set_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // Null until the watcher first reads the balance; then whether it was below the threshold.
    table.boolean('below');
    table.bigInteger('last_balance');
    table.timestamp('checked_at', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('balance_thresholds');
  await db.schema.alterTable('payout_items', (table) => {
    table.dropColumn('payee_id');
  });
  await db.schema.dropTable('payee_changes');
  await db.schema.dropTable('payee_versions');
  await db.schema.dropTable('payees');
}
