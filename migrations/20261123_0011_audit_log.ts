import type { Knex } from 'knex';

/**
 * The audit log: every action a person took through the API (or the key tool), append-only. A trigger
 * refuses UPDATE, DELETE and TRUNCATE for every database user, so not even a bug in payrun (or a
 * hand-typed query through payrun's connection) can rewrite who did what.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('audit_log', (table) => {
    table.bigIncrements('id');
    table.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    /** The API key's id and the name of its holder (null key for the key tool run by a person at a shell). */
    table.text('actor_key_id');
    table.text('actor_name').notNullable();
    /** e.g. payout_run.approve, payment.refund, api_key.create. */
    table.text('action').notNullable();
    table.text('target_type').notNullable();
    table.text('target_id');
    /** succeeded, or refused (the API said no: the error code says why). */
    table.text('outcome').notNullable();
    table.integer('status_code');
    table.text('error_code');
    table.text('request_id');
    table.text('method');
    table.text('path');
    /** What the person chose (note, reason, amount…), never secrets or personal data. */
    table.jsonb('details').notNullable().defaultTo('{}');
    table.index(['at']);
    table.index(['action', 'at']);
    table.index(['target_type', 'target_id']);
    table.index(['actor_name']);
  });
  await db.raw(`
    create function audit_log_refuse_change() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % is refused', tg_op using errcode = 'insufficient_privilege';
    end
    $$`);
  await db.raw(`
    create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function audit_log_refuse_change()`);
  await db.raw(`
    create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_refuse_change()`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('audit_log');
  await db.raw('drop function audit_log_refuse_change()');
}
