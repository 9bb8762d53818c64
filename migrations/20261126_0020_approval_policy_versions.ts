import type { Knex } from 'knex';

/**
 * The approval policy changed through the API (docs/approvals.md): one row per proposed version, which a
 * second admin approves or rejects; an approved version is in effect from `effective_at` until a later one's.
 * And payout runs under the policy: what the policy asked of each run when it was uploaded (approvers and
 * roles) and the approvals so far; the daily caps count runs by their upload time.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('approval_policy_versions', (table) => {
    table.bigIncrements('version');
    table.text('status').notNullable();
    table.jsonb('policy').notNullable();
    /** What the proposer asked for. */
    table.timestamp('effective_from', { useTz: true }).notNullable();
    /** When it took, or takes, effect: effective_from, or the approval's time if that had passed. */
    table.timestamp('effective_at', { useTz: true });
    table.text('reason').notNullable();
    table.text('proposed_by_key').notNullable();
    table.text('proposed_by').notNullable();
    table.text('proposed_by_person').notNullable();
    table.timestamp('proposed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.text('decided_by_key');
    table.text('decided_by');
    table.timestamp('decided_at', { useTz: true });
    table.text('decision_note');
    table.index(['status', 'effective_at']);
  });
  await db.schema.alterTable('payout_runs', (table) => {
    // Runs uploaded before the policy covered them needed one approver, any payouts-approver.
    table.integer('required_approvers').notNullable().defaultTo(1);
    table.specificType('approver_roles', 'text[]').notNullable().defaultTo('{payouts-approver}');
    /** `[{ keyId, name, at }]`, in order: the approvals the run's workflow admitted. */
    table.jsonb('approvals').notNullable().defaultTo('[]');
    table.index(['uploaded_at']);
  });
  await db.raw(`
    update payout_runs
       set approvals = jsonb_build_array(jsonb_build_object('keyId', decided_by_key, 'name', decided_by, 'at', decided_at))
     where decided_by is not null and status <> 'rejected'`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('payout_runs', (table) => {
    table.dropIndex(['uploaded_at']);
    table.dropColumns('required_approvers', 'approver_roles', 'approvals');
  });
  await db.schema.dropTable('approval_policy_versions');
}
