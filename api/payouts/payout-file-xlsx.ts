/**
 * Reads the rows of one sheet of an `.xlsx` workbook with ExcelJS's streaming reader: rows are
 * handed over one at a time as the zip is inflated, so a 100,000-row workbook never exists in memory
 * as a whole (only its shared strings, which the format keeps in one table).
 *
 * The sheet is the one chosen by name, else the first visible sheet in the workbook's own order.
 */
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Cell, FileError, TableRow } from './payout-file';

export interface XlsxSheetInfo {
  sheet: string;
  sheets: string[];
}

/** What ExcelJS's streaming reader exposes beyond its published types. */
interface StreamingWorkbook {
  model?: { sheets?: Array<{ name: string; state?: string }> };
  [Symbol.asyncIterator](): AsyncIterator<StreamingWorksheet>;
}
interface StreamingWorksheet {
  name?: string;
  [Symbol.asyncIterator](): AsyncIterator<{ number: number; values: unknown[] | Record<string, unknown> }>;
}

/** An ExcelJS cell value as one of ours: formulas give their result, rich text its plain text. */
function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value;
  const object = value as {
    result?: unknown;
    formula?: string;
    richText?: Array<{ text?: string }>;
    text?: unknown;
    error?: string;
  };
  if (object.error !== undefined) return { error: String(object.error) };
  if (object.richText) return object.richText.map((run) => run.text ?? '').join('');
  if ('formula' in object || 'sharedFormula' in object) return cellOf(object.result);
  if (object.text !== undefined) return cellOf(object.text);
  return String(value);
}

function cellsOf(values: unknown[] | Record<string, unknown>): Cell[] {
  // ExcelJS numbers columns from 1, so index 0 of `values` is always empty.
  const list = Array.isArray(values) ? values : Object.values(values);
  const cells: Cell[] = [];
  for (let index = 1; index < list.length; index++) cells.push(cellOf(list[index]));
  return cells;
}

export const looksLikeZip = (input: Buffer) =>
  input.length >= 4 && input[0] === 0x50 && input[1] === 0x4b && input[2] === 0x03 && input[3] === 0x04;
export const looksLikeOldExcel = (input: Buffer) =>
  input.length >= 8 &&
  input.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));

/**
 * Hands each row of the chosen sheet to `visit` (which returns false to stop early) and says which
 * sheet it read; a workbook that cannot be read, or has no such sheet, is a file error.
 */
export async function readXlsxTable(
  input: Buffer,
  options: { sheet?: string },
  visit: (row: TableRow) => boolean,
): Promise<XlsxSheetInfo | FileError> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([input]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Styles tell dates from numbers.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as StreamingWorkbook;

  const declared = () => workbook.model?.sheets ?? [];
  const target = () =>
    options.sheet ??
    declared().find((sheet) => sheet.state !== 'hidden' && sheet.state !== 'veryHidden')?.name;
  let read: string | undefined;
  try {
    sheets: for await (const worksheet of workbook) {
      const wanted = target();
      // Without a declared sheet list (a damaged workbook), the first sheet in the file is the first.
      if (wanted !== undefined && worksheet.name !== wanted) continue; // the reader skips its bytes
      read = worksheet.name ?? 'Sheet1';
      for await (const row of worksheet) {
        if (!visit({ rowNumber: row.number, cells: cellsOf(row.values) })) break sheets;
      }
      // One sheet is read; the sheets after it are not even inflated.
      break;
    }
  } catch (error) {
    return {
      rule: 'not_xlsx',
      message: `The file is not a readable .xlsx workbook: ${String((error as Error).message ?? error).split('\n')[0]}`,
    };
  }
  const sheets = declared().map((sheet) => sheet.name);
  if (read === undefined) {
    if (options.sheet !== undefined) {
      return {
        rule: 'unknown_sheet',
        message: `The workbook has no sheet "${options.sheet}"; its sheets are ${sheets.map((name) => `"${name}"`).join(', ') || 'none'}.`,
      };
    }
    return { rule: 'empty', message: 'The workbook has no sheet with rows.' };
  }
  return { sheet: read, sheets: sheets.length ? sheets : [read] };
}
