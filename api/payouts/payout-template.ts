/**
 * The payout file template finance teams start from: the header and one example row, as CSV (with a
 * BOM, so Excel opens it as UTF-8) and as a workbook whose id columns are Text, so Excel keeps the
 * leading 0 of a phone number.
 */
import ExcelJS from 'exceljs';
import { PAYOUT_COLUMNS } from './payout-columns';
import { toCsv } from '../http/csv';

/** The template keeps to receivers typed in full; a file naming directory payees adds a payee_id column. */
const TEMPLATE_COLUMNS = PAYOUT_COLUMNS.filter((column) => column !== 'payee_id');

const EXAMPLE_ROW: Record<(typeof TEMPLATE_COLUMNS)[number], string | number> = {
  payout_id: 'luong-2026-11-0001',
  wallet_id: '0912345678',
  wallet_name: 'Nguyễn Văn An',
  personal_id: '001234567890',
  amount: 1_500_000,
  description: 'Lương tháng 11',
  store_id: '',
};

export function templateCsv(): string {
  return '\uFEFF' + toCsv(TEMPLATE_COLUMNS, [TEMPLATE_COLUMNS.map((column) => EXAMPLE_ROW[column])]);
}

export async function templateXlsx(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('payouts');
  sheet.columns = TEMPLATE_COLUMNS.map((column) => ({
    header: column,
    key: column,
    width: column === 'wallet_name' || column === 'description' ? 28 : 18,
    // Text columns stay text; the amount is a whole number shown with grouping.
    style: { numFmt: column === 'amount' ? '#,##0' : '@' },
  }));
  sheet.addRow(EXAMPLE_ROW);
  sheet.getRow(1).font = { bold: true };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
