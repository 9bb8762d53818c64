/**
 * Reads a payout file and checks every row against document 3's batch item rules, which come from
 * the gateway's operation table (not restated here). Nothing is guessed: an amount written
 * `1.000.000`, `1e6` or `-5` is a row error, never a number.
 */
import { BATCH_ITEM_AMOUNT_RANGE, checkFields, operationSpec } from '../../gateway';
import type { FieldMap, ListField, ObjectField } from '../../gateway/operations/types';

export const PAYOUT_COLUMNS = [
  'payout_id',
  'wallet_id',
  'wallet_name',
  'personal_id',
  'amount',
  'description',
  'store_id',
] as const;
export type PayoutColumn = (typeof PAYOUT_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly PayoutColumn[] = ['payout_id', 'wallet_id', 'wallet_name', 'amount'];

export interface PayoutRow {
  rowNumber: number;
  payoutId: string;
  walletId: string;
  walletName: string;
  personalId: string | null;
  amount: number;
  description: string;
  storeId: string | null;
}

export interface RowError {
  /** Line of the file (the header is line 1). */
  row: number;
  column: PayoutColumn | null;
  rule: string;
  message: string;
}

export interface FileError {
  rule: string;
  message: string;
}

export interface PayoutFileReport {
  rows: PayoutRow[];
  rowCount: number;
  totalAmount: number;
  fileErrors: FileError[];
  rowErrors: RowError[];
}

export interface ParseOptions {
  maxRows: number;
}

/** The batch item descriptor of `batch.create`, whose limits every row must meet. */
function batchItemFields(): FieldMap {
  const disbursements = operationSpec('batch.create').request.disbursements as ListField;
  return (disbursements.of as ObjectField).fields;
}

/** Maps a field path of the gateway's item descriptor to the CSV column it came from. */
const COLUMN_OF_FIELD: Record<string, PayoutColumn> = {
  id: 'payout_id',
  'method.walletId': 'wallet_id',
  'method.walletName': 'wallet_name',
  'method.personalId': 'personal_id',
  amount: 'amount',
  description: 'description',
  storeId: 'store_id',
};

const fileFailures = (fileErrors: FileError[]): PayoutFileReport => ({
  rows: [],
  rowCount: 0,
  totalAmount: 0,
  fileErrors,
  rowErrors: [],
});

/**
 * Checks a payout file one CSV record at a time, as the records are read, so that a file breaking a
 * file-level rule (header, row cap) is refused at the record that breaks it, not after all are read.
 * The first file-level failure wins; after it `failed` is true and further records are ignored.
 */
export class PayoutFileReader {
  private names: string[] | undefined;
  private dataRows = 0;
  private failure: FileError[] | undefined;
  private readonly rows: PayoutRow[] = [];
  private readonly rowErrors: RowError[] = [];
  private readonly firstRowOfId = new Map<string, number>();
  private readonly itemFields = batchItemFields();

  constructor(private readonly options: ParseOptions) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  fail(rule: string, message: string): void {
    this.failure ??= [{ rule, message }];
  }

  /** One CSV record; `line` is the file line it ends on (the header is line 1). */
  add(record: string[], line: number): void {
    if (this.failure) return;
    if (!this.names) {
      this.readHeader(record);
      return;
    }
    this.dataRows += 1;
    if (this.dataRows > this.options.maxRows) {
      this.fail(
        'too_many_rows',
        `The file has more than ${this.options.maxRows} rows, the limit. Split it into several files.`,
      );
      return;
    }
    this.readRow(this.names, record, line);
  }

  finish(): PayoutFileReport {
    if (this.failure) return fileFailures(this.failure);
    if (!this.names) return fileFailures([{ rule: 'empty', message: 'The file is empty.' }]);
    if (this.dataRows === 0) {
      return fileFailures([{ rule: 'no_rows', message: 'The file has a header but no payout rows.' }]);
    }
    return {
      rows: this.rows,
      rowCount: this.dataRows,
      totalAmount: this.rows.reduce((sum, row) => sum + row.amount, 0),
      fileErrors: [],
      rowErrors: this.rowErrors,
    };
  }

  private readHeader(record: string[]): void {
    const names = record.map((name) => name.trim().toLowerCase());
    const unknown = names.filter((name) => !(PAYOUT_COLUMNS as readonly string[]).includes(name));
    const missing = REQUIRED_COLUMNS.filter((column) => !names.includes(column));
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    const headerProblems: FileError[] = [
      ...missing.map((column) => ({
        rule: 'missing_column',
        message: `The header has no "${column}" column.`,
      })),
      ...unknown.map((name) => ({
        rule: 'unknown_column',
        message: `Unknown column "${name}"; the columns are ${PAYOUT_COLUMNS.join(', ')}.`,
      })),
      ...[...new Set(repeated)].map((name) => ({
        rule: 'repeated_column',
        message: `Column "${name}" appears twice.`,
      })),
    ];
    if (headerProblems.length) this.failure = headerProblems;
    else this.names = names;
  }

  private readRow(names: string[], record: string[], rowNumber: number): void {
    const cell = (column: PayoutColumn) => {
      const index = names.indexOf(column);
      return index === -1 ? '' : (record[index] ?? '').trim();
    };
    const errors: RowError[] = [];
    const fail = (column: PayoutColumn, rule: string, message: string) =>
      errors.push({ row: rowNumber, column, rule, message });

    const amountText = cell('amount');
    let amount = Number.NaN;
    if (amountText === '') fail('amount', 'required', 'amount is empty.');
    else if (!/^[0-9]+$/.test(amountText)) {
      fail(
        'amount',
        'plain_digits',
        `amount "${amountText}" must be whole VND in plain digits (no separators, signs, decimals or exponents).`,
      );
    } else amount = Number(amountText);

    if (cell('wallet_name') === '') fail('wallet_name', 'required', 'wallet_name is empty.');
    const personalId = cell('personal_id');
    if (personalId !== '' && !/^[0-9]{1,12}$/.test(personalId)) {
      fail('personal_id', 'digits_max_12', 'personal_id must be up to 12 digits.');
    }

    const item = {
      id: cell('payout_id'),
      method: {
        walletId: cell('wallet_id'),
        walletName: cell('wallet_name'),
        personalId: personalId || null,
      },
      // A placeholder within the range, so the other fields are still checked.
      amount: Number.isNaN(amount) ? BATCH_ITEM_AMOUNT_RANGE[0] : amount,
      description: cell('description'),
      ...(cell('store_id') ? { storeId: cell('store_id') } : {}),
    };
    for (const violation of checkFields(this.itemFields, item, '', { strict: true })) {
      const column = COLUMN_OF_FIELD[violation.field] ?? null;
      // Errors already reported with a CSV-specific rule are not repeated in the gateway's words.
      if (column && errors.some((error) => error.column === column)) continue;
      errors.push({
        row: rowNumber,
        column,
        rule: violation.rule,
        message: column ? violation.message.replaceAll(violation.field, column) : violation.message,
      });
    }

    const payoutId = cell('payout_id');
    if (payoutId) {
      const first = this.firstRowOfId.get(payoutId);
      if (first !== undefined) {
        fail('payout_id', 'duplicate_in_file', `payout_id "${payoutId}" already appears on row ${first}.`);
      } else this.firstRowOfId.set(payoutId, rowNumber);
    }

    if (errors.length) {
      this.rowErrors.push(...errors);
      return;
    }
    this.rows.push({
      rowNumber,
      payoutId,
      walletId: item.method.walletId,
      walletName: item.method.walletName,
      personalId: personalId || null,
      amount,
      description: item.description,
      storeId: cell('store_id') || null,
    });
  }
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

/** Cells a spreadsheet would run as a formula are prefixed with a quote. */
export function spreadsheetSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  const quote = (value: string | number | null) => {
    const text = spreadsheetSafe(value === null ? '' : String(value));
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(quote).join(',')).join('\r\n') + '\r\n';
}

export function errorReportCsv(report: PayoutFileReport): string {
  return toCsv(
    ['row', 'column', 'rule', 'message'],
    [
      ...report.fileErrors.map((error) => [null, null, error.rule, error.message]),
      ...report.rowErrors.map((error) => [error.row, error.column, error.rule, error.message]),
    ],
  );
}
