/**
 * Reads the rows of one sheet of an `.xlsx` workbook, one row at a time, so a 100,000-row workbook
 * never exists in memory as a whole (only its shared strings, which the format keeps in one table).
 *
 * The workbook is a zip whose parts come in any order (Excel and ExcelJS both store the sheets before
 * the shared strings, ExcelJS the workbook part last), so the upload is written to a temporary file as
 * it arrives and read through the zip's central directory: the workbook part (sheet names), its
 * relationships, the shared strings and the styles (which tell dates from numbers) first, then only
 * the chosen sheet, inflated and parsed row by row by ExcelJS's streaming worksheet reader. ExcelJS's
 * own single-pass reader is not used: it loses the parts after the shared strings when the zip's bytes
 * arrive faster than it reads them (exceljs/exceljs#3064), which is exactly the case of an upload.
 *
 * The sheet is the one chosen by name, else the first visible sheet in the workbook's own order.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import unzipper from 'unzipper';
import type { Cell, FileError, TableRow } from './payout-file-rows';

export interface XlsxSheetInfo {
  sheet: string;
  sheets: string[];
}

/** Shared strings larger than this once inflated are refused: a small zip may unpack to gigabytes. */
const MAX_SHARED_STRINGS_BYTES = 256 * 1024 * 1024;

/** The parts of ExcelJS's streaming reader used here, beyond its published types. */
interface ReaderParts {
  model?: { sheets?: Array<{ name: string; id: number; rId: string; state?: string }> };
  workbookRels?: Array<{ Id: string; Target: string }>;
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncIterable<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(entry: Readable, sheetNo: string): Iterable<{ eventType: string; value: SheetRows }>;
}
interface SheetRows {
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

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** The compound file of Excel 97–2003 (.xls). */
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const startsWith = (input: Uint8Array, magic: number[]) =>
  input.length >= magic.length && magic.every((byte, index) => input[index] === byte);

/** How many first bytes tell the formats apart. */
export const MAGIC_BYTES = OLE_MAGIC.length;
export const looksLikeZip = (input: Uint8Array) => startsWith(input, ZIP_MAGIC);
export const looksLikeOldExcel = (input: Uint8Array) => startsWith(input, OLE_MAGIC);

/**
 * The zip in `file`, read by ranges. Every stream opened is closed at the end, read to its end or
 * not (a sheet abandoned at its header), so nothing stays open in a long-lived parser thread.
 */
function rangedSource(file: string) {
  const opened: fs.ReadStream[] = [];
  return {
    source: {
      stream(offset: number, length?: number) {
        const stream = fs.createReadStream(file, {
          start: offset,
          end: length ? offset + length : undefined,
        });
        opened.push(stream);
        return stream;
      },
      size: async () => (await fs.promises.stat(file)).size,
    },
    close: () => opened.forEach((stream) => stream.destroy()),
  };
}

const notXlsx = (why: string): FileError => ({
  rule: 'not_xlsx',
  message: `The file is not a readable .xlsx workbook: ${why.split('\n')[0]}`,
});

/** `worksheets/sheet2.xml` (relative to xl/) or `/xl/worksheets/sheet2.xml` → the zip path. */
const partPath = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target}`);

/**
 * Hands each row of the chosen sheet of the workbook in `file` to `visit` (which returns false to
 * stop early) and says which sheet it read; a workbook that cannot be read, or has no such sheet, is a
 * file error.
 */
export async function readXlsxTable(
  file: string,
  options: { sheet?: string },
  visit: (row: TableRow) => boolean,
): Promise<XlsxSheetInfo | FileError> {
  const { source, close } = rangedSource(file);
  try {
    const directory = await unzipper.Open.custom(source);
    const part = (name: string) => directory.files.find((entry) => entry.path === name);
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      // Styles tell dates from numbers.
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    }) as unknown as ReaderParts;

    const workbookPart = part('xl/workbook.xml');
    const relsPart = part('xl/_rels/workbook.xml.rels');
    if (!workbookPart || !relsPart) return notXlsx('it has no workbook part.');
    await reader._parseRels(relsPart.stream());
    await reader._parseWorkbook(workbookPart.stream());
    const strings = part('xl/sharedStrings.xml');
    if (strings) {
      if (strings.uncompressedSize > MAX_SHARED_STRINGS_BYTES) {
        return notXlsx('its text table is larger than 256 MB once unpacked.');
      }
      for await (const event of reader._parseSharedStrings(strings.stream())) void event;
    }
    const styles = part('xl/styles.xml');
    if (styles) await reader._parseStyles(styles.stream());

    const declared = reader.model?.sheets ?? [];
    const sheets = declared.map((sheet) => sheet.name);
    const wanted =
      options.sheet === undefined
        ? declared.find((sheet) => sheet.state !== 'hidden' && sheet.state !== 'veryHidden')
        : declared.find((sheet) => sheet.name === options.sheet);
    if (!wanted) {
      if (options.sheet !== undefined) {
        return {
          rule: 'unknown_sheet',
          message: `The workbook has no sheet "${options.sheet}"; its sheets are ${sheets.map((name) => `"${name}"`).join(', ') || 'none'}.`,
        };
      }
      return { rule: 'empty', message: 'The workbook has no sheet with rows.' };
    }
    const target = reader.workbookRels?.find((rel) => rel.Id === wanted.rId)?.Target;
    const sheetPart = target === undefined ? undefined : part(partPath(target));
    if (!target || !sheetPart) return notXlsx(`sheet "${wanted.name}" is missing from the file.`);

    const sheetNo = /sheet(\d+)\.xml$/.exec(target)?.[1] ?? String(wanted.id);
    for (const { eventType, value: rows } of reader._parseWorksheet(sheetPart.stream(), sheetNo)) {
      if (eventType !== 'worksheet') continue;
      for await (const row of rows) {
        if (!visit({ rowNumber: row.number, cells: cellsOf(row.values) })) break;
      }
    }
    return { sheet: wanted.name, sheets };
  } catch (error) {
    return notXlsx(String((error as Error).message ?? error));
  } finally {
    close();
  }
}
