/**
 * Splits CSV text into records, chunk by chunk, numbering each record by the line of the file it ends
 * on. The lines are counted here, on the text itself, because a row error must name the line a person
 * finds in the file: `\r\n`, `\n` and `\r` each end one line, inside a quoted cell as well as between
 * records, and the empty lines that are skipped still count. (csv-parse's per-record `info` objects
 * gave the line before, at the price of an object per record, and counted a `\r\n` inside a quoted
 * cell as two lines.)
 *
 * The dialect is the one payout files use: one quote character `"` (doubled inside a quoted cell),
 * no trimming, empty lines skipped, and every record as long as the first.
 */

/** Why the text is not CSV, with the line (from 1) it was found on. */
export type CsvProblem =
  | { kind: 'cell_count'; line: number; expected: number; got: number }
  | { kind: 'quote_not_closed'; line: number }
  | { kind: 'quote_after_closing'; line: number }
  | { kind: 'quote_inside_cell'; line: number; field: number; value: string };

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

const enum At {
  /** Nothing of the current cell read yet. */
  CellStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted cell: it closes the cell, or a second one follows. */
  QuoteInQuoted,
}

export class CsvRecordSplitter {
  private at = At.CellStart;
  private cells: string[] = [];
  /** The current cell's text from earlier chunks (a cell rarely spans chunks). */
  private carried = '';
  private line = 1;
  /** The last character was a `\r`: a `\n` right after it ends no further line. */
  private afterCr = false;
  private quoteLine = 0;
  /** The current record has a quoted cell: `""` alone on a line is a record, not an empty line. */
  private quotedCell = false;
  private expected = -1;
  private skipFirst: boolean;
  private problem: CsvProblem | undefined;
  private stopped = false;

  /**
   * `onRecord` takes each record's cells and the line it ends on, and answers false to stop reading.
   * `skipFirstRecord` drops Excel's `sep=` line, which is not part of the table.
   */
  constructor(
    private readonly separator: number,
    private readonly onRecord: (cells: string[], line: number) => boolean,
    options: { skipFirstRecord?: boolean } = {},
  ) {
    this.skipFirst = options.skipFirstRecord ?? false;
  }

  /** The first problem found; reading stops there. */
  get failure(): CsvProblem | undefined {
    return this.problem;
  }

  get done(): boolean {
    return this.stopped || this.problem !== undefined;
  }

  write(text: string): void {
    if (this.done) return;
    const separator = this.separator;
    const length = text.length;
    let start = 0;
    let index = 0;
    if (this.afterCr && length > 0) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) {
        if (this.at === At.Quoted) this.carried += '\n';
        start = index = 1;
      }
    }
    while (index < length) {
      const code = text.charCodeAt(index);
      switch (this.at) {
        case At.Quoted:
          if (code === QUOTE) {
            this.carried += text.slice(start, index);
            this.at = At.QuoteInQuoted;
            start = index + 1;
          } else if (code === LF) this.line += 1;
          else if (code === CR) {
            this.line += 1;
            if (index + 1 < length) {
              if (text.charCodeAt(index + 1) === LF) index += 1;
            } else this.afterCr = true;
          }
          index += 1;
          continue;
        case At.QuoteInQuoted:
          if (code === QUOTE) {
            // A doubled quote is one quote of the text; the cell goes on.
            this.at = At.Quoted;
            start = index;
            index += 1;
            continue;
          }
          if (code !== separator && code !== LF && code !== CR) {
            this.problem = { kind: 'quote_after_closing', line: this.line };
            return;
          }
          this.cells.push(this.carried);
          this.carried = '';
          break;
        case At.CellStart:
          if (code === QUOTE) {
            this.at = At.Quoted;
            this.quoteLine = this.line;
            this.quotedCell = true;
            this.carried = '';
            start = index + 1;
            index += 1;
            continue;
          }
          // The character is read again, as the first of an unquoted cell.
          this.at = At.Unquoted;
          start = index;
          continue;
        case At.Unquoted:
          if (code === QUOTE) {
            const value = this.carried + text.slice(start, index);
            this.problem = { kind: 'quote_inside_cell', line: this.line, field: this.cells.length, value };
            return;
          }
          if (code !== separator && code !== LF && code !== CR) {
            index += 1;
            continue;
          }
          this.cells.push(this.carried + text.slice(start, index));
          this.carried = '';
          break;
      }
      // A separator or a line end closed the cell.
      index += 1;
      if (code === separator) {
        this.at = At.CellStart;
        start = index;
        continue;
      }
      const ending = this.line;
      this.line += 1;
      if (code === CR) {
        if (index < length) {
          if (text.charCodeAt(index) === LF) index += 1;
        } else this.afterCr = true;
      }
      start = index;
      this.at = At.CellStart;
      this.endRecord(ending);
      if (this.done) return;
    }
    if (this.at === At.Unquoted || this.at === At.Quoted) this.carried += text.slice(start, length);
  }

  /** The text ended: the last record, if the text does not end with a line end. */
  end(): void {
    if (this.done) return;
    if (this.at === At.Quoted) {
      this.problem = { kind: 'quote_not_closed', line: this.quoteLine };
      return;
    }
    if (this.at === At.QuoteInQuoted) this.cells.push(this.carried);
    else if (this.at === At.Unquoted) this.cells.push(this.carried);
    else if (this.cells.length > 0) this.cells.push('');
    this.carried = '';
    if (this.cells.length > 0) this.endRecord(this.line);
  }

  private endRecord(line: number): void {
    const cells = this.cells;
    const quoted = this.quotedCell;
    this.cells = [];
    this.quotedCell = false;
    // A line with no character at all is skipped; one holding only separators is a record of empty cells.
    if (cells.length === 1 && cells[0] === '' && !quoted) return;
    if (this.skipFirst) {
      this.skipFirst = false;
      return;
    }
    if (this.expected === -1) this.expected = cells.length;
    else if (cells.length !== this.expected) {
      this.problem = { kind: 'cell_count', line, expected: this.expected, got: cells.length };
      return;
    }
    if (!this.onRecord(cells, line)) this.stopped = true;
  }
}
