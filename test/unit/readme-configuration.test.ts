/**
 * The README's configuration table is what an operator reads; platform/config.ts is what the processes
 * read. The table names every setting of the schema, and the default it shows is the schema's.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../platform/config';

/** Read by the scripts that build or find Temporal binaries, before any configuration is loaded. */
const READ_OUTSIDE_THE_SCHEMA = ['TEMPORAL_CLI_PATH', 'TEMPORAL_TEST_SERVER_PATH', 'PAYRUN_CACHE_DIR'];

function configurationTable(): Map<string, string> {
  const readme = fs.readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Architecture'));
  const rows = new Map<string, string>();
  for (const [, name, shown] of section.matchAll(/^\| `([A-Z0-9_]+)` +\| ([^|]*?) +\|/gm))
    rows.set(name!, shown!);
  return rows;
}

/** The schema's own default (before loadConfig resolves the data folder), as the table writes it. */
function schemaDefault(name: keyof Config): string | undefined {
  const value = configSchema.shape[name].parse(undefined) as unknown;
  return ['string', 'number', 'boolean'].includes(typeof value) ? `\`${String(value)}\`` : undefined;
}

describe("the README's configuration table", () => {
  const table = configurationTable();
  const settings = Object.keys(configSchema.shape) as (keyof Config)[];

  it('lists every setting of platform/config.ts, and nothing else but the scripts’ own variables', () => {
    expect([...table.keys()].sort()).toEqual([...settings, ...READ_OUTSIDE_THE_SCHEMA].sort());
  });

  it.each(settings)("%s shows the schema's default", (name) => {
    const fromSchema = schemaDefault(name);
    if (fromSchema !== undefined) expect(table.get(name)).toBe(fromSchema);
    // A setting without a default is described in words (unset, dev: generated, …), never as a value.
    else expect(table.get(name)).not.toMatch(/^`/);
  });
});
