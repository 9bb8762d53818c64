/**
 * Reads a payout CSV as it comes out of a spreadsheet: UTF-8 (with or without a BOM) or the UTF-16
 * of Excel's "Unicode Text", separated by `,`, `;` (Excel on a Vietnamese-locale computer, where the
 * decimal mark is `,`) or a tab, with Excel's optional `sep=;` first line. The separator is the one
 * that makes the header name the most payout columns.
 */
import { parse } from 'csv-parse/sync';
import { columnOfHeader } from './payout-columns';
import type { FileError, TableRow } from './payout-file';

export type Separator = 'comma' | 'semicolon' | 'tab';
const SEPARATORS: Record<Separator, string> = { comma: ',', semicolon: ';', tab: '\t' };

export interface CsvTable {
  separator: Separator;
  rows: TableRow[];
}

/** The text of the file, or why it is not text we can read. */
function decodeText(input: Buffer): string | FileError {
  if (input[0] === 0xff && input[1] === 0xfe) return new TextDecoder('utf-16le').decode(input.subarray(2));
  if (input[0] === 0xfe && input[1] === 0xff) return new TextDecoder('utf-16be').decode(input.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input);
  } catch {
    const line = lineOfFirstInvalidByte(input);
    return {
      rule: 'encoding',
      message:
        `The file is not UTF-8 text (line ${line} has a byte that is not UTF-8, as in a file saved as ` +
        '"CSV (Comma delimited)" on Windows); save it as "CSV UTF-8" and upload it again.',
    };
  }
}

function lineOfFirstInvalidByte(input: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let index = 0; index <= input.length; index++) {
    if (index === input.length || input[index] === 0x0a) {
      try {
        decoder.decode(input.subarray(start, index));
      } catch {
        return line;
      }
      line += 1;
      start = index + 1;
    }
  }
  return line;
}

/** The cells of one line, honouring quotes; enough to choose a separator from the header. */
function splitLine(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === '"') {
      if (quoted && line[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else quoted = !quoted;
    } else if (char === separator && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells;
}

export function chooseSeparator(headerLine: string): Separator {
  let best: { separator: Separator; known: number; cells: number } = {
    separator: 'comma',
    known: -1,
    cells: 0,
  };
  for (const separator of Object.keys(SEPARATORS) as Separator[]) {
    const cells = splitLine(headerLine, SEPARATORS[separator]);
    const known = cells.filter((cell) => columnOfHeader(cell) !== undefined).length;
    if (known > best.known || (known === best.known && cells.length > best.cells)) {
      best = { separator, known, cells: cells.length };
    }
  }
  return best.separator;
}

/** csv-parse's errors, said as one line a finance person can act on. */
function unreadable(error: unknown, separator: Separator): FileError {
  const { code, lines, message } = error as { code?: string; lines?: number; message?: string };
  const where = lines ? `line ${lines}` : 'a line';
  switch (code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const [, expected, got] = /expect (\d+), got (\d+)/.exec(message ?? '') ?? [];
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: ${where} has ${got ?? 'a different number of'} cells but the header has ${expected ?? 'another number'} (separator: ${separator}).`,
      };
    }
    case 'CSV_QUOTE_NOT_CLOSED':
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: a quoted cell that starts near ${where} is never closed.`,
      };
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: ${where} has a quote in the middle of a cell; quote the whole cell and double the inner quotes.`,
      };
    default:
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: ${(message ?? String(error)).split('\n')[0]}`,
      };
  }
}

export function readCsvTable(input: Buffer): CsvTable | FileError {
  const text = decodeText(input);
  if (typeof text !== 'string') return text;
  if (text.includes('\u0000')) return { rule: 'not_csv', message: 'The file is binary, not CSV text.' };
  if (text.trim() === '') return { rule: 'empty', message: 'The file is empty.' };

  const content = text.replace(/^\uFEFF/, '');
  const firstLineEnd = content.search(/\r\n|\n|\r/);
  const firstLine = firstLineEnd === -1 ? content : content.slice(0, firstLineEnd);
  // Excel writes and honours a `sep=;` first line naming the separator.
  const hint = /^"?sep=(.)"?$/i.exec(firstLine.trim());
  const hinted = hint
    ? (Object.keys(SEPARATORS) as Separator[]).find((s) => SEPARATORS[s] === hint[1])
    : undefined;
  const headerLine = hint
    ? content
        .slice(firstLineEnd)
        .replace(/^(\r\n|\n|\r)+/, '')
        .split(/\r\n|\n|\r/)[0]!
    : firstLine;
  const separator = hinted ?? chooseSeparator(headerLine);

  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(content, {
      delimiter: SEPARATORS[separator],
      info: true,
      from_line: hint ? 2 : 1,
      relax_column_count: false,
      // Files edited on several systems mix line endings; accept each on any line.
      record_delimiter: ['\r\n', '\n', '\r'],
      skip_empty_lines: true,
      trim: false,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    return unreadable(error, separator);
  }
  return {
    separator,
    rows: records.map(({ record, info }) => ({ rowNumber: info.lines, cells: record })),
  };
}
