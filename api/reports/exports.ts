/**
 * The period report as files: CSV (the one writer every export uses, so a spreadsheet runs nothing) and
 * an XLSX workbook with the same rows, numbers as numbers, and a totals sheet. Both are built from the
 * same `Movement` list, so they cannot disagree.
 */
import { PassThrough } from 'node:stream';
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

/**
 * Written with exceljs's streaming writer: each row is committed as it is added, so a 20,000-row report
 * neither holds a whole workbook model in memory nor blocks the event loop for the seconds the in-memory
 * writer takes (docs/reports.md gives the figures).
 */
export async function movementsXlsx(
  movements: readonly Movement[],
  totals: MovementTotals,
  period: { from: string; to: string },
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true });
  const sheet = workbook.addWorksheet('movements');
  sheet.columns = MOVEMENT_COLUMNS.map((column) => ({
    header: column,
    key: column,
    width: column === 'counterparty' || column === 'message' || column === 'reason' ? 32 : 20,
    // Ids stay text (a long transId must not become 1.2E+13); amounts are whole đồng with grouping.
    style: { numFmt: column === 'amount' ? '#,##0' : column === 'result_code' ? '0' : '@' },
  }));
  sheet.getRow(1).font = { bold: true };
  for (const [index, movement] of movements.entries()) {
    sheet.addRow(movementCells(movement)).commit();
    // Let other requests in between slices of a long report.
    if (index % 2000 === 1999) await new Promise((resolve) => setImmediate(resolve));
  }
  sheet.commit();
  const summary = workbook.addWorksheet('totals');
  summary.columns = [
    { header: 'line', key: 'line', width: 34 },
    { header: 'count', key: 'count', width: 12 },
    { header: 'amount', key: 'amount', width: 20, style: { numFmt: '#,##0' } },
  ];
  summary.addRow({ line: `period ${period.from} – ${period.to} (GMT+7)` }).commit();
  for (const line of ['out', 'in', 'failed', 'pending'] as const)
    summary.addRow({ line, count: totals[line].count, amount: totals[line].amount }).commit();
  for (const [kind, byOutcome] of Object.entries(totals.byKind))
    for (const [outcome, value] of Object.entries(byOutcome))
      summary.addRow({ line: `${kind} ${outcome}`, count: value.count, amount: value.amount }).commit();
  summary.commit();
  await workbook.commit();
  await finished;
  return Buffer.concat(chunks);
}
