import knexFactory, { type Knex } from 'knex';

export type Db = Knex;

export function createDb(databaseUrl: string, options: { poolMax?: number; log?: Knex.Logger } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: options.poolMax ?? 10 },
    ...(options.log && { log: options.log }),
  });
}

/** The same server, another database: how tests get a database of their own. */
export function withDatabaseName(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Resolves when the database answers a query (the readiness probe). */
export async function databaseAnswers(db: Db): Promise<void> {
  await db.raw('select 1');
}
