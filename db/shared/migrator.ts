import type { Knex } from 'knex';
import { migrations } from '../../migrations';

/**
 * Migrations are listed in code rather than discovered on disk, so the same list runs under tsx,
 * vitest and a bundled build without a TypeScript loader for knex.
 */
const source: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map((migration) => migration.name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const migration = migrations.find((candidate) => candidate.name === name);
    if (!migration) throw new Error(`Unknown migration ${name}`);
    return migration;
  },
};

const config: Knex.MigratorConfig = { migrationSource: source, tableName: 'knex_migrations' };

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
  return applied;
}

/** Rolls back the last batch, or every applied migration with `all`. */
export async function rollback(db: Knex, { all = false } = {}): Promise<string[]> {
  const [, reverted] = (await db.migrate.rollback(config, all)) as [number, string[]];
  return reverted;
}

export async function appliedMigrations(db: Knex): Promise<string[]> {
  const [completed] = (await db.migrate.list(config)) as [Array<{ name: string } | string>, unknown];
  return completed.map((entry) => (typeof entry === 'string' ? entry : entry.name));
}
