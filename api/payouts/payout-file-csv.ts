/**
 * Reads a payout CSV as it comes out of a spreadsheet, chunk by chunk as the upload arrives: UTF-8
 * (with or without a BOM) or the UTF-16 of Excel's "Unicode Text", separated by `,`, `;` (Excel on a
 * Vietnamese-locale computer, where the decimal mark is `,`) or a tab, with Excel's optional `sep=;`
 * first line. The separator is the one that makes the header name the most payout columns, so only
 * the first line (or two, after `sep=`) is held back before rows start to flow.
 */
import { TextDecoder } from 'node:util';
import { CsvRecordSplitter, type CsvProblem } from './csv-records';
import { columnOfHeader } from './payout-columns';
import type { FileError, TableRow } from './payout-file-rows';

export type Separator = 'comma' | 'semicolon' | 'tab';
const SEPARATORS: Record<Separator, string> = { comma: ',', semicolon: ';', tab: '\t' };
const LINE_FEED = 0x0a;

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

/** The line (from 1) of the first byte that is not UTF-8; every line is decoded on its own. */
function lineOfFirstInvalidByte(input: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let index = 0; index <= input.length; index++) {
    if (index === input.length || input[index] === LINE_FEED) {
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

const notUtf8 = (line: number): FileError => ({
  rule: 'encoding',
  message:
    `The file is not UTF-8 text (line ${line} has a byte that is not UTF-8, as in a file saved as ` +
    '"CSV (Comma delimited)" on Windows); save it as "CSV UTF-8" and upload it again.',
});

/** Why the text is not CSV, said as one line a finance person can act on. */
function unreadable(problem: CsvProblem, separator: Separator): FileError {
  switch (problem.kind) {
    case 'cell_count':
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: line ${problem.line} has ${problem.got} cells but the header has ${problem.expected} (separator: ${separator}).`,
      };
    case 'quote_not_closed':
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: a quoted cell that starts near line ${problem.line} is never closed.`,
      };
    case 'quote_after_closing':
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: line ${problem.line} has a quote in the middle of a cell; quote the whole cell and double the inner quotes.`,
      };
    case 'quote_inside_cell':
      // Worded as csv-parse, which read these files before, worded it.
      return {
        rule: 'not_csv',
        message: `The file is not valid CSV: Invalid Opening Quote: a quote is found on field ${problem.field} at line ${problem.line}, value is ${JSON.stringify(problem.value)}`,
      };
  }
}

/**
 * One CSV upload, fed its bytes with `write` and closed with `end`. Rows go to `visit` as they are
 * parsed; `visit` answers false when reading further is pointless (a bad header, the row cap). After
 * the first file-level failure, or once `visit` said stop, `stopped` is true and the rest is ignored.
 */
export class CsvTableReader {
  private decoder: TextDecoder | undefined;
  private utf8 = false;
  /** The first bytes, until two tell the encoding. */
  private head: Uint8Array = new Uint8Array(0);
  /** UTF-8: bytes of the line being read, and the lines before it, to say where a bad byte is. */
  private lineBytes: Uint8Array[] = [];
  private linesBefore = 0;
  /** Text before the separator is chosen. */
  private pending = '';
  private splitter: CsvRecordSplitter | undefined;
  private chosen: Separator | undefined;
  private failure: FileError | undefined;
  private visitorStopped = false;

  constructor(private readonly visit: (row: TableRow) => boolean) {}

  get stopped(): boolean {
    return this.failure !== undefined || this.visitorStopped || this.splitter?.failure !== undefined;
  }

  get separator(): Separator | undefined {
    return this.chosen;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.stopped) return;
    let bytes = chunk;
    if (!this.decoder) {
      this.head = concat([this.head, chunk]);
      if (this.head.length < 2) return;
      this.openDecoder(this.head);
      bytes = this.head;
      this.head = new Uint8Array(0);
    }
    await this.decode(bytes, false);
  }

  /** The input ended: the separator used, or why the file cannot be read. */
  async end(): Promise<{ separator: Separator } | FileError> {
    if (!this.stopped) {
      if (this.decoder) await this.decode(new Uint8Array(0), true);
      else {
        this.openDecoder(this.head);
        await this.decode(this.head, true);
      }
    }
    if (!this.failure && !this.splitter && !this.visitorStopped) {
      if (this.pending.trim() === '') this.failure = { rule: 'empty', message: 'The file is empty.' };
      else this.startSplitter(this.pending);
    }
    this.splitter?.end();
    if (this.failure) return this.failure;
    const problem = this.splitter?.failure;
    if (problem) return unreadable(problem, this.chosen ?? 'comma');
    return { separator: this.chosen ?? 'comma' };
  }

  private openDecoder(head: Uint8Array): void {
    if (head[0] === 0xff && head[1] === 0xfe) this.decoder = new TextDecoder('utf-16le');
    else if (head[0] === 0xfe && head[1] === 0xff) this.decoder = new TextDecoder('utf-16be');
    else {
      this.decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
      this.utf8 = true;
    }
  }

  private async decode(bytes: Uint8Array, last: boolean): Promise<void> {
    let text: string;
    try {
      text = this.decoder!.decode(bytes, { stream: !last });
    } catch {
      this.failure = notUtf8(this.linesBefore + lineOfFirstInvalidByte(concat([...this.lineBytes, bytes])));
      return;
    }
    if (this.utf8) this.rememberLines(bytes);
    if (this.splitter) this.splitter.write(text);
    else {
      this.pending += text;
      const header = headerOf(this.pending, last);
      if (header !== undefined) {
        const text = this.pending;
        this.pending = '';
        if (text.trim() !== '') this.startSplitter(text, header);
      }
    }
  }

  /** Keeps the bytes of the current line only (a line feed is never inside a UTF-8 character). */
  private rememberLines(bytes: Uint8Array): void {
    const lastFeed = bytes.lastIndexOf(LINE_FEED);
    if (lastFeed === -1) {
      this.lineBytes.push(bytes);
      return;
    }
    for (const chunk of this.lineBytes) this.linesBefore += countFeeds(chunk);
    this.linesBefore += countFeeds(bytes.subarray(0, lastFeed + 1));
    this.lineBytes = [bytes.subarray(lastFeed + 1)];
  }

  private startSplitter(text: string, header = headerOf(text, true)): void {
    const { separator, hinted, lines } = header ?? {
      separator: 'comma' as Separator,
      hinted: false,
      lines: '',
    };
    // A NUL in the header is a binary file (or UTF-16 without its byte-order mark); one in a later cell
    // is that row's error, named by row and column (PostgreSQL cannot store it).
    if (lines.includes('\u0000')) {
      this.failure = { rule: 'not_csv', message: 'The file is binary, not CSV text.' };
      return;
    }
    this.chosen = separator;
    this.splitter = new CsvRecordSplitter(
      SEPARATORS[separator].charCodeAt(0),
      (cells, rowNumber) => {
        if (this.visit({ rowNumber, cells })) return true;
        this.visitorStopped = true;
        return false;
      },
      { skipFirstRecord: hinted },
    );
    this.splitter.write(text);
  }
}

/**
 * The separator, once the text holds the header line (after an optional `sep=` line), or undefined
 * while it does not yet. Excel writes and honours a `sep=;` first line naming the separator.
 */
function headerOf(
  text: string,
  complete: boolean,
): { separator: Separator; hinted: boolean; lines: string } | undefined {
  const content = text.replace(/^\uFEFF/, '');
  const firstEnd = content.search(/\r\n|\n|\r/);
  if (firstEnd === -1 && !complete) return undefined;
  const firstLine = firstEnd === -1 ? content : content.slice(0, firstEnd);
  const hint = /^"?sep=(.)"?$/i.exec(firstLine.trim());
  if (!hint) return { separator: chooseSeparator(firstLine), hinted: false, lines: firstLine };
  const hinted = (Object.keys(SEPARATORS) as Separator[]).find((s) => SEPARATORS[s] === hint[1]);
  const rest = content.slice(firstEnd === -1 ? content.length : firstEnd).replace(/^(\r\n|\n|\r)+/, '');
  const headerEnd = rest.search(/\r\n|\n|\r/);
  if (headerEnd === -1 && !complete) return undefined;
  const headerLine = headerEnd === -1 ? rest : rest.slice(0, headerEnd);
  return {
    separator: hinted ?? chooseSeparator(headerLine),
    hinted: true,
    lines: `${firstLine}\n${headerLine}`,
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

function countFeeds(bytes: Uint8Array): number {
  let count = 0;
  for (let index = bytes.indexOf(LINE_FEED); index !== -1; index = bytes.indexOf(LINE_FEED, index + 1))
    count += 1;
  return count;
}
