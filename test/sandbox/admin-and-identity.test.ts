import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSandboxIdentity } from '../../sandbox';
import { ids, startTestGateway, wallet, type TestGateway } from './support';

let gw: TestGateway;

beforeAll(async () => {
  // Pending movements wait for settle-pending: settling on their own (200 ms in the fast timing) raced
  // the test's own steps on a loaded machine.
  gw = await startTestGateway({ timing: { pendingSettleMs: 600_000 } });
});
afterAll(async () => {
  await gw.close();
});

async function admin(method: string, route: string, body?: unknown) {
  const response = await fetch(`${gw.sandbox.url}/__sandbox${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('HTTP admin API', () => {
  it('describes the sandbox: every operation of the table is simulated', async () => {
    const { body } = await admin('GET', '/');
    expect(body).toMatchObject({
      simulated: expect.arrayContaining(['batch.pay', 'disbursement.pay', 'remittance.create']),
      notSimulated: [],
    });
  });

  it('balances, faults, ledger, settle-pending and reset', async () => {
    expect(await admin('PUT', '/balances/VND', { amount: 500_000 })).toEqual({
      status: 200,
      body: { currency: 'VND', amount: 500_000 },
    });
    expect((await admin('GET', '/balances')).body).toMatchObject({ VND: 500_000 });
    expect((await admin('PUT', '/faults', { operation: 'nope.op', latencyMs: 5 })).status).toBe(400);
    expect(
      (await admin('PUT', '/faults', [{ operation: 'disbursement.pay', latencyMs: 1, times: 2 }])).body,
    ).toEqual([{ operation: 'disbursement.pay', latencyMs: 1, times: 2, applied: 0, matched: 0 }]);
    expect((await admin('DELETE', '/faults')).body).toEqual([]);

    await gw.client.call('disbursement.pay', {
      ...ids('adm'),
      requestType: 'disburseToWallet',
      amount: 100_000,
      disbursementMethod: wallet('7000'),
    });
    expect((await admin('GET', '/ledger')).body).toEqual([expect.objectContaining({ outcome: 'pending' })]);
    expect((await admin('POST', '/settle-pending')).body).toEqual({ settled: 1 });
    expect((await admin('GET', '/ledger')).body).toEqual([expect.objectContaining({ outcome: 'succeeded' })]);
    expect((await admin('GET', '/ipn-log')).body).toEqual([expect.objectContaining({ outcome: 'skipped' })]);

    expect((await admin('POST', '/reset')).body).toEqual({ reset: true });
    expect((await admin('GET', '/ledger')).body).toEqual([]);
    expect((await admin('GET', '/balances/vnd')).body).toEqual({ currency: 'VND', amount: 10_000_000_000 });
    expect((await admin('GET', '/nothing-here')).status).toBe(404);
  });

  it('reset restores the seeded randomness: same requests, same transIds', async () => {
    const request = {
      ...ids('seed'),
      requestType: 'disburseToWallet' as const,
      amount: 10_000,
      disbursementMethod: wallet('1234'),
    };
    gw.sandbox.admin.reset();
    const first = await gw.client.call('disbursement.pay', request);
    gw.sandbox.admin.reset();
    const second = await gw.client.call('disbursement.pay', request);
    expect(second.body.transId).toBe(first.body.transId);
  });
});

describe('loadOrCreateSandboxIdentity', () => {
  it('creates sandbox.json (0600) once and loads the same identity afterwards', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-id-')), 'sandbox');
    try {
      const created = loadOrCreateSandboxIdentity(dir);
      expect(created.file).toBe(path.join(dir, 'sandbox.json'));
      expect(fs.statSync(created.file).mode & 0o777).toBe(0o600);
      expect(Buffer.byteLength(created.merchant.secretKey)).toBe(32);
      const loaded = loadOrCreateSandboxIdentity(dir);
      expect(loaded).toEqual(created);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
