/**
 * Period reports and evidence packs over HTTP, with real payout and disbursement workflows on the
 * time-skipping server and the sandbox gateway. A database of the file's own: "every movement of today"
 * must be this file's movements only, so the report's totals can be held against the sandbox's ledger.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import type { Movement } from '../../contracts/reports';
import { callApi } from '../support/api';
import { TEST_APPROVAL_POLICY } from '../support/approvals';
import { freshId } from '../support/ids';
import { PAYOUT_HEADER } from '../support/payout-stack';
import { testMerchant } from '../support/settings';
import { spreadsheetRows } from '../support/spreadsheet-csv';
import { useScratchStack } from '../support/stack';
import { eventually } from '../support/wait';

type Keys = 'maker' | 'approver' | 'viewer';

const t = useScratchStack<Keys>('reports', {
  taskQueue: `reports-${freshId('', 8)}`,
  keys: {
    maker: { name: 'maker', roles: ['payouts-maker'] },
    approver: { name: 'approver', roles: ['payouts-approver'] },
    viewer: { name: 'auditor', roles: ['viewer'] },
  },
  sandbox: { timing: { batchValidationMs: 20, batchPaymentMs: 20 }, balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: TEST_APPROVAL_POLICY } },
});

const get = (key: string, url: string) => callApi(t.stack.api, key, 'GET', url);
const raw = (key: string, url: string) =>
  fetch(`${t.stack.api.baseUrl}${url}`, { headers: { authorization: `Bearer ${key}` } });

const run = (...args: string[]) => promisify(execFile)('node', args);

/** One run of three rows (paid; refused at payment, 1008; ineligible, 4001) and two disbursements. */
async function makeMovements() {
  const prefix = freshId('rep');
  const file =
    [
      PAYOUT_HEADER,
      `${prefix}-1,0912345678,Nguyen Van An,,150000,salary,`,
      `${prefix}-2,0912341008,Tran Thi Binh,,250000,salary,`,
      `${prefix}-3,0912344001,Le Van Cuong,,350000,salary,`,
    ].join('\n') + '\n';
  const uploaded = await fetch(`${t.stack.api.baseUrl}/v1/payout-runs?fileName=november.csv`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${t.stack.maker}`,
      'content-type': 'text/csv',
      'idempotency-key': prefix,
    },
    body: file,
  });
  expect(uploaded.status).toBe(201);
  const runId = ((await uploaded.json()) as { runId: string }).runId;
  expect(
    (await callApi(t.stack.api, t.stack.approver, 'POST', `/v1/payout-runs/${runId}/approve`, {})).status,
  ).toBe(200);
  const disbursements = [`${prefix}-d1`, `${prefix}-d2`];
  for (const [index, disbursementId] of disbursements.entries()) {
    const created = await callApi(t.stack.api, t.stack.maker, 'POST', '/v1/disbursements', {
      disbursementId,
      amount: 600_000 + index,
      description: 'refund of deposit',
      wallet: {
        walletId: index ? '0987651008' : '0987654321',
        walletName: 'Pham Thi Dung',
        personalId: null,
      },
    });
    expect(created.status).toBe(201);
  }
  await eventually(async () => {
    const view = await get(t.stack.viewer, `/v1/payout-runs/${runId}`);
    expect(['reconciled', 'needs_attention']).toContain(view.body.status);
    for (const id of disbursements)
      expect(['succeeded', 'failed']).toContain(
        (await get(t.stack.viewer, `/v1/disbursements/${id}`)).body.status,
      );
  });
  return { runId, file };
}

let made: Promise<{ runId: string; file: string }> | undefined;
const movementsMade = () => (made ??= makeMovements());

describe('the period report', () => {
  it("holds today's movements of every kind, and its totals equal the gateway ledger's", async () => {
    await movementsMade();
    const answer = await get(t.stack.viewer, '/v1/reports/movements?period=day');
    expect(answer.status).toBe(200);
    const movements = answer.body.movements as Movement[];
    expect(movements.map((m) => m.kind).sort()).toEqual([
      'disbursement',
      'disbursement',
      'payout_item',
      'payout_item',
      'payout_item',
    ]);

    // What the gateway moved, entry by entry: the same orders, amounts and outcomes as the report's.
    const ledger = t.stack.sandbox.admin
      .ledger()
      .filter((entry) => entry.kind === 'disbursement' || entry.kind === 'batch-item');
    const sent = movements.filter((m) => m.status !== 'INELIGIBLE');
    const key = (orderId: string, itemId: string | null | undefined, amount: number, outcome: string) =>
      `${orderId}/${itemId ?? ''}/${amount}/${outcome}`;
    expect(sent.map((m) => key(m.orderId, m.itemId, m.amount, m.outcome)).sort()).toEqual(
      ledger.map((e) => key(e.orderId, e.itemId, e.amount, e.outcome)).sort(),
    );
    const ledgerOut = ledger.filter((e) => e.outcome === 'succeeded');
    expect(answer.body.totals.out).toEqual({
      count: ledgerOut.length,
      amount: ledgerOut.reduce((sum, e) => sum + e.amount, 0),
    });
    expect(answer.body.totals.out).toEqual({ count: 2, amount: 150_000 + 600_000 });
    // Failed: the two the gateway refused, and the ineligible row it never paid.
    expect(answer.body.totals.failed).toEqual({ count: 3, amount: 250_000 + 350_000 + 600_001 });
    expect(answer.body.totals.byKind.payout_item.succeeded).toEqual({ count: 1, amount: 150_000 });

    // The batch's totals by payrun's records agree with what batch/query answered.
    expect(answer.body.reconciliation.batches).toHaveLength(1);
    expect(answer.body.reconciliation.batches[0].agrees).toBe(true);
    expect(answer.body.reconciliation.gatewayCalls).toBe(0);

    const refused = movements.find((m) => m.kind === 'disbursement' && m.outcome === 'failed')!;
    expect(refused).toMatchObject({ resultCode: 1008, requestId: `${refused.orderId}-pay` });
    expect(refused.reason).toMatch(/limit/i);
    // A viewer sees receivers masked, as in every list; the approver sees them whole.
    expect(movements.find((m) => m.kind === 'payout_item')!.counterparty).toMatch(/^\*{4}\d{4} [A-Z]\. /);
    const approverView = await get(t.stack.approver, '/v1/reports/movements?period=day');
    expect((approverView.body.movements as Movement[]).map((m) => m.counterparty)).toContain(
      '0912345678 Nguyen Van An',
    );
  });

  it('gives the same rows as CSV and as XLSX', async () => {
    await movementsMade();
    const json = (await get(t.stack.viewer, '/v1/reports/movements?period=week')).body
      .movements as Movement[];
    const csv = await raw(t.stack.viewer, '/v1/reports/movements.csv?period=week');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toMatch(
      /movements-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv/,
    );
    const [header, ...rows] = spreadsheetRows(await csv.text(), ',').filter((row) => row.join('') !== '');
    const column = (name: string) => header!.indexOf(name);
    const xlsx = await raw(t.stack.viewer, '/v1/reports/movements.xlsx?period=week');
    expect(xlsx.status).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as unknown as ExcelJS.Buffer);
    const sheet = workbook.getWorksheet('movements')!;
    const sheetRows: string[][] = [];
    sheet.eachRow((row, number) => {
      if (number > 1)
        sheetRows.push(
          [
            row.getCell(column('order_id') + 1),
            row.getCell(column('item_id') + 1),
            row.getCell(column('amount') + 1),
            row.getCell(column('outcome') + 1),
          ].map((cell) => String(cell.value ?? '')),
        );
    });
    const fromCsv = rows.map((row) =>
      ['order_id', 'item_id', 'amount', 'outcome'].map((name) => row[column(name)]!),
    );
    const fromJson = json.map((m) => [m.orderId, m.itemId ?? '', String(m.amount), m.outcome]);
    expect(fromCsv).toEqual(fromJson);
    expect(sheetRows).toEqual(fromJson);
    expect(fromJson.length).toBeGreaterThanOrEqual(5);
  });

  it('refuses bad parameters, naming the field, and changes nothing', async () => {
    const refusals: [string, number, string][] = [
      ['period=year', 400, 'query.period'],
      ['period=day&date=2026-02-30', 400, 'query.date'],
      ['period=day&from=2026-11-01', 422, 'query.from'],
      ['period=custom&from=2026-11-10&to=2026-11-01', 422, 'query.to'],
      ['period=custom&from=2024-01-01&to=2026-01-01', 422, 'query.to'],
      ['period=day&colour=red', 400, 'query.colour'],
    ];
    for (const [query, status, field] of refusals) {
      for (const suffix of ['', '.csv', '.xlsx']) {
        const answer = await get(t.stack.viewer, `/v1/reports/movements${suffix}?${query}`);
        expect([query, suffix, answer.status]).toEqual([query, suffix, status]);
        expect(answer.body.error.problems.map((p: { field: string }) => p.field)).toContain(field);
      }
    }
    const daily = await get(t.stack.viewer, '/v1/reports/daily?from=2026-11-02');
    expect(daily.status).toBe(400);
    expect(daily.body.error.problems[0].field).toBe('query.to');
  });

  it('gives the charts per-day figures and failure reasons', async () => {
    await movementsMade();
    const week = (await get(t.stack.viewer, '/v1/reports/movements?period=week')).body.period;
    const answer = await get(t.stack.viewer, `/v1/reports/daily?from=${week.from}&to=${week.to}`);
    expect(answer.status).toBe(200);
    expect(answer.body.days).toHaveLength(7);
    const total = (answer.body.days as { succeeded: number; failed: number }[]).reduce(
      (sum, day) => ({ succeeded: sum.succeeded + day.succeeded, failed: sum.failed + day.failed }),
      { succeeded: 0, failed: 0 },
    );
    expect(total).toEqual({ succeeded: 2, failed: 3 });
    expect(answer.body.failureReasons).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 1008, count: 2 }),
        expect.objectContaining({ code: 4001, count: 1 }),
      ]),
    );
  });
});

describe("a payout run's evidence pack", () => {
  async function unpacked(key: string, runId: string): Promise<string> {
    const answer = await raw(key, `/v1/payout-runs/${runId}/evidence.zip`);
    expect(answer.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await answer.arrayBuffer()));
    const dir = mkdtempSync(path.join(tmpdir(), 'evidence-'));
    for (const [name, entry] of Object.entries(zip.files)) {
      if (entry.dir) continue;
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), await entry.async('nodebuffer'));
    }
    return path.join(dir, `evidence-${runId}`);
  }

  const verify = (dir: string, ...extra: string[]) =>
    run(
      path.join(dir, 'verify.mjs'),
      '--dir',
      dir,
      '--access-key',
      testMerchant.accessKey,
      '--secret-key',
      testMerchant.secretKey,
      ...extra,
    ).then(
      (out) => ({ code: 0, out: out.stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    );

  /** Rewrites a file of the pack and its line in SHA256SUMS, as a forger who knows the format would. */
  function forge(dir: string, name: string, change: (text: string) => string) {
    const text = change(readFileSync(path.join(dir, name), 'utf8'));
    writeFileSync(path.join(dir, name), text);
    const sums = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').replace(
      new RegExp(`^[0-9a-f]{64}  ${name}$`, 'm'),
      `${createHash('sha256').update(text).digest('hex')}  ${name}`,
    );
    writeFileSync(path.join(dir, 'SHA256SUMS'), sums);
  }

  it("passes its own check on a fresh pack, with the file's hash and every notification's signature", async () => {
    const { runId, file } = await movementsMade();
    const dir = await unpacked(t.stack.approver, runId);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ runId, fileName: 'november.csv', rowCount: 3, totalAmount: 750_000 });
    expect(manifest.uploadedBy.name).toMatch(/^maker/);
    expect(manifest.approvals.map((a: { name: string }) => a.name)).toEqual([
      expect.stringMatching(/^approver/),
    ]);
    expect(manifest.workflowIds.run).toBeTruthy();
    const notifications = JSON.parse(readFileSync(path.join(dir, 'notifications.json'), 'utf8'));
    expect(notifications.length).toBeGreaterThanOrEqual(2);
    const items = JSON.parse(readFileSync(path.join(dir, 'items.json'), 'utf8'));
    expect(
      items.every(
        (item: { orderId: string; requestIds: string[] }) => item.orderId && item.requestIds.length,
      ),
    ).toBe(true);

    const copy = path.join(dir, '..', 'november.csv');
    writeFileSync(copy, file);
    const checked = await verify(dir, '--file', copy);
    expect(checked.out).not.toMatch(/^FAIL /m);
    expect(checked.code).toBe(0);
    expect(checked.out).toMatch(/is signed by the merchant's secret/);
  });

  it('fails its check when one byte of a notification or the file hash is changed', async () => {
    const { runId, file } = await movementsMade();
    const notificationForged = await unpacked(t.stack.approver, runId);
    // One byte of a signed value (the message's first letter), with SHA256SUMS made to match.
    forge(notificationForged, 'notifications.json', (text) =>
      text.replace(/("message": ")(.)/, (_, head, c: string) => head + (c === 'X' ? 'Y' : 'X')),
    );
    const byNotification = await verify(notificationForged);
    expect(byNotification.code).toBe(1);
    expect(byNotification.out).toMatch(/FAIL notification/);

    const hashForged = await unpacked(t.stack.approver, runId);
    const unsummed = path.join(hashForged, 'manifest.json');
    const original = readFileSync(unsummed, 'utf8');
    writeFileSync(
      unsummed,
      original.replace(/("fileSha256": ")(.)/, (_, head, c: string) => head + (c === '0' ? '1' : '0')),
    );
    const byHash = await verify(hashForged);
    expect(byHash.code).toBe(1);
    expect(byHash.out).toMatch(/FAIL manifest.json has the SHA-256/);
    // Even with SHA256SUMS rewritten, the auditor's copy of the file no longer matches the pack.
    forge(hashForged, 'manifest.json', (text) => text);
    const copy = path.join(hashForged, '..', 'november.csv');
    writeFileSync(copy, file);
    const byFile = await verify(hashForged, '--file', copy);
    expect(byFile.code).toBe(1);
    expect(byFile.out).toMatch(/FAIL .*november\.csv has fileSha256/);
  });

  it('is for approvers and auditors, and each download is in the audit log', async () => {
    const { runId } = await movementsMade();
    expect((await raw(t.stack.maker, `/v1/payout-runs/${runId}/evidence.zip`)).status).toBe(403);
    expect((await raw(t.stack.viewer, `/v1/payout-runs/${runId}/evidence.zip`)).status).toBe(200);
    expect((await raw(t.stack.viewer, '/v1/payout-runs/run-20260101-abcdef/evidence.zip')).status).toBe(404);
    const audit = await get(t.stack.viewer, `/v1/audit-log?action=payout_run.evidence&q=${runId}`);
    expect(audit.body.entries.length).toBeGreaterThanOrEqual(1);
  });
});
