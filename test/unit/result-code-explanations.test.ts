/**
 * Every result code a page can show is explained by payrun in both languages: each code of the spec's
 * Errors tables (all three documents) and each code gateway/result-codes.ts knows, assumed ones too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESULT_CODES } from '../../gateway/result-codes';

/** The spec sits beside the repository (gateway/README.md: `../shared/spec/`). */
const SPEC = path.resolve('..', 'shared', 'spec');

/**
 * The codes of a document's "## Errors" section: the Code column of its table, the "Codes shown"
 * lists per operation, and codes the prose names ("Codes 8000 and 8200", "code 1002").
 */
function errorsSectionCodes(markdown: string): number[] {
  const section = /^## Errors\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? '';
  const codes = new Set<number>();
  for (const line of section.split('\n')) {
    if (line.startsWith('|')) {
      for (const cell of line.split('|').map((part) => part.trim()))
        if (/^\d+(, \d+)*$/.test(cell)) for (const code of cell.split(', ')) codes.add(Number(code));
    } else {
      for (const match of line.matchAll(/\b[Cc]odes? (\d+)(?: and (\d+))?/g))
        for (const code of match.slice(1)) if (code) codes.add(Number(code));
    }
  }
  return [...codes].sort((a, b) => a - b);
}

describe('result code explanations', async () => {
  const { RESULT_CODE_EXPLANATIONS } = (await import(
    pathToFileURL(path.resolve('api/console/result-code-explanations.js')).href
  )) as { RESULT_CODE_EXPLANATIONS: Record<number, { en: string; vi: string }> };
  const explained = (code: number) => {
    const explanation = RESULT_CODE_EXPLANATIONS[code];
    return Boolean(explanation?.en.trim() && explanation.vi.trim() && explanation.vi !== explanation.en);
  };

  it('explains every code of the spec’s Errors tables in English and Vietnamese', () => {
    const documents = fs.readdirSync(SPEC).filter((name) => name.endsWith('.md'));
    expect(documents).toHaveLength(3);
    const codes = documents.flatMap((name) =>
      errorsSectionCodes(fs.readFileSync(path.join(SPEC, name), 'utf8')),
    );
    // The table of document 1, the per-operation lists of document 3 and code 1002 of a refund's sample.
    expect(codes).toEqual(expect.arrayContaining([0, 10, 22, 1002, 1100, 2019, 4003, 7002, 8003, 8200]));
    expect([...new Set(codes)].filter((code) => !explained(code))).toEqual([]);
  });

  it('explains every code payrun knows, the assumed ones included, and nothing it does not know', () => {
    const known = RESULT_CODES.map((info) => info.code);
    expect(known.filter((code) => !explained(code))).toEqual([]);
    expect(
      Object.keys(RESULT_CODE_EXPLANATIONS)
        .map(Number)
        .filter((code) => !known.includes(code)),
    ).toEqual([]);
  });

  it('writes the Vietnamese in Vietnamese', () => {
    for (const [code, { vi }] of Object.entries(RESULT_CODE_EXPLANATIONS))
      expect(vi, `code ${code}`).toMatch(/[ăâđêôơưàáảãạèéẻẽẹìíỉĩịòóỏõọùúủũụỳýỷỹỵ]/i);
  });
});
