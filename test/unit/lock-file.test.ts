/**
 * package-lock.json lists every optional package its packages name, for every platform: `npm ci` refuses
 * a lock that lacks one, and `npm install` in a fresh clone would add them and leave a changed file.
 * npm drops the builds of other platforms when it cannot fetch them, so a lock regenerated on a machine
 * whose registry lacks some comes out incomplete without a word.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockedPackage {
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/** Where npm would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolves(from: string, name: string): boolean {
  let folder = from;
  for (;;) {
    if (lock.packages[`${folder ? `${folder}/` : ''}node_modules/${name}`]) return true;
    if (!folder) return false;
    const parent = folder.lastIndexOf('/node_modules/');
    folder = parent === -1 ? '' : folder.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('holds every optional dependency of every locked package, whatever its platform', () => {
    const missing = Object.entries(lock.packages).flatMap(([location, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(location, name))
        .map((name) => `${location || '(root)'} → ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
