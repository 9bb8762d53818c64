import type { Knex } from 'knex';

/**
 * The amounts reported for the cycles of a VARIABLE subscription (cycle number → VND), as the workflow
 * accepted them, so the console and the API show the amount of the next charge without asking Temporal.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    table.jsonb('reported_amounts').notNullable().defaultTo('{}');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropColumn('reported_amounts');
  });
}
