/**
 * Payout files as finance teams have them, through the real dry-run and upload endpoints: CSV separated
 * by `;` (Excel on a Vietnamese-locale computer) or tabs, headers in other words and other languages,
 * `.xlsx` workbooks with typed cells and several sheets, one of 100,000 rows, and the templates.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import ExcelJS from 'exceljs';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testApiSettings, testMerchant, testPayoutSettings } from '../support/settings';
import { testDataConverter } from '../support/temporal';

let db: Db;
let connection: Connection;
let api: RunningApi;
let maker: string;
const suffix = Math.random().toString(16).slice(2, 8);

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  const temporal = new Client({ connection, dataConverter: testDataConverter });
  api = await listen(
    createApp({
      db,
      temporal,
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings('payrun-test', { payouts: { ...testPayoutSettings(), maxRows: 100_000 } }),
    }),
  );
  maker = await newKey(db, ['payouts-maker']);
});

afterAll(async () => {
  await api.close();
  await connection.close();
  await db.destroy();
});

async function post(body: string | Buffer, path: string) {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${maker}`, 'content-type': 'application/octet-stream' },
    body,
  });
  return { status: response.status, body: await jsonOf(response) };
}
const dryRun = (body: string | Buffer, query = '') => post(body, `/v1/payout-runs/dry-run${query}`);

async function workbook(build: (book: ExcelJS.Workbook) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  build(book);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('CSV files as spreadsheets write them', () => {
  it('reads a `;`-separated file with Vietnamese headers and says which separator it used', async () => {
    const content =
      '\uFEFFMã chi trả;Số ví;Họ và tên;CCCD;Số tiền;Nội dung\r\n' +
      `semi-${suffix}-1;0912345678;Nguyễn Văn An;012345678901;1500000;Lương tháng 11, kỳ 1\r\n` +
      `semi-${suffix}-2;0987654321;"Trần Thị; Bình";;250000;Thưởng\r\n`;
    const { status, body } = await dryRun(content);
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: true, rowCount: 2, totalAmount: 1_750_000 });
    expect(body.source).toMatchObject({ format: 'csv', separator: 'semicolon' });
    expect(body.source.columns).toEqual([
      { header: 'Mã chi trả', column: 'payout_id' },
      { header: 'Số ví', column: 'wallet_id' },
      { header: 'Họ và tên', column: 'wallet_name' },
      { header: 'CCCD', column: 'personal_id' },
      { header: 'Số tiền', column: 'amount' },
      { header: 'Nội dung', column: 'description' },
    ]);
  });

  it("honours Excel's `sep=;` first line and numbers rows as the file does", async () => {
    const content = `sep=;\npayout_id;wallet_id;wallet_name;amount\nsep-${suffix};0912345678;An;1.000.000\n`;
    const { body } = await dryRun(content);
    expect(body.source.separator).toBe('semicolon');
    // A text amount with grouping is still refused: a CSV cell has no type to tell 1.000 from 1,000.
    expect(body.rowErrors).toEqual([
      expect.objectContaining({ row: 3, column: 'amount', rule: 'plain_digits' }),
    ]);
  });

  it('reads a tab-separated file (Excel "Unicode Text", UTF-16) with English aliases', async () => {
    const text =
      'Payout ID\tWallet ID\tWallet name\tAmount (VND)\tNote\r\n' +
      `tab-${suffix}-1\t0912345678\tLê Văn Cường\t300000\tHoa hồng\r\n`;
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { status, body } = await dryRun(utf16);
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: true, rowCount: 1, totalAmount: 300_000 });
    expect(body.source.separator).toBe('tab');
  });

  it('matches headers whatever their case, accents, spaces, `_` and `-`, and aliases like walletId and so_vi', async () => {
    const headers = [
      ['payoutId', 'walletId', 'WALLET-NAME', 'amount'],
      ['payout id', 'so_vi', 'ten nguoi nhan', 'SO TIEN'],
      ['PAYOUT_ID', 'SỐ VÍ', 'Họ Tên', 'Thành tiền'],
    ];
    for (const [index, header] of headers.entries()) {
      const { body } = await dryRun(`${header.join(',')}\nalias-${suffix}-${index},0912345678,An,5000\n`);
      expect(body, header.join(',')).toMatchObject({ valid: true, totalAmount: 5000 });
    }
  });

  it('names every unknown column and what it expected, in one line each', async () => {
    const { status, body } = await post(
      `payout_id;wallet_id;wallet_name;amount;Ngân hàng;IBAN\nx-${suffix};0912345678;An;5000;VCB;1\n`,
      '/v1/payout-runs',
    );
    expect(status).toBe(422);
    const unknown = body.error.problems.filter(
      (problem: { rule: string }) => problem.rule === 'unknown_column',
    );
    expect(unknown.map((problem: { message: string }) => problem.message)).toEqual([
      expect.stringContaining('"Ngân hàng"'),
      expect.stringContaining('"IBAN"'),
    ]);
    for (const problem of body.error.problems) expect(problem.message).not.toContain('\n');
  });

  it('says in one line why a file cannot be read', async () => {
    const cases: Array<[string | Buffer, string, RegExp]> = [
      [Buffer.from('payout_id,wallet_id\nx,T\xe2m\n', 'latin1'), 'encoding', /line 2 .*CSV UTF-8/],
      [
        'payout_id,wallet_id,wallet_name,amount\nx,0912345678\n',
        'not_csv',
        /line 2 has 2 cells but the header has 4/,
      ],
      ['payout_id,wallet_id,wallet_name,amount\n"x,0912345678,An,5000\n', 'not_csv', /never closed/],
    ];
    for (const [content, rule, message] of cases) {
      const { status, body } = await dryRun(content);
      expect(status).toBe(200);
      expect(body.fileErrors).toEqual([{ rule, message: expect.stringMatching(message) }]);
      expect(body.fileErrors[0].message).not.toContain('\n');
    }
  });
});

describe('.xlsx workbooks', () => {
  it('takes number cells as numbers: an amount shown as 1.000.000 is 1000000; a formula gives its result', async () => {
    const file = await workbook((book) => {
      const sheet = book.addWorksheet('Chi trả');
      sheet.addRow(['payout_id', 'wallet_id', 'wallet_name', 'amount', 'description']);
      sheet.addRow([`x-${suffix}-1`, '0912345678', 'Nguyễn Văn An', 1_000_000, 'Lương']);
      sheet.addRow([
        `x-${suffix}-2`,
        '0987654321',
        { richText: [{ text: 'Trần ' }, { text: 'Bình' }] },
        { formula: 'D2/2', result: 500_000 },
        'Thưởng',
      ]);
      sheet.getColumn(4).numFmt = '#,##0';
    });
    const { status, body } = await dryRun(file);
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: true, rowCount: 2, totalAmount: 1_500_000, rowErrors: [] });
    expect(body.source).toMatchObject({ format: 'xlsx', sheet: 'Chi trả', sheets: ['Chi trả'] });
  });

  it('refuses a phone number cell that lost its leading 0, saying so, and a fractional amount', async () => {
    const file = await workbook((book) => {
      const sheet = book.addWorksheet('payouts');
      sheet.addRow(['payout_id', 'wallet_id', 'wallet_name', 'personal_id', 'amount']);
      sheet.addRow([`n-${suffix}-1`, 912_345_678, 'An', null, 100_000]);
      sheet.addRow([`n-${suffix}-2`, '0912345678', 'Bình', 12_345_678_901, 100_000]);
      sheet.addRow([`n-${suffix}-3`, '0912345678', 'Cường', 123_456_789_012, 100_000.5]);
      sheet.addRow([`n-${suffix}-4`, '0912345678', 'Dũng', 123_456_789_012, 100_000]);
    });
    const { body } = await dryRun(file);
    expect(body).toMatchObject({ valid: false, rowCount: 4, validRowCount: 1, totalAmount: 100_000 });
    expect(body.rowErrors).toEqual([
      {
        row: 2,
        column: 'wallet_id',
        rule: 'leading_zero_lost',
        message: expect.stringContaining(
          'dropped the leading 0 of the phone number. Format the column as Text and enter it as 0912345678',
        ),
      },
      expect.objectContaining({ row: 3, column: 'personal_id', rule: 'leading_zero_lost' }),
      expect.objectContaining({ row: 4, column: 'amount', rule: 'whole_vnd' }),
    ]);
  });

  it('reads the first visible sheet of several, or the one chosen, and names the others', async () => {
    const file = await workbook((book) => {
      book.addWorksheet('Hướng dẫn').addRow(['Điền bảng lương vào sheet sau']);
      const hidden = book.addWorksheet('Cũ', { state: 'hidden' });
      hidden.addRow(['whatever']);
      for (const [name, id, amount] of [
        ['Tháng 10', `m10-${suffix}`, 100_000],
        ['Tháng 11', `m11-${suffix}`, 200_000],
      ] as const) {
        const sheet = book.addWorksheet(name);
        sheet.addRow(['Payout ID', 'Số ví', 'Tên', 'Số tiền']);
        sheet.addRow([id, '0912345678', 'An', amount]);
      }
    });
    const first = await dryRun(file);
    expect(first.body.source).toMatchObject({
      sheet: 'Hướng dẫn',
      sheets: ['Hướng dẫn', 'Cũ', 'Tháng 10', 'Tháng 11'],
    });
    expect(first.body.fileErrors[0]).toEqual({
      rule: 'choose_sheet',
      message: expect.stringContaining('"Tháng 10", "Tháng 11"'),
    });
    const chosen = await dryRun(file, `?sheet=${encodeURIComponent('Tháng 11')}`);
    expect(chosen.body).toMatchObject({ valid: true, totalAmount: 200_000, source: { sheet: 'Tháng 11' } });
    const missing = await dryRun(file, '?sheet=Nope');
    expect(missing.body.fileErrors).toEqual([
      { rule: 'unknown_sheet', message: expect.stringContaining('"Tháng 10"') },
    ]);

    // The chosen sheet becomes the run.
    const run = await post(
      file,
      `/v1/payout-runs?fileName=luong.xlsx&sheet=${encodeURIComponent('Tháng 10')}`,
    );
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ fileName: 'luong.xlsx', rowCount: 1, totalAmount: 100_000 });
    const items = await db('payout_items').where({ run_id: run.body.runId }).select('payout_id', 'amount');
    expect(items).toEqual([{ payout_id: `m10-${suffix}`, amount: '100000' }]);
  });

  it('validates a workbook of 100,000 rows, streaming it (time and peak memory are printed)', async () => {
    const file = await bigWorkbook(100_000);
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed);
    }, 20);
    const started = performance.now();
    const { status, body } = await dryRun(file);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      valid: true,
      rowCount: 100_000,
      totalAmount: 100_000 * 1000,
      batchCount: 100,
    });
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    console.log(
      `xlsx 100,000 rows: file ${mb(file.length)} MB, dry run ${seconds.toFixed(1)} s, ` +
        `peak RSS +${mb(peakRss - before.rss)} MB (${mb(peakRss)} MB), peak heap +${mb(peakHeap - before.heapUsed)} MB`,
    );

    const tooMany = await dryRun(await bigWorkbook(100_001));
    expect(tooMany.body.fileErrors).toEqual([
      { rule: 'too_many_rows', message: expect.stringContaining('more than 100000 rows') },
    ]);
  }, 240_000);
});

/** A workbook written by ExcelJS's streaming writer, as Excel would save it (shared strings). */
async function bigWorkbook(rows: number): Promise<Buffer> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: true });
  const sheet = book.addWorksheet('payouts');
  sheet.addRow(['payout_id', 'wallet_id', 'wallet_name', 'amount', 'description']).commit();
  for (let index = 0; index < rows; index++) {
    sheet.addRow([`big-${suffix}-${index}`, '0912345678', `Người nhận ${index}`, 1000, 'Lương']).commit();
  }
  sheet.commit();
  await book.commit();
  return Buffer.concat(chunks);
}

describe('templates', () => {
  it('downloads the CSV and XLSX templates, each valid as it is', async () => {
    for (const [name, type] of [
      ['template.csv', 'text/csv'],
      ['template.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ] as const) {
      const response = await fetch(`${api.baseUrl}/v1/payout-runs/${name}`, {
        headers: { authorization: `Bearer ${maker}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      expect(response.headers.get('content-disposition')).toContain(`payout-${name}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      const { body } = await dryRun(bytes);
      expect(body, name).toMatchObject({ valid: true, rowCount: 1, totalAmount: 1_500_000 });
      expect(body.source.columns.map((entry: { column: string }) => entry.column)).toEqual([
        'payout_id',
        'wallet_id',
        'wallet_name',
        'personal_id',
        'amount',
        'description',
        'store_id',
      ]);
    }
  });
});
