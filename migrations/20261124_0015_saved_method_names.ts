import type { Knex } from 'knex';

/**
 * The saved-method capability gets one name in its tables too (docs/naming.md): bindings, token payments
 * and OTP attempts become saved_method_bindings, saved_method_payments and saved_method_otp_attempts.
 *
 * A rolling deploy runs migrations before the new workers start, so workers of the previous release still
 * read and write the old names for a while. A view under each old name keeps them working: a view over
 * one table is updatable in PostgreSQL, so their inserts and updates land in the renamed table and no
 * record is lost or written twice. The next release drops the views.
 */
const RENAMES = [
  ['bindings', 'saved_method_bindings'],
  ['token_payments', 'saved_method_payments'],
  ['otp_attempts', 'saved_method_otp_attempts'],
] as const;

export async function up(db: Knex): Promise<void> {
  for (const [former, current] of RENAMES) {
    await db.schema.renameTable(former, current);
    await db.raw('create view ?? as select * from ??', [former, current]);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const [former, current] of [...RENAMES].reverse()) {
    await db.raw('drop view ??', [former]);
    await db.schema.renameTable(current, former);
  }
}
