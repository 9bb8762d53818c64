/**
 * The event catalogue is declared once (platform/event-catalogue.ts); docs/events.md's table and the
 * README's count are what integrators read. They name the same types, in the same order, each with the
 * object it is about.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, objectTypeOf } from '../../platform/event-catalogue';

function cataloguedInDocs(): { type: string; object: string }[] {
  const docs = fs.readFileSync('docs/events.md', 'utf8');
  return [...docs.matchAll(/^\| `([a-z_]+\.[a-z_]+)` +\| `([a-z_]+)` +\|/gm)].map(([, type, object]) => ({
    type: type!,
    object: object!,
  }));
}

describe('the event catalogue as the docs tell it', () => {
  it("docs/events.md's table lists every type, in the catalogue's order, with its object", () => {
    expect(cataloguedInDocs()).toEqual(EVENT_TYPES.map((type) => ({ type, object: objectTypeOf(type) })));
  });

  it('the README counts the catalogue', () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const counts = [...readme.matchAll(/(\d+) (?:event )?types\)/g)].map(([, count]) => Number(count));
    expect(counts).toEqual([EVENT_TYPES.length]);
  });
});
