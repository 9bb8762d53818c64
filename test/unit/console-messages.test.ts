/**
 * Every text of the console exists in Vietnamese, and every error code the API can answer has its
 * Vietnamese words, so switching language never leaves an English sentence behind by omission.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../contracts/shared';
import { ROLES } from '../../api/auth/roles';

const CONSOLE = path.resolve('api/console');
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

function consoleTexts(): string[] {
  const texts = new Set<string>();
  for (const name of fs
    .readdirSync(CONSOLE)
    .filter((file) => file.endsWith('.js') && file !== 'messages-vi.js')) {
    const source = withoutComments(fs.readFileSync(path.join(CONSOLE, name), 'utf8'));
    for (const match of source.matchAll(/\bt\(\s*(['"])((?:\\.|(?!\1).)*)\1/gs))
      texts.add(match[2]!.replace(/\\'/g, "'"));
  }
  return [...texts];
}

describe('console languages', async () => {
  const messages = await import(pathToFileURL(path.join(CONSOLE, 'messages-vi.js')).href);

  it('has the Vietnamese of every console text', () => {
    const texts = consoleTexts();
    expect(texts.length).toBeGreaterThan(300);
    expect(texts.filter((text) => !(text in messages.VI))).toEqual([]);
  });

  it('keeps the same {placeholders} in both languages', () => {
    const names = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    for (const [english, vietnamese] of Object.entries(messages.VI as Record<string, string>)) {
      expect(names(vietnamese), english).toEqual(names(english));
    }
  });

  it('has Vietnamese words for every error code the API answers', () => {
    // The catalogue is every code the API answers (the type checker refuses any other).
    const codes = Object.keys(ERRORS);
    expect(codes).toContain('invalid_payout_file');
    expect(codes.filter((code) => !(code in messages.VI_ERRORS))).toEqual([]);
    expect(Object.keys(messages.VI_ERRORS).filter((code) => !(code in ERRORS))).toEqual([]);
  });

  it('names every role of an API key in Vietnamese', () => {
    expect(ROLES.filter((role) => !(role in messages.VI_ROLES))).toEqual([]);
  });
});
