/**
 * `npm run migrate` (up to the latest), `npm run migrate -- down` (roll back the last batch),
 * `npm run migrate -- status`. Uses DATABASE_URL, or the dev stack's embedded PostgreSQL.
 */
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { createDb } from '../db/shared/knex';
import { appliedMigrations, migrateLatest, rollback } from '../db/shared/migrator';
import { migrations } from '../migrations';
import { startDatabase } from './stack';

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'latest';
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'payrun-migrate');
  const database = await startDatabase(config, log);
  const db = createDb(database.value);
  try {
    if (command === 'latest' || command === 'up') {
      const applied = await migrateLatest(db);
      console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
    } else if (command === 'down') {
      const reverted = await rollback(db);
      console.log(reverted.length ? `Rolled back: ${reverted.join(', ')}` : 'Nothing to roll back');
    } else if (command === 'status') {
      const applied = new Set(await appliedMigrations(db));
      for (const migration of migrations) {
        console.log(`${applied.has(migration.name) ? 'applied ' : 'pending '} ${migration.name}`);
      }
    } else {
      throw new Error(`Unknown command "${command}": use latest, down or status`);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
