/**
 * Reads a payout file and checks every row against document 3's batch item rules, which come from
 * the gateway's operation table (not restated here). Nothing is guessed: an amount written
 * `1.000.000`, `1e6` or `-5` is a row error, never a number.
 */
import { parse } from 'csv-parse/sync';
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

function decodeUtf8(input: Buffer | string): string | undefined {
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input);
  } catch {
    return undefined;
  }
}

const fileFailures = (fileErrors: FileError[]): PayoutFileReport => ({
  rows: [],
  rowCount: 0,
  totalAmount: 0,
  fileErrors,
  rowErrors: [],
});
const fileFailure = (rule: string, message: string) => fileFailures([{ rule, message }]);

export function parsePayoutFile(input: Buffer | string, options: ParseOptions): PayoutFileReport {
  const text = decodeUtf8(input);
  if (text === undefined) return fileFailure('encoding', 'The file is not UTF-8 text.');
  if (text.includes('\u0000')) return fileFailure('not_csv', 'The file is binary, not CSV text.');
  if (text.trim() === '') return fileFailure('empty', 'The file is empty.');

  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: false,
      // Files edited on several systems mix line endings; accept each on any line.
      record_delimiter: ['\r\n', '\n', '\r'],
      skip_empty_lines: true,
      trim: false,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    const detail = (error as Error).message.replace(/^Invalid Record Length: /, '');
    return fileFailure('not_csv', `The file is not valid CSV: ${detail}`);
  }

  const [header, ...data] = records;
  if (!header) return fileFailure('empty', 'The file is empty.');
  const names = header.record.map((name) => name.trim().toLowerCase());
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
  if (headerProblems.length) return fileFailures(headerProblems);
  if (data.length === 0) return fileFailure('no_rows', 'The file has a header but no payout rows.');
  if (data.length > options.maxRows) {
    return fileFailure(
      'too_many_rows',
      `The file has ${data.length} rows; the limit is ${options.maxRows}. Split it into several files.`,
    );
  }

  const itemFields = batchItemFields();
  const rows: PayoutRow[] = [];
  const rowErrors: RowError[] = [];
  const firstRowOfId = new Map<string, number>();
  for (const { record, info } of data) {
    const rowNumber = info.lines;
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
    for (const violation of checkFields(itemFields, item, '', { strict: true })) {
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
      const first = firstRowOfId.get(payoutId);
      if (first !== undefined) {
        fail('payout_id', 'duplicate_in_file', `payout_id "${payoutId}" already appears on row ${first}.`);
      } else firstRowOfId.set(payoutId, rowNumber);
    }

    if (errors.length) {
      rowErrors.push(...errors);
      continue;
    }
    rows.push({
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

  return {
    rows,
    rowCount: data.length,
    totalAmount: rows.reduce((sum, row) => sum + row.amount, 0),
    fileErrors: [],
    rowErrors,
  };
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
