import type { Knex } from 'knex';

/**
 * An audit entry written before the action it records: an action that is not one transaction of ours
 * (starting a workflow, calling the gateway) is recorded as `requested` before it is taken, so a crash
 * between acting and answering cannot lose it, and is completed once the outcome is known. The log stays
 * append-only otherwise: the one change allowed is completing a `requested` entry, once, with its outcome
 * (and what the action created or chose); who, what, when and the request never change.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('audit_log', (table) => {
    table.timestamp('completed_at', { useTz: true });
  });
  await db.raw(`
    create function audit_log_complete_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and old.outcome = 'requested'
        and new.outcome in ('succeeded', 'refused', 'failed')
        and new.completed_at is not null
        and (new.id, new.at, new.actor_key_id, new.actor_name, new.action, new.target_type,
             new.request_id, new.method, new.path)
          is not distinct from
            (old.id, old.at, old.actor_key_id, old.actor_name, old.action, old.target_type,
             old.request_id, old.method, old.path)
        and (old.target_id is null or new.target_id is not distinct from old.target_id)
      then
        return new;
      end if;
      raise exception 'audit_log is append-only: % is refused', tg_op using errcode = 'insufficient_privilege';
    end
    $$`);
  await db.raw('drop trigger audit_log_append_only on audit_log');
  await db.raw(`
    create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function audit_log_complete_only()`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop trigger audit_log_append_only on audit_log');
  await db.raw(`
    create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function audit_log_refuse_change()`);
  await db.raw('drop function audit_log_complete_only()');
  await db.schema.alterTable('audit_log', (table) => {
    table.dropColumn('completed_at');
  });
}
