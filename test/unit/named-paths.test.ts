/**
 * A file named in a comment or a doc is a fact about where something lives: when the file moves, the
 * sentence becomes a wrong turn for the next reader. Every repository path written in the code and the
 * docs names a file that exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const FOLDERS = [
  'activities',
  'api',
  'contracts',
  'db',
  'docs',
  'gateway',
  'migrations',
  'platform',
  'sandbox',
  'scripts',
  'test',
  'workers',
  'workflows',
];
/** Captured workflow histories are data, not prose. */
const SKIPPED = new Set(['test/replay/histories']);
const READ = /\.(ts|js|md|sh|yml|json)$/;

function filesUnder(folder: string): string[] {
  if (SKIPPED.has(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(file);
    return READ.test(entry.name) ? [file] : [];
  });
}

/** `db/events/events.ts`: a path from the repository's root, not the tail of another path. */
const NAMED_PATH = new RegExp(
  `(?<![\\w./$<>{}-])(?:${FOLDERS.join('|')})/[\\w./-]*\\w\\.(?:ts|js|md|sh|json)\\b`,
  'g',
);

describe('paths named in the code and the docs', () => {
  it('each names a file that exists', () => {
    const files = ['README.md', 'docker-compose.yml', ...FOLDERS.flatMap(filesUnder)];
    const missing: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(NAMED_PATH))
        if (!fs.existsSync(match[0])) missing.push(`${file}: ${match[0]}`);
    }
    expect(files.length).toBeGreaterThan(300);
    expect(missing).toEqual([]);
  });
});
