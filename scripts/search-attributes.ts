import type { Connection } from '@temporalio/client';
import { PAYRUN_SEARCH_ATTRIBUTES } from '../contracts/shared';

/** IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD: every payrun search attribute is a keyword. */
const KEYWORD = 2;

/**
 * Registers payrun's search attributes in the namespace when they are missing. The dev server only
 * applies its `--search-attribute` flags to a new database, so a dev state file from an older payrun
 * (or a server someone else set up) would otherwise refuse every workflow start that sets them.
 * Returns the names it added.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = PAYRUN_SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, KEYWORD])),
    });
  }
  return missing.map((key) => key.name);
}
