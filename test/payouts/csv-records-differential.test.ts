/**
 * payrun's CSV splitter against csv-parse, the library it replaced for uploads, on many generated texts
 * made of the characters that matter (separators, quotes, every line end, empty lines). Both must take or
 * refuse the same texts and, where they take one, give the same cells. The line numbers are left to
 * payout-file-lines.test.ts: csv-parse counts a `\r\n` inside a quoted cell as two lines, which is the
 * difference the splitter exists for.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CsvRecordSplitter } from '../../api/payouts/csv-records';

/** A small seeded generator (mulberry32): the same texts on every run, so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'b', 'xy', ' ', ',', ',', '"', '""', '\n', '\r\n', '\r', '\n\n'];

/** A text shaped like a CSV: mostly well-formed rows of three cells, with stray pieces mixed in. */
function textOf(next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const cell = () => {
    const roll = next();
    if (roll < 0.4) return pick(['a', 'bc', '', ' d ']);
    if (roll < 0.8) return `"${pick(['a', 'x,y', 'line\nbreak', 'crlf\r\nbreak', 'cr\rbreak', 'q""q', ''])}"`;
    return Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(PIECES)).join('');
  };
  const rows = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
    Array.from({ length: next() < 0.9 ? 3 : 2 }, cell).join(','),
  );
  return rows.map((row) => row + pick(['\n', '\r\n', '\r', '\n\n', ''])).join('');
}

type Outcome = { records: string[][] } | { refused: true };

function byCsvParse(text: string): Outcome {
  try {
    const records = parse(text, {
      delimiter: ',',
      relax_column_count: false,
      record_delimiter: ['\r\n', '\n', '\r'],
      skip_empty_lines: true,
      trim: false,
    }) as string[][];
    return { records };
  } catch {
    return { refused: true };
  }
}

function bySplitter(text: string, chunk: number): Outcome {
  const records: string[][] = [];
  const splitter = new CsvRecordSplitter(','.charCodeAt(0), (cells) => {
    records.push(cells);
    return true;
  });
  for (let start = 0; start < text.length; start += chunk) splitter.write(text.slice(start, start + chunk));
  splitter.end();
  return splitter.failure ? { refused: true } : { records };
}

describe('CsvRecordSplitter agrees with csv-parse', () => {
  it('on 3,000 generated texts, read whole and in chunks of 1 to 7 characters', () => {
    const next = random(20261124);
    const differences: string[] = [];
    for (let run = 0; run < 3_000; run += 1) {
      const text = textOf(next);
      const expected = byCsvParse(text);
      for (const chunk of [text.length || 1, 1 + (run % 7)]) {
        const got = bySplitter(text, chunk);
        if (JSON.stringify(got) !== JSON.stringify(expected))
          differences.push(
            `${JSON.stringify(text)} (chunks of ${chunk}): ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`,
          );
      }
    }
    expect(differences.slice(0, 5)).toEqual([]);
  });
});
