import { inject } from 'vitest';
import { createDb, type Db } from '../../db/knex';

/** The run's own database (created and migrated by the global setup, dropped after the run). */
export function connectTestDatabase(): Db {
  return createDb(inject('databaseUrl'), { poolMax: 5 });
}
