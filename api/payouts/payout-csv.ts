/**
 * The payout file's error report as CSV, written by the one CSV writer of payrun's exports
 * (api/http/csv.ts, which says how cells are quoted and neutralised). Reading payout files lives in
 * payout-file.ts.
 */
import { toCsv } from '../http/csv';
import type { PayoutFileReport } from './payout-file';

export function errorReportCsv(report: PayoutFileReport): string {
  return toCsv(
    ['row', 'column', 'rule', 'message'],
    [
      ...report.fileErrors.map((error) => [null, null, error.rule, error.message]),
      ...report.rowErrors.map((error) => [error.row, error.column, error.rule, error.message]),
    ],
  );
}
