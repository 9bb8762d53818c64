/**
 * No cell of any CSV payrun writes can be read as a formula, whichever separator the spreadsheet's locale
 * splits on. Hostile values go through every exporter (results, the payout file's error report, the
 * template, the audit log) and the files are split the way a spreadsheet splits them: by `,` (English
 * locales), by `;` (Excel in Vietnamese and most European locales) and by tab (a LibreOffice choice),
 * honouring quotes only where a cell starts, as Excel and LibreOffice do. The neutralisation is
 * reversible: what a `,` reader gets back, with the added `'` dropped, is the value written.
 */
import { describe, expect, it } from 'vitest';
import { auditLogCsv } from '../../api/audit/routes';
import { toCsv, unneutralised } from '../../api/http/csv';
import { errorReportCsv } from '../../api/payouts/payout-csv';
import { parsePayoutFile } from '../../api/payouts/payout-file';
import { resultsCsvOf } from '../../api/payouts/payout-runs';
import { templateCsv } from '../../api/payouts/payout-template';
import type { AuditRow } from '../../db/shared/audit-log';
import type { PayoutItemRow } from '../../db/payouts/runs';
import { formulaCells, spreadsheetRows } from '../support/spreadsheet-csv';

const HOSTILE = [
  'x;=HYPERLINK(A1;B1);',
  'semi;@SUM(1)',
  '12x;=2+2;',
  '=1+1',
  '+1',
  '-1+2',
  '@SUM(1)',
  "=cmd|' /C calc'!A0",
  ' =1',
  '\t=1',
  '\r=1',
  'a\n=1',
  'a\r\n=1',
  'a\r=1',
  'x,=1',
  'x;"=1',
  '"=1',
  '"""=1',
  ';"=1',
  'x";=1;"',
  'x;',
  "'=1",
  "''",
  "'",
  '＝1+1',
  '＋1',
  '－1',
  '＠SUM(1)',
  '\u3000=1',
  '\u00a0=1',
  'a\t=1',
  'a\t\t=1',
  ';,;',
  '',
  'Nguyễn Văn An',
];

function item(index: number, value: string): PayoutItemRow {
  return {
    run_id: 'run',
    batch_id: 'batch',
    payout_id: value,
    row_number: index + 2,
    wallet_id: value,
    wallet_name: value,
    personal_id: null,
    amount: '1500000',
    description: value,
    store_id: value,
    state: 'FAILED',
    result_code: 99,
    message: value,
    trans_id: value,
    updated_at: new Date(0),
  };
}

function auditRow(index: number, value: string): AuditRow {
  return {
    id: String(index),
    at: new Date(0),
    actor_key_id: value,
    actor_name: value,
    action: value,
    target_type: value,
    target_id: value,
    outcome: value,
    status_code: 400,
    error_code: value,
    request_id: value,
    method: value,
    path: value,
    details: { note: value, [value]: value },
  };
}

/** A payout file whose every cell is hostile: each becomes an error message quoting it. */
function hostileFile(separator: string): string {
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;
  const lines = ['payout_id,wallet_id,wallet_name,amount,description'.replaceAll(',', separator)];
  HOSTILE.forEach((value, index) =>
    lines.push([`p${index}`, '0912345678', 'An', quote(value), quote(value)].join(separator)),
  );
  return lines.join('\r\n') + '\r\n';
}

describe('CSV exports are safe whichever separator a spreadsheet splits on', () => {
  it('the reader splits like a spreadsheet: quotes only at a cell start, a `;` reader splits a `,` file', () => {
    expect(spreadsheetRows('a,"b;c",d\r\n', ',')).toEqual([['a', 'b;c', 'd']]);
    expect(spreadsheetRows('a,"x;=1"\r\n', ';')).toEqual([['a,"x', '=1"']]);
    expect(spreadsheetRows('"a""b"x;y\n', ';')).toEqual([['a"bx', 'y']]);
  });

  it('results.csv: every cell, masked or in full', () => {
    const items = HOSTILE.map((value, index) => item(index, value));
    for (const full of [true, false]) expect(formulaCells(resultsCsvOf(items, full))).toEqual([]);
  });

  it('the dry run error report, from files separated by `,` and by `;`', async () => {
    for (const separator of [',', ';']) {
      const report = await parsePayoutFile(hostileFile(separator), { maxRows: 1000 });
      expect(report.rowErrors.length).toBeGreaterThan(HOSTILE.length / 2);
      expect(formulaCells(errorReportCsv(report))).toEqual([]);
    }
  });

  it('the audit log export, details included', () => {
    expect(formulaCells(auditLogCsv(HOSTILE.map((value, index) => auditRow(index, value))))).toEqual([]);
  });

  it('the template', () => {
    expect(formulaCells(templateCsv())).toEqual([]);
  });

  it('random text of separators, quotes, signs and spaces: never a formula, always read back', () => {
    const alphabet = [
      '=',
      '+',
      '-',
      '@',
      '＝',
      ';',
      ',',
      '"',
      "'",
      '\t',
      '\r',
      '\n',
      ' ',
      '\u3000',
      'a',
      '1',
    ];
    let seed = 33;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const values = Array.from({ length: 3000 }, () =>
      Array.from(
        { length: Math.floor(random() * 8) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join(''),
    );
    const rows = values.map((value, index) => [value, index, values[(index + 1) % values.length]!]);
    const csv = toCsv(['a', 'b', 'c'], rows);
    expect(formulaCells(csv)).toEqual([]);
    const read = spreadsheetRows(csv, ',').slice(1);
    expect(read.map((row) => row.map(unneutralised))).toEqual(rows.map((row) => row.map(String)));
  });

  it('numbers payrun writes stay numbers; text is prefixed with a quote, reversibly', () => {
    expect(toCsv(['n'], [[1_500_000], [-5], [0]])).toBe('n\r\n1500000\r\n-5\r\n0\r\n');
    expect(toCsv(['t'], [['-5'], ['x;=1']])).toBe('t\r\n\'-5\r\n"x;\'=1"\r\n');
    for (const value of HOSTILE) {
      const [, [cell]] = spreadsheetRows(toCsv(['t'], [[value]]), ',') as [string[], string[]];
      expect(unneutralised(cell!)).toBe(value);
    }
  });
});
