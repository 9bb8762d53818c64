/**
 * Reads a payout file — CSV (any of the separators spreadsheets write) or an `.xlsx` workbook, told
 * apart by their bytes, not their names — and checks every row against the gateway's batch item
 * rules. Nothing is guessed: a text amount written `1.000.000`, `1e6` or `-5` is a row error, never a
 * number; a header that names no column is named in the error.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  COLUMN_ALIASES,
  PAYOUT_COLUMNS,
  RECEIVER_COLUMNS,
  REQUIRED_COLUMNS,
  columnOfHeader,
  type PayoutColumn,
} from './payout-columns';
import { CsvTableReader, type Separator } from './payout-file-csv';
import {
  PayoutRowChecker,
  isBlankRow,
  type Cell,
  type FileError,
  type PayoutRow,
  type RowError,
  type TableRow,
} from './payout-file-rows';
import { looksLikeOldExcel, looksLikeZip, MAGIC_BYTES, readXlsxTable } from './payout-file-xlsx';

export type { Cell, FileError, PayoutRow, RowError, TableRow } from './payout-file-rows';
export type { PayoutColumn } from './payout-columns';
export { PAYOUT_COLUMNS } from './payout-columns';

/** How the file was read, for the preview: which separator or sheet, and which header named which column. */
export interface FileSource {
  format: 'csv' | 'xlsx';
  separator?: Separator;
  sheet?: string;
  sheets?: string[];
  columns: Array<{ header: string; column: PayoutColumn }>;
}

export interface PayoutFileReport {
  rows: PayoutRow[];
  rowCount: number;
  totalAmount: number;
  source: FileSource | null;
  fileErrors: FileError[];
  rowErrors: RowError[];
}

export interface ParseOptions {
  maxRows: number;
  /** A workbook's sheet by name; unset: the first visible sheet. */
  sheet?: string;
}

const headerText = (cell: Cell | undefined) =>
  cell === null || cell === undefined
    ? ''
    : typeof cell === 'object' && !(cell instanceof Date)
      ? ''
      : String(cell).trim();

/** The columns a header names, or the problems that stop the file. */
function readHeader(
  cells: Cell[],
): { indexOf: Map<PayoutColumn, number>; columns: FileSource['columns'] } | FileError[] {
  const indexOf = new Map<PayoutColumn, number>();
  const columns: FileSource['columns'] = [];
  const unknown: string[] = [];
  const repeated: string[] = [];
  cells.forEach((cell, index) => {
    const header = headerText(cell);
    if (header === '') return; // a blank header cell over blank cells is an unused column
    const column = columnOfHeader(header);
    if (!column) unknown.push(header);
    else if (indexOf.has(column)) repeated.push(`${header} (${column})`);
    else {
      indexOf.set(column, index);
      columns.push({ header, column });
    }
  });
  const read = cells.map(headerText).filter(Boolean).join(' | ');
  const problems: FileError[] = [
    ...REQUIRED_COLUMNS.filter(
      (column) => !indexOf.has(column) && !(indexOf.has('payee_id') && RECEIVER_COLUMNS.includes(column)),
    ).map((column) => ({
      rule: 'missing_column',
      message: `The header has no "${column}" column (also accepted: ${COLUMN_ALIASES[column].slice(0, 4).join(', ')}…); the header read is: ${read || '(empty)'}.`,
    })),
    ...unknown.map((name) => ({
      rule: 'unknown_column',
      message: `Unknown column "${name}"; the columns are ${PAYOUT_COLUMNS.join(', ')} (or their documented aliases).`,
    })),
    ...repeated.map((name) => ({ rule: 'repeated_column', message: `Column ${name} appears twice.` })),
  ];
  return problems.length ? problems : { indexOf, columns };
}

/** Takes the rows of a table one at a time: the header first, then payout rows until the limit. */
class TableCollector {
  readonly checker = new PayoutRowChecker();
  fileErrors: FileError[] = [];
  columns: FileSource['columns'] = [];
  rowCount = 0;
  private indexOf: Map<PayoutColumn, number> | undefined;

  constructor(private readonly maxRows: number) {}

  /** Returns false once reading further is pointless. */
  add(row: TableRow): boolean {
    if (isBlankRow(row.cells)) return true;
    if (!this.indexOf) {
      const header = readHeader(row.cells);
      if (Array.isArray(header)) {
        this.fileErrors = header;
        return false;
      }
      this.indexOf = header.indexOf;
      this.columns = header.columns;
      return true;
    }
    this.rowCount += 1;
    if (this.rowCount > this.maxRows) return false;
    this.checker.add(row.rowNumber, row.cells, this.indexOf);
    return true;
  }

  /** File-level problems found once the rows are read (or reading stopped at the row cap). */
  finish(): void {
    if (this.fileErrors.length) return;
    if (!this.indexOf) this.fileErrors = [{ rule: 'empty', message: 'The file is empty.' }];
    else if (this.rowCount === 0) {
      this.fileErrors = [{ rule: 'no_rows', message: 'The file has a header but no payout rows.' }];
    } else if (this.rowCount > this.maxRows) {
      this.fileErrors = [
        {
          rule: 'too_many_rows',
          message: `The file has more than ${this.maxRows} rows; the limit is ${this.maxRows}. Split it into several files.`,
        },
      ];
    }
  }
}

function reportOf(collector: TableCollector, source: Omit<FileSource, 'columns'>): PayoutFileReport {
  const failed = collector.fileErrors.length > 0;
  return {
    rows: failed ? [] : collector.checker.rows,
    rowCount: failed ? 0 : collector.rowCount,
    totalAmount: failed ? 0 : collector.checker.rows.reduce((sum, row) => sum + row.amount, 0),
    source: { ...source, columns: collector.columns },
    fileErrors: collector.fileErrors,
    rowErrors: failed ? [] : collector.checker.rowErrors,
  };
}

const fileFailure = (error: FileError): PayoutFileReport => ({
  rows: [],
  rowCount: 0,
  totalAmount: 0,
  source: null,
  fileErrors: [error],
  rowErrors: [],
});

/** One format's reader. */
interface FormatReader {
  /** Resolves once the bytes are taken (backpressure). */
  write(chunk: Uint8Array): Promise<void>;
  /** True once the file is refused whatever follows (its header, the row cap): reading may stop. */
  readonly stopped: boolean;
  /** The input ended (or reading stopped): the report. */
  end(): Promise<PayoutFileReport>;
  /** The input failed: let go of whatever the reader holds. */
  abandon(): void;
}

function csvReader(collector: TableCollector): FormatReader {
  const reader = new CsvTableReader((row) => collector.add(row));
  return {
    write: (chunk) => reader.write(chunk),
    get stopped() {
      return reader.stopped;
    },
    abandon: () => undefined,
    async end() {
      const read = await reader.end();
      if ('rule' in read) return fileFailure(read);
      collector.finish();
      return reportOf(collector, { format: 'csv', separator: read.separator });
    },
  };
}

/**
 * A workbook is written to a temporary file as it arrives (its parts come in any order, the shared
 * strings usually last), then read by its central directory, the chosen sheet row by row.
 */
function xlsxReader(collector: TableCollector, sheet: string | undefined): FormatReader {
  const dir = mkdtempSync(path.join(tmpdir(), 'payrun-upload-'));
  const file = path.join(dir, 'upload.xlsx');
  const output = createWriteStream(file);
  const written = new Promise<void>((resolve, reject) => {
    output.once('finish', resolve);
    output.once('error', reject);
  });
  const cleanUp = () => {
    output.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    async write(chunk) {
      if (!output.write(chunk)) await Promise.race([once(output, 'drain'), written]);
    },
    // The rows can be read only once the whole zip is here.
    stopped: false,
    abandon: cleanUp,
    async end() {
      try {
        output.end();
        await written;
        const read = await readXlsxTable(file, { sheet }, (row) => collector.add(row));
        if ('rule' in read) return fileFailure(read);
        collector.finish();
        const others = read.sheets.filter((name) => name !== read.sheet);
        if (collector.fileErrors.length && sheet === undefined && others.length) {
          // The payouts are often on another sheet than the first: say so, first.
          collector.fileErrors.unshift({
            rule: 'choose_sheet',
            message: `Sheet "${read.sheet}" was read (the first); the workbook also has ${others.map((name) => `"${name}"`).join(', ')}: choose the sheet that holds the payouts.`,
          });
        }
        return reportOf(collector, { format: 'xlsx', sheet: read.sheet, sheets: read.sheets });
      } finally {
        cleanUp();
      }
    },
  };
}

/** Chooses the reader from the first bytes (an .xlsx is a zip), whatever the file is called. */
function readerFor(head: Uint8Array, options: ParseOptions): FormatReader | FileError {
  if (looksLikeOldExcel(head)) {
    return {
      rule: 'old_excel',
      message:
        'The file is an Excel 97–2003 workbook (.xls); save it as .xlsx or "CSV UTF-8" and upload it again.',
    };
  }
  const collector = new TableCollector(options.maxRows);
  return looksLikeZip(head) ? xlsxReader(collector, options.sheet) : csvReader(collector);
}

/**
 * Reads a payout file from its chunks as they arrive. A CSV is checked as it comes, and leaving the
 * loop at its first file-level failure (a bad header, the row cap) stops the source: the rest is never
 * read. A workbook is taken whole (to a temporary file) before its rows are read.
 */
export async function parsePayoutChunks(
  chunks: AsyncIterable<Uint8Array>,
  options: ParseOptions,
): Promise<PayoutFileReport> {
  let reader: FormatReader | undefined;
  let head: Uint8Array = new Uint8Array(0);
  const open = async (bytes: Uint8Array): Promise<FileError | undefined> => {
    const chosen = readerFor(bytes, options);
    if ('rule' in chosen) return chosen;
    reader = chosen;
    await reader.write(bytes);
    return undefined;
  };
  try {
    for await (const chunk of chunks) {
      if (reader) await reader.write(chunk);
      else {
        head = head.length ? Buffer.concat([head, chunk]) : chunk;
        if (head.length < MAGIC_BYTES) continue;
        const refused = await open(head);
        if (refused) return fileFailure(refused);
      }
      if (reader!.stopped) break;
    }
  } catch (error) {
    reader?.abandon();
    throw error;
  }
  if (!reader) {
    if (head.length === 0) return fileFailure({ rule: 'empty', message: 'The file is empty.' });
    const refused = await open(head);
    if (refused) return fileFailure(refused);
  }
  return reader!.end();
}

/** A whole file at once (tests, scripts): the same reading as an upload's. */
export function parsePayoutFile(input: Buffer | string, options: ParseOptions): Promise<PayoutFileReport> {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  return parsePayoutChunks(
    (async function* () {
      if (bytes.length) yield bytes;
    })(),
    options,
  );
}

/** Rows whose payout id was paid, or is being paid, by an earlier run. */
export function markAlreadyPaid(report: PayoutFileReport, taken: Map<string, string>): PayoutFileReport {
  if (taken.size === 0) return report;
  const rowErrors = [...report.rowErrors];
  const rows = report.rows.filter((row) => {
    const runId = taken.get(row.payoutId);
    if (!runId) return true;
    rowErrors.push({
      row: row.rowNumber,
      column: 'payout_id',
      rule: 'already_paid_or_in_flight',
      message: `payout_id "${row.payoutId}" was already paid or is being paid by run ${runId}.`,
    });
    return false;
  });
  rowErrors.sort((a, b) => a.row - b.row);
  return { ...report, rows, rowErrors, totalAmount: rows.reduce((sum, row) => sum + row.amount, 0) };
}
