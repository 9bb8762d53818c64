/**
 * A corpus of bad payout files through the real upload endpoint: each gets the right row-level or
 * file-level error, and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { createApp } from '../../api/app';
import { receiverLabel as disbursementLabel } from '../../api/payouts/disbursements';
import { receiverLabel as remittanceLabel } from '../../api/remittances/remittances';
import type { Db } from '../../db/shared/knex';
import { parseKeyId } from '../../db/shared/api-keys';
import { createLogger } from '../../platform/logger';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { formulaCells, spreadsheetRows } from '../support/spreadsheet-csv';
import { testApiSettings, testMerchant, testPayoutSettings } from '../support/settings';
import { testDataConverter } from '../support/temporal';

let db: Db;
let connection: Connection;
let api: RunningApi;
let maker: string;

const HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id';
const row = (
  id: string,
  overrides: Partial<Record<'wallet' | 'name' | 'pid' | 'amount' | 'desc', string>> = {},
) =>
  [
    id,
    overrides.wallet ?? '0912345678',
    overrides.name ?? 'Nguyen Van A',
    overrides.pid ?? '',
    overrides.amount ?? '150000',
    overrides.desc ?? 'Salary',
    '',
  ].join(',');
const file = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';

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

/** What this file's maker has created, so other test files writing meanwhile change nothing here. */
async function snapshot() {
  const mine = () => db('payout_runs').where({ uploaded_by_key: parseKeyId(maker) });
  const [runs, items] = await Promise.all([
    mine().count({ n: '*' }).first(),
    db('payout_items').whereIn('run_id', mine().select('run_id')).count({ n: '*' }).first(),
  ]);
  return { runs: runs?.n, items: items?.n };
}

async function upload(body: string | Buffer, path = '/v1/payout-runs') {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
    body,
  });
  return { status: response.status, body: await jsonOf(response) };
}

const rowCases: Array<[string, string, string, string]> = [
  ['payout id with a space', row('pay 1'), 'payout_id', 'pattern'],
  ['wallet without the leading 0', row('p-wallet', { wallet: '912345678' }), 'wallet_id', 'pattern'],
  ['wallet in +84 form', row('p-plus', { wallet: '+84912345678' }), 'wallet_id', 'pattern'],
  ['amount below 1000', row('p-low', { amount: '999' }), 'amount', 'min'],
  ['amount above 200,000,000', row('p-high', { amount: '200000001' }), 'amount', 'max'],
  ['amount with dots', row('p-dots', { amount: '1.000.000' }), 'amount', 'plain_digits'],
  ['amount with commas', row('p-commas', { amount: '"1,000,000"' }), 'amount', 'plain_digits'],
  ['amount in exponent form', row('p-exp', { amount: '1e6' }), 'amount', 'plain_digits'],
  ['amount with decimals', row('p-dec', { amount: '1000.50' }), 'amount', 'plain_digits'],
  ['negative amount', row('p-neg', { amount: '-5000' }), 'amount', 'plain_digits'],
  ['zero amount', row('p-zero', { amount: '0' }), 'amount', 'min'],
  ['missing name', row('p-name', { name: '' }), 'wallet_name', 'required'],
  ['personal id of 13 digits', row('p-pid', { pid: '1234567890123' }), 'personal_id', 'digits_max_12'],
  ['personal id with letters', row('p-pid2', { pid: '12AB' }), 'personal_id', 'digits_max_12'],
];

describe('payout file validation', () => {
  for (const [name, badRow, column, rule] of rowCases) {
    it(`refuses a ${name}, naming row, column and rule, and creates nothing`, async () => {
      const before = await snapshot();
      const { status, body } = await upload(file(row('ok-1'), badRow));
      expect(status).toBe(422);
      expect(body.error.code).toBe('invalid_payout_file');
      const problem = body.error.problems.find(
        (entry: { field: string }) => entry.field === `row 3.${column}`,
      );
      expect(problem, JSON.stringify(body.error.problems)).toBeDefined();
      expect(problem.rule).toContain(rule);
      expect(await snapshot()).toEqual(before);
    });
  }

  it('refuses a payout id repeated inside the file', async () => {
    const { status, body } = await upload(file(row('dup-1'), row('dup-1')));
    expect(status).toBe(422);
    expect(body.error.problems).toEqual([
      expect.objectContaining({ field: 'row 3.payout_id', rule: 'duplicate_in_file' }),
    ]);
  });

  it('refuses a payout id an earlier run paid or is paying', async () => {
    const runId = 'run-20261101-abcdef';
    await db('payout_runs').insert({
      run_id: runId,
      status: 'reconciled',
      file_name: 'old.csv',
      file_sha256: 'x',
      row_count: 1,
      total_amount: 150000,
      batch_count: 1,
      workflow_id: `payout-run/${runId}`,
      uploaded_by_key: 'k',
      uploaded_by: 'someone',
      expires_at: new Date(),
    });
    await db('payout_batches').insert({
      batch_id: `${runId}-b001`,
      run_id: runId,
      seq: 1,
      order_id: `${runId}-b001`,
      workflow_id: `payout-batch/${runId}-b001`,
      item_count: 1,
      total_amount: 150000,
      status: 'completed',
    });
    await db('payout_items').insert({
      run_id: runId,
      batch_id: `${runId}-b001`,
      payout_id: 'paid-before',
      row_number: 2,
      wallet_id: '0912345678',
      wallet_name: 'A',
      amount: 150000,
      state: 'SUCCEEDED',
    });
    const before = await snapshot();
    const { status, body } = await upload(file(row('paid-before'), row('fresh-1')));
    expect(status).toBe(422);
    expect(body.error.problems).toEqual([
      expect.objectContaining({ field: 'row 2.payout_id', rule: 'already_paid_or_in_flight' }),
    ]);
    expect(body.error.problems[0].message).toContain(runId);
    expect(await snapshot()).toEqual(before);
  });

  const fileCases: Array<[string, string | Buffer, string]> = [
    ['a header without rows', HEADER + '\n', 'no_rows'],
    [
      'a file that is not CSV',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
      'encoding',
    ],
    ['a file with broken quoting', `${HEADER}\n"p1,0912345678,A,,1000,x,\n`, 'not_csv'],
    [
      'a legacy Excel workbook (.xls)',
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]),
      'old_excel',
    ],
    ['a zip that is no workbook', Buffer.from('PK\u0003\u0004 not really a zip'), 'not_xlsx'],
    ['a missing amount column', 'payout_id,wallet_id,wallet_name\np1,0912345678,A\n', 'missing_column'],
    ['an unknown column', `${HEADER},iban\n${row('p1')},x\n`, 'unknown_column'],
    ['ragged rows', `${HEADER}\np1,0912345678\n`, 'not_csv'],
  ];
  for (const [name, content, rule] of fileCases) {
    it(`refuses ${name} as a whole, creating nothing`, async () => {
      const before = await snapshot();
      const { status, body } = await upload(content);
      expect(status).toBe(422);
      expect(body.error.problems[0]).toMatchObject({ field: 'file', rule });
      expect(await snapshot()).toEqual(before);
    });
  }

  it('refuses a request without a file (no body) with 400 naming the body, creating nothing', async () => {
    const before = await snapshot();
    for (const path of ['/v1/payout-runs', '/v1/payout-runs/dry-run']) {
      const { status, body } = await upload('', path);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({
        code: 'missing_body',
        problems: [{ field: 'body', rule: 'required' }],
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a file of 100,001 rows and accepts the row count at the limit in a dry run', async () => {
    const rows = Array.from(
      { length: 100_001 },
      (_, index) => `big-${index},0912345678,Receiver ${index},,1000,x,`,
    );
    const tooMany = await upload([HEADER, ...rows].join('\n'));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.problems[0]).toMatchObject({ field: 'file', rule: 'too_many_rows' });
    const atLimit = await upload([HEADER, ...rows.slice(0, 100_000)].join('\n'), '/v1/payout-runs/dry-run');
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toMatchObject({
      valid: true,
      rowCount: 100_000,
      totalAmount: 100_000_000,
      batchCount: 100,
    });
  }, 120_000);

  it('accepts UTF-8 with a BOM, CRLF line ends, quoted fields and any header case', async () => {
    const content =
      '\uFEFFPAYOUT_ID,Wallet_Id,wallet_name,Personal_ID,AMOUNT,Description,store_id\r\n' +
      'bom-1,0912345678,"Nguyễn Văn An",012345678901,1500000,"Lương tháng 11, kỳ 1",\r\n' +
      'bom-2,0987654321,"Trần ""Bé"" Thị",,250000,Thưởng,S01\r\n';
    const { status, body } = await upload(content, '/v1/payout-runs/dry-run');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      valid: true,
      rowCount: 2,
      totalAmount: 1_750_000,
      rowErrors: [],
      fileErrors: [],
    });
  });

  it('gives the error report as CSV for download', async () => {
    const response = await fetch(`${api.baseUrl}/v1/payout-runs/dry-run?format=csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
      body: file(row('c1', { amount: '"12,5"' }), row('c2', { wallet: '=cmd()' })),
    });
    expect(response.headers.get('content-type')).toContain('text/csv');
    const text = await response.text();
    expect(text.split('\r\n')[0]).toBe('row,column,rule,message');
    expect(text).toContain('2,amount,plain_digits');
    expect(text).toContain('3,wallet_id,');
  });

  it('the error report and results.csv run no formula in a `,` or a `;` locale (issue 33)', async () => {
    const report = await (
      await fetch(`${api.baseUrl}/v1/payout-runs/dry-run?format=csv`, {
        method: 'POST',
        headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
        body: file(row('f1', { amount: '12x;=2+2;' }), row('f2', { amount: '"semi;@SUM(1)"' })),
      })
    ).text();
    // Both rows are refused by amount, quoting what was sent; a `;` reader once got the cell `=2+2`.
    expect(spreadsheetRows(report, ',')).toHaveLength(3);
    expect(formulaCells(report)).toEqual([]);

    const id = `formula-${Date.now()}`;
    const created = await upload(file(row(id, { name: '"semi;@SUM(1)"', desc: '"x;=HYPERLINK(A1;B1);"' })));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const results = await (
      await fetch(`${api.baseUrl}/v1/payout-runs/${created.body.runId as string}/results.csv`, {
        headers: { authorization: `Bearer ${maker}` },
      })
    ).text();
    expect(results).toContain('x;');
    expect(formulaCells(results)).toEqual([]);
  });
});

describe('masking by role, the same in every list', () => {
  it('shows wallet ids and names in full to the payout duties, masked to a viewer, in the items list and the CSV', async () => {
    const id = `mask-${Date.now()}`;
    const created = await upload(file(row(id, { wallet: '0912345678', name: 'Nguyen Van An' })));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.runId as string;
    const viewer = await newKey(db, ['viewer']);
    const approver = await newKey(db, ['payouts-approver']);
    const items = async (key: string) =>
      jsonOf(
        await fetch(`${api.baseUrl}/v1/payout-runs/${runId}/items`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      );
    const csv = async (key: string) =>
      (
        await fetch(`${api.baseUrl}/v1/payout-runs/${runId}/results.csv`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).text();

    expect((await items(viewer)).items[0]).toMatchObject({ walletId: '****5678', walletName: 'N. V. A.' });
    for (const key of [maker, approver])
      expect((await items(key)).items[0]).toMatchObject({
        walletId: '0912345678',
        walletName: 'Nguyen Van An',
      });
    const viewerCsv = await csv(viewer);
    expect(viewerCsv).toContain('****5678');
    expect(viewerCsv).not.toContain('0912345678');
    expect(viewerCsv).not.toContain('Nguyen');
    expect(await csv(approver)).toContain('0912345678');
  });

  it('single disbursements and remittances label receivers with the same mask', () => {
    expect(disbursementLabel({ kind: 'wallet', walletId: '0912345678', walletName: 'An' } as never)).toBe(
      'wallet ****5678',
    );
    expect(remittanceLabel('remitToWallet', { walletId: '0912345678' } as never)).toBe('wallet ****5678');
  });
});
