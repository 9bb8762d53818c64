/**
 * CSV that payrun writes (results, error reports, the template): every cell a spreadsheet would run
 * as a formula is prefixed with a quote. Reading payout files lives in payout-file.ts.
 */
import type { PayoutFileReport } from './payout-file';

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
