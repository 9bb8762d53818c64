import type { Db } from '../../db/shared/knex';

/**
 * Reads of one record (a `select` on `table` bound to `id`), by anyone using `db` (the API and the worker),
 * while `during` runs: how a test tells a call that waited on a workflow's word from one that polled.
 */
export async function recordReadsDuring<T>(db: Db, table: string, id: string, during: () => Promise<T>) {
  let reads = 0;
  const count = (query: { sql: string; bindings?: unknown[] }) => {
    if (/^select\b/i.test(query.sql) && query.sql.includes(`"${table}"`) && query.bindings?.includes(id))
      reads += 1;
  };
  db.on('query', count);
  try {
    return { result: await during(), reads: () => reads };
  } finally {
    db.off('query', count);
  }
}
