import type { Knex } from 'knex';

/**
 * The stack self-check: a tiny workflow that `npm run dev` (and the plumbing tests) run to prove that
 * a worker, the Temporal server and PostgreSQL talk to each other.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('stack_checks', (table) => {
    table.text('check_id').primary();
    table.text('workflow_id').notNullable();
    table.timestamp('started_at', { useTz: true }).notNullable();
    table.timestamp('finished_at', { useTz: true });
    table.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('stack_checks');
}
