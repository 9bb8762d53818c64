/**
 * The period report as files: CSV (the one writer every export uses, so a spreadsheet runs nothing) and
 * an XLSX workbook with the same rows, numbers as numbers, and a totals sheet. Both are built from the
 * same `Movement` list, so they cannot disagree.
 */
import ExcelJS from 'exceljs';
import type { Movement, MovementTotals } from '../../contracts/reports';
import { toCsv, type CsvCell } from '../http/csv';

export const MOVEMENT_COLUMNS = [
  'kind',
  'direction',
  'id',
  'at',
  'amount',
  'currency',
  'counterparty',
  'status',
  'outcome',
  'order_id',
  'item_id',
  'request_id',
  'trans_id',
  'result_code',
  'message',
  'reason',
] as const;

export function movementCells(movement: Movement): CsvCell[] {
  return [
    movement.kind,
    movement.direction,
    movement.id,
    movement.at,
    movement.amount,
    movement.currency,
    movement.counterparty,
    movement.status,
    movement.outcome,
    movement.orderId,
    movement.itemId,
    movement.requestId,
    movement.transId,
    movement.resultCode,
    movement.message,
    movement.reason,
  ];
}

/** With a BOM, so Excel opens it as UTF-8 (Vietnamese names and messages). */
export function movementsCsv(movements: readonly Movement[]): string {
  return '\uFEFF' + toCsv(MOVEMENT_COLUMNS, movements.map(movementCells));
}

export async function movementsXlsx(
  movements: readonly Movement[],
  totals: MovementTotals,
  period: { from: string; to: string },
): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('movements');
  sheet.columns = MOVEMENT_COLUMNS.map((column) => ({
    header: column,
    key: column,
    width: column === 'counterparty' || column === 'message' || column === 'reason' ? 32 : 20,
    // Ids stay text (a long transId must not become 1.2E+13); amounts are whole đồng with grouping.
    style: { numFmt: column === 'amount' ? '#,##0' : column === 'result_code' ? '0' : '@' },
  }));
  for (const movement of movements) sheet.addRow(movementCells(movement));
  sheet.getRow(1).font = { bold: true };
  const summary = workbook.addWorksheet('totals');
  summary.columns = [
    { header: 'line', key: 'line', width: 34 },
    { header: 'count', key: 'count', width: 12 },
    { header: 'amount', key: 'amount', width: 20, style: { numFmt: '#,##0' } },
  ];
  summary.addRow({ line: `period ${period.from} – ${period.to} (GMT+7)` });
  for (const line of ['out', 'in', 'failed', 'pending'] as const)
    summary.addRow({ line, count: totals[line].count, amount: totals[line].amount });
  for (const [kind, byOutcome] of Object.entries(totals.byKind))
    for (const [outcome, value] of Object.entries(byOutcome))
      summary.addRow({ line: `${kind} ${outcome}`, count: value.count, amount: value.amount });
  summary.getRow(1).font = { bold: true };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
