import type { Knex } from 'knex';

/**
 * Approvals of outgoing money (contracts/approvals): one row per item that pays out, requested with its
 * record, whether the policy asked for approvers or not, because the daily caps count every request of the
 * day; and one row per person's decision, which makes "two approvals from one person" impossible.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('approvals', (table) => {
    table.text('approval_id').primary();
    table.text('kind').notNullable();
    table.text('object_id').notNullable();
    table.bigInteger('amount').notNullable();
    table.text('receiver_label').notNullable();
    table.text('description').notNullable().defaultTo('');
    table.text('status').notNullable();
    table.text('status_reason');
    table.integer('required_approvers').notNullable();
    table.specificType('approver_roles', 'text[]').notNullable();
    table.text('requested_by_key').notNullable();
    table.text('requested_by').notNullable();
    /** The requester as a person (contracts/approvals/people.ts): what the per-maker cap counts by. */
    table.text('requested_by_person').notNullable();
    /** The day in Asia/Ho_Chi_Minh the request counts against. */
    table.date('requested_day').notNullable();
    table.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('decided_at', { useTz: true });
    table.unique(['kind', 'object_id']);
    table.index(['kind', 'requested_day']);
    table.index(['status', 'requested_at']);
  });
  await db.schema.createTable('approval_decisions', (table) => {
    table.bigIncrements('id');
    table.text('approval_id').notNullable().references('approvals.approval_id');
    table.text('decision').notNullable();
    table.text('by_key').notNullable();
    table.text('by_name').notNullable();
    table.text('by_person').notNullable();
    table.text('note');
    table.timestamp('decided_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.unique(['approval_id', 'by_person']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('approval_decisions');
  await db.schema.dropTable('approvals');
}
