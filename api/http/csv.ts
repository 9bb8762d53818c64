/**
 * The one CSV writer of everything payrun exports: a payout run's results, the payout file's error
 * report, the payout file template and the audit log. A spreadsheet must read every cell as the text
 * payrun wrote, whichever separator its locale splits on: Excel in a Vietnamese (and most European)
 * locale splits a `.csv` on `;`, elsewhere on `,`; LibreOffice lets the person choose, tab included.
 *
 * Quoting: a cell holding `,` `;` `"` tab, CR or LF is quoted (RFC 4180, `"` doubled), so a reader that
 * splits on `,` or on `;` and honours quotes keeps it whole.
 *
 * Quoting is not enough: a reader splitting on `;` sees a `"` in the middle of a `,`-separated line as
 * plain text, so it splits a quoted cell at each `;` in it (and may end the row at a line break in it),
 * and a piece that begins with `=` is then a formula (`x;=HYPERLINK(A1;B1);` gave the cell
 * `=HYPERLINK(A1`). So every place where some reader could start a cell is neutralised: the start of a
 * cell and the place right after each `,` `;` tab, CR or LF in it. A piece starting there is dangerous
 * when its first character is `'`, tab or CR, or when, past spaces and `"` (a `;` reader opens a quote
 * there and closes it at the next `"`), it is `=` `+` `-` `@` or their full-width forms `＝` `＋` `－` `＠`.
 * A `'` is put in front of each dangerous piece: a spreadsheet shows the text, it runs nothing.
 *
 * Reversible: to get a value back, drop the `'` at the start of the cell and the one right after each
 * `,` `;` tab, CR or LF in it, where there is one ({@link unneutralised}). A `'` that was in the value
 * at such a place was doubled, so nothing else is ever dropped.
 *
 * Numbers payrun writes (amounts, row numbers, status codes) stay numbers: a finite number is written
 * as it is, never prefixed; none is a formula (`-5` would be read as minus five, though payrun writes
 * no negative number: amounts are whole positive đồng).
 */

export type CsvCell = string | number | null;

/**
 * A cell-start place (start, or after a separator or line break) whose piece a spreadsheet could run.
 * The separator is looked behind, not matched: in `\r=1` two such places are side by side.
 */
const DANGEROUS_PIECE = /(?<=^|[,;\t\r\n])(?=['\t\r]|(?:[^\S\t\r\n]|")*[=+\-@＝＋－＠])/g;
/** The `'` that DANGEROUS_PIECE put in. */
const ADDED_QUOTE = /(?<=^|[,;\t\r\n])'/g;
/** What makes a `,` or `;` reader (or a tab one) split inside the cell unless it is quoted. */
const NEEDS_QUOTES = /[,;"\t\r\n]/;

/** The text with a `'` in front of every piece a spreadsheet could read as a formula. */
export function spreadsheetSafe(value: string): string {
  return value.replace(DANGEROUS_PIECE, "'");
}

/** The value a {@link spreadsheetSafe} cell was made from (what a program reading an export does). */
export function unneutralised(cell: string): string {
  return cell.replace(ADDED_QUOTE, '');
}

function cellText(value: CsvCell): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const text = spreadsheetSafe(value === null ? '' : String(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A `,`-separated file with CRLF line ends, the header first. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<CsvCell>>): string {
  return [header, ...rows].map((row) => row.map(cellText).join(',')).join('\r\n') + '\r\n';
}
