import type { Knex } from 'knex';

/**
 * A hand-over names the task queue of the workflow that wrote it, and a billing run charges only the
 * hand-overs of its own queue: workers of another deployment (or another test's stack) sharing the
 * database never charge a cycle through a gateway, keys and workflows that are not its own.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    table.text('run_scope');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropColumn('run_scope');
  });
}
