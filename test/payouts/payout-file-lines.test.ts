/**
 * The line a row error names is the line a person finds in the file: payrun counts the lines itself,
 * so these pin the cases a count goes wrong on (line ends of every kind, quoted cells over several
 * lines, skipped empty lines) and show that where the upload's chunks happen to split the text changes
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { CsvRecordSplitter } from '../../api/payouts/csv-records';
import { parsePayoutChunks, parsePayoutFile } from '../../api/payouts/payout-file';

const HEADER = 'payout_id,wallet_id,wallet_name,amount';
/** Amount 1 is below the gateway's minimum: every row is an error naming its line. */
const bad = (id: string) => `${id},0912345678,Name ${id},1`;

async function errorLines(content: string | Buffer): Promise<number[]> {
  const report = await parsePayoutFile(content, { maxRows: 100 });
  expect(report.fileErrors).toEqual([]);
  return report.rowErrors.map((error) => error.row);
}

describe('line numbers of row errors', () => {
  it('counts \\n, \\r\\n and \\r line ends, mixed in one file, one line each', async () => {
    expect(await errorLines(`${HEADER}\r\n${bad('a')}\r\n${bad('b')}\r\n`)).toEqual([2, 3]);
    expect(await errorLines(`${HEADER}\r${bad('a')}\r${bad('b')}`)).toEqual([2, 3]);
    expect(await errorLines(`${HEADER}\r\n${bad('a')}\n${bad('b')}\r${bad('c')}\r\n`)).toEqual([2, 3, 4]);
  });

  it('names a row whose quoted cell spans lines by the line it ends on, and counts its lines for the rows after', async () => {
    const lf = `${HEADER}\na,0912345678,"Name\nsecond line",1\n${bad('b')}\n`;
    expect(await errorLines(lf)).toEqual([3, 4]);
    // A \r\n inside the quotes is one line end, as it is between rows.
    const crlf = `${HEADER}\r\na,0912345678,"Name\r\nsecond\r\nthird",1\r\n${bad('b')}\r\n`;
    expect(await errorLines(crlf)).toEqual([4, 5]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf, 'utf16le')]);
    expect(await errorLines(utf16)).toEqual([4, 5]);
  });

  it('skips empty lines but counts them, before the header as after it', async () => {
    expect(await errorLines(`\n\n${HEADER}\n\n${bad('a')}\n\n\n${bad('b')}\n\n`)).toEqual([5, 8]);
    expect(await errorLines(`${HEADER}\r\n\r\n${bad('a')}\r\n\r\n\r\n${bad('b')}\r\n`)).toEqual([3, 6]);
  });

  it("counts Excel's sep= line and a BOM as the file has them", async () => {
    expect(await errorLines(`sep=,\n${HEADER}\n${bad('a')}\n`)).toEqual([3]);
    expect(await errorLines(`\uFEFF${HEADER}\n${bad('a')}\n`)).toEqual([2]);
  });

  it('says which line breaks the CSV', async () => {
    const problem = async (content: string) =>
      (await parsePayoutFile(content, { maxRows: 100 })).fileErrors.map((error) => error.message);
    expect(await problem(`${HEADER}\r\na,0912345678,"N\r\nx",1\r\nb,0912345678\r\n`)).toEqual([
      'The file is not valid CSV: line 4 has 2 cells but the header has 4 (separator: comma).',
    ]);
    expect(await problem(`${HEADER}\n${bad('a')}\n"b,0912345678,B,2\n`)).toEqual([
      'The file is not valid CSV: a quoted cell that starts near line 3 is never closed.',
    ]);
    expect(await problem(`${HEADER}\n${bad('a')}\nb,"0912345678"x,B,2\n`)).toEqual([
      'The file is not valid CSV: line 3 has a quote in the middle of a cell; quote the whole cell and double the inner quotes.',
    ]);
    expect(await problem(`${HEADER}\n${bad('a')}\nb,09123"45678,B,2\n`)).toEqual([
      'The file is not valid CSV: Invalid Opening Quote: a quote is found on field 1 at line 3, value is "09123"',
    ]);
    // A line of spaces, or an empty quoted cell, is a record, not an empty line.
    expect(await problem(`${HEADER}\n   \n`)).toEqual([
      'The file is not valid CSV: line 2 has 1 cells but the header has 4 (separator: comma).',
    ]);
    expect(await problem(`${HEADER}\n""\n`)).toEqual([
      'The file is not valid CSV: line 2 has 1 cells but the header has 4 (separator: comma).',
    ]);
  });

  it('numbers rows the same wherever the chunks split the file', async () => {
    const content = Buffer.from(
      `${HEADER}\r\n\r\na,0912345678,"Nguyễn ""An""\r\nline",1\r\n${bad('b')}\r${bad('c')}\n"d",0912345678,"",1`,
    );
    const whole = await parsePayoutFile(content, { maxRows: 100 });
    expect(whole.rowErrors.map((error) => [error.row, error.column])).toEqual([
      [4, 'amount'],
      [5, 'amount'],
      [6, 'amount'],
      [7, 'wallet_name'],
      [7, 'amount'],
    ]);
    for (let split = 1; split < content.length; split++) {
      const chunks = [content.subarray(0, split), content.subarray(split)];
      const report = await parsePayoutChunks(
        (async function* () {
          yield* chunks;
        })(),
        { maxRows: 100 },
      );
      expect(report.rowErrors, `split at ${split}`).toEqual(whole.rowErrors);
    }
  });
});

describe('CSV records', () => {
  it('gives the same cells and lines for text fed one character at a time', () => {
    const text = 'a,"b ""q"",\r\nc"\r\n\r\n,\rd,e\n"",f';
    const read = (chunks: string[]) => {
      const records: Array<[string[], number]> = [];
      const splitter = new CsvRecordSplitter(','.charCodeAt(0), (cells, line) => {
        records.push([cells, line]);
        return true;
      });
      for (const chunk of chunks) splitter.write(chunk);
      splitter.end();
      expect(splitter.failure).toBeUndefined();
      return records;
    };
    const expected: Array<[string[], number]> = [
      [['a', 'b "q",\r\nc'], 2],
      [['', ''], 4],
      [['d', 'e'], 5],
      [['', 'f'], 6],
    ];
    expect(read([text])).toEqual(expected);
    expect(read([...text])).toEqual(expected);
  });
});
