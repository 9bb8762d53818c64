import type { Knex } from 'knex';

/**
 * Capture and cancel of payments authorized with autoCapture false: until when the gateway holds the
 * money, and the decision (what, who, when, what the gateway answered).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('payments', (table) => {
    table.timestamp('hold_expires_at', { useTz: true });
    /** capture | cancel | expire (nobody decided within the hold). */
    table.text('confirm_action');
    table.text('confirmed_by');
    table.integer('confirm_result_code');
    table.text('confirm_message');
    table.timestamp('confirmed_at', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('payments', (table) => {
    table.dropColumns(
      'hold_expires_at',
      'confirm_action',
      'confirmed_by',
      'confirm_result_code',
      'confirm_message',
      'confirmed_at',
    );
  });
}
