/**
 * CSV read the way a spreadsheet opens it, to check what payrun exports: by `,` (English locales), by `;`
 * (Excel in Vietnamese and most European locales) or by tab (a LibreOffice choice).
 */

/**
 * Splits CSV text into rows of cells by `separator`, as a spreadsheet opening the file does: a `"`
 * opens a quoted part only at the start of a cell (elsewhere it is text), `""` inside is one `"`, text
 * after the closing quote is kept up to the next separator, and CR, LF or CRLF outside quotes ends a row.
 */
export function spreadsheetRows(text: string, separator: string): string[][] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let index = 0;
  let atCellStart = true;
  const endCell = () => {
    row.push(cell);
    cell = '';
    atCellStart = true;
  };
  const endRow = () => {
    endCell();
    rows.push(row);
    row = [];
  };
  while (index < input.length) {
    const char = input[index]!;
    if (atCellStart && char === '"') {
      atCellStart = false;
      index++;
      while (index < input.length) {
        if (input[index] === '"') {
          if (input[index + 1] === '"') {
            cell += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        cell += input[index];
        index++;
      }
      continue;
    }
    atCellStart = false;
    if (char === separator) {
      endCell();
      index++;
    } else if (char === '\r' || char === '\n') {
      endRow();
      index += char === '\r' && input[index + 1] === '\n' ? 2 : 1;
    } else {
      cell += char;
      index++;
    }
  }
  if (cell !== '' || row.length > 0) endRow();
  return rows;
}

/** What a spreadsheet could run: the first character past spaces, line breaks and quotes. */
export const FORMULA_START = /^[\s"]*[=+\-@＝＋－＠]/;

export const SPREADSHEET_SEPARATORS = [',', ';', '\t'] as const;

/** Every cell of the file, split each way, that a spreadsheet could run, named with its separator. */
export function formulaCells(csv: string): string[] {
  return SPREADSHEET_SEPARATORS.flatMap((separator) =>
    spreadsheetRows(csv, separator)
      .flat()
      .filter((cell) => FORMULA_START.test(cell))
      .map((cell) => `${JSON.stringify(separator)}: ${JSON.stringify(cell)}`),
  );
}
