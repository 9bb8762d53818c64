/**
 * Rows that name a directory payee (`payee_id`): the payee's wallet is what the row pays. A row may leave
 * its receiver columns empty, or repeat the payee's own; a row naming a payee that does not exist, is
 * archived, or is paid by bank (a batch pays wallets only), or that names another receiver than its payee,
 * is a row error naming the row and the column, and the file creates nothing.
 */
import { personKey } from '../../contracts/shared';
import type { PayeeRow } from '../../db/payees/payees';
import type { PayoutColumn, PayoutFileReport, PayoutRow, RowError } from './payout-file';

/** The payee ids a file names, to read them in one query. */
export const payeeIdsOf = (report: PayoutFileReport): string[] =>
  report.rows.flatMap((row) => (row.payeeId ? [row.payeeId] : []));

export function resolvePayees(
  report: PayoutFileReport,
  payees: ReadonlyMap<string, PayeeRow>,
): PayoutFileReport {
  if (!report.rows.some((row) => row.payeeId)) return report;
  const rowErrors = [...report.rowErrors];
  const rows: PayoutRow[] = [];
  for (const row of report.rows) {
    if (!row.payeeId) {
      rows.push(row);
      continue;
    }
    const errors = refusalsOf(row, payees.get(row.payeeId));
    if (errors.length) {
      rowErrors.push(...errors);
      continue;
    }
    const payee = payees.get(row.payeeId)!;
    rows.push({
      ...row,
      walletId: payee.wallet_id!,
      // The form of the name the wallet check accepted: the gateway checks batch items by it too.
      walletName: payee.registered_name ?? payee.name,
      personalId: row.personalId ?? payee.personal_id,
    });
  }
  rowErrors.sort((a, b) => a.row - b.row);
  return { ...report, rows, rowErrors, totalAmount: rows.reduce((sum, row) => sum + row.amount, 0) };
}

function refusalsOf(row: PayoutRow, payee: PayeeRow | undefined): RowError[] {
  const error = (column: PayoutColumn, rule: string, message: string): RowError => ({
    row: row.rowNumber,
    column,
    rule,
    message,
  });
  if (!payee)
    return [error('payee_id', 'unknown_payee', `payee_id "${row.payeeId}" is not a payee of the directory.`)];
  if (payee.status !== 'active')
    return [error('payee_id', 'archived_payee', `payee_id "${row.payeeId}" is archived; it pays nothing.`)];
  if (payee.kind !== 'wallet' || !payee.wallet_id)
    return [
      error(
        'payee_id',
        'payee_not_wallet',
        `payee_id "${row.payeeId}" is paid by bank; a payout file pays wallets (use a single disbursement).`,
      ),
    ];
  const errors: RowError[] = [];
  if (row.walletId && row.walletId !== payee.wallet_id)
    errors.push(
      error(
        'wallet_id',
        'payee_mismatch',
        `wallet_id is not the wallet of payee ${row.payeeId}; leave it empty or give the payee's.`,
      ),
    );
  const names = [payee.name, payee.registered_name]
    .filter((name): name is string => Boolean(name))
    .map(personKey);
  if (row.walletName && !names.includes(personKey(row.walletName)))
    errors.push(
      error(
        'wallet_name',
        'payee_mismatch',
        `wallet_name is not the name of payee ${row.payeeId}; leave it empty or give the payee's.`,
      ),
    );
  if (row.personalId && payee.personal_id && row.personalId !== payee.personal_id)
    errors.push(
      error(
        'personal_id',
        'payee_mismatch',
        `personal_id is not the one of payee ${row.payeeId}; leave it empty.`,
      ),
    );
  return errors;
}
