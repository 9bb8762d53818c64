import type { Knex } from 'knex';

/**
 * The notification inbox (api/ipn/relay.ts): the relay claims, of each workflow, only its oldest
 * unsignalled notification, asking for every candidate "is an earlier one of the same workflow still
 * unsignalled?". This partial index answers that with one probe, and stays as small as the backlog.
 * `relay_scope` names which relays may take a row: unset (a deployment) every relay; tests that run
 * several Temporal servers over one database give each API and its relay a scope of their own.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.text('relay_scope');
  });
  await db.raw(
    `create index ipn_notifications_unsignalled_by_object on ipn_notifications
       ((coalesce(workflow_id, order_id)), received_at, id) where signalled_at is null`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index ipn_notifications_unsignalled_by_object');
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.dropColumn('relay_scope');
  });
}
