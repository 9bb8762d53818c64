/**
 * The payee directory over HTTP, with real workflows on the time-skipping server and the sandbox gateway:
 * a wallet's registered name is compared (accents and case forgiven, another name flagged), a change holds
 * only once a second person approves it, a payout file pays a payee by `payee_id`, an unknown one is a row
 * error, and the run tells its approver which receivers are new and which payees changed lately
 * (PAYEE_CHANGED_WINDOW_DAYS, 30 by default). A database of the file's own: the flags read every payee.
 */
import { describe, expect, it } from 'vitest';
import { payeeCheckWorkflowId } from '../../contracts/payees';
import { callApi } from '../support/api';
import { captureHistory } from '../support/history-capture';
import { freshId } from '../support/ids';
import { waitForRunStatus } from '../support/payout-stack';
import { testPayoutSettings } from '../support/settings';
import { useScratchStack } from '../support/stack';

type Keys = 'maker' | 'makerTwin' | 'approver' | 'viewer';

const taskQueue = `payees-${freshId('', 8)}`;
const t = useScratchStack<Keys>('payees', {
  taskQueue,
  keys: {
    maker: { name: 'mai maker', roles: ['payouts-maker'] },
    // The same person under another key and another spelling of the name.
    makerTwin: { name: 'Mai  MAKER', roles: ['payouts-maker'] },
    approver: { name: 'an approver', roles: ['payouts-approver'] },
    viewer: { name: 'viewer', roles: ['viewer'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 }, timing: { batchValidationMs: 20, batchPaymentMs: 20 } },
  app: { payouts: { ...testPayoutSettings(taskQueue), payeeChangedWindowDays: 30 } },
  workerTuning: { maxCachedWorkflows: 0 },
});

const post = (key: string, path: string, body: unknown = {}) => callApi(t.stack.api, key, 'POST', path, body);
const get = (key: string, path: string) => callApi(t.stack.api, key, 'GET', path);

/** A wallet number of its own for each payee, ending in `lastFour` (the sandbox's scenario digits). */
let wallets = 0;
const walletEnding = (lastFour = '5555') =>
  `09${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}${String(++wallets).padStart(2, '0')}${lastFour}`;

async function savePayee(name: string, walletId: string) {
  const saved = await post(t.stack.maker, '/v1/payees', { name, wallet: { walletId } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return saved.body as { payeeId: string; nameCheck: string; registeredName: string | null };
}

async function upload(csv: string, path = '/v1/payout-runs?fileName=payees.csv') {
  const response = await fetch(`${t.stack.api.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.stack.maker}`, 'content-type': 'text/csv' },
    body: csv,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as the API documents them
  return { status: response.status, body: (await response.json()) as any };
}

describe('saving a payee checks its wallet and compares the name', () => {
  it('flags a name the wallet is not registered under, and forgives accents and case', async () => {
    const walletId = walletEnding();
    t.stack.sandbox.admin.registerWalletHolder(walletId, 'NGUYEN VAN AN');

    const accented = await savePayee('Nguyễn Văn An', walletId);
    expect(accented).toMatchObject({ nameCheck: 'match', registeredName: 'N. V. A.' });
    await captureHistory(
      t.env.client,
      payeeCheckWorkflowId(`${accented.payeeId}-v1`),
      'match-in-plain-capitals',
    );

    const other = await savePayee('Trần Thị Bình', walletId);
    expect(other).toMatchObject({
      nameCheck: 'mismatch',
      registeredName: null,
      check: { resultCode: 4003 },
    });

    const bank = await post(t.stack.maker, '/v1/payees', {
      name: 'Le Van C',
      bank: { bankCode: '970436', bankAccountNo: '0123456789' },
    });
    expect(bank.status).toBe(201);
    expect(bank.body).toMatchObject({ kind: 'bank', nameCheck: 'unchecked' });

    const both = await post(t.stack.maker, '/v1/payees', {
      name: 'X',
      wallet: { walletId },
      bank: { bankCode: '970436', bankAccountNo: '0123456789' },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.problems[0].field).toBe('body.wallet');

    // A viewer reads the directory masked.
    const seen = await get(t.stack.viewer, `/v1/payees/${accented.payeeId}`);
    expect(seen.body).toMatchObject({ name: 'N. V. A.', wallet: { walletId: `****${walletId.slice(-4)}` } });
  });
});

describe('a payee changes only with a second person', () => {
  it('refuses the proposer, under any key, and applies the change when another person approves', async () => {
    const payee = await savePayee('Pham Van D', walletEnding());
    const newWallet = walletEnding();
    const proposed = await post(t.stack.maker, `/v1/payees/${payee.payeeId}/changes`, {
      name: 'Pham Van D',
      wallet: { walletId: newWallet },
    });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);
    expect(proposed.body).toMatchObject({ status: 'proposed', nameCheck: 'match', baseVersion: 1 });
    const changeId = proposed.body.changeId as string;

    const second = await post(t.stack.makerTwin, `/v1/payees/${payee.payeeId}/changes`, {
      name: 'Someone Else',
      wallet: { walletId: newWallet },
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('payee_change_open');

    for (const key of [t.stack.maker, t.stack.makerTwin]) {
      const self = await post(key, `/v1/payees/${payee.payeeId}/changes/${changeId}/approve`);
      expect(self.status).toBe(403);
      expect(self.body.error.code).toBe('self_approval');
    }
    const unchanged = await get(t.stack.maker, `/v1/payees/${payee.payeeId}`);
    expect(unchanged.body).toMatchObject({
      version: 1,
      wallet: { walletId: expect.not.stringMatching(newWallet) },
    });

    const approved = await post(t.stack.approver, `/v1/payees/${payee.payeeId}/changes/${changeId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ version: 2, wallet: { walletId: newWallet } });
    expect(approved.body.versions.map((version: { version: number }) => version.version)).toEqual([2, 1]);
    expect(approved.body.versions[0]).toMatchObject({ proposedBy: expect.stringMatching(/^mai maker/) });
    expect(approved.body.changes[0]).toMatchObject({ status: 'approved' });

    const again = await post(t.stack.approver, `/v1/payees/${payee.payeeId}/changes/${changeId}/approve`);
    expect(again.body.error.code).toBe('payee_change_not_proposed');
  });
});

describe('payout files name payees by payee_id', () => {
  it('pays each payee’s wallet, in the name its wallet accepted, and flags new and changed receivers', async () => {
    const accentedWallet = walletEnding();
    t.stack.sandbox.admin.registerWalletHolder(accentedWallet, 'VO THI E');
    const known = await savePayee('Võ Thị E', accentedWallet);
    // A payee whose wallet the sandbox refuses to pay (receiving limit, 1008): the gateway's answer for
    // that row proves the batch carried the payee's wallet.
    const limited = await savePayee('Dang Van F', walletEnding('1008'));
    const changed = await savePayee('Bui Van G', walletEnding());
    const proposal = await post(t.stack.maker, `/v1/payees/${changed.payeeId}/changes`, {
      name: 'Bui Van G',
      wallet: { walletId: walletEnding() },
      reference: 'new bank of record',
    });
    await post(t.stack.approver, `/v1/payees/${changed.payeeId}/changes/${proposal.body.changeId}/approve`);
    const stranger = walletEnding();

    const prefix = freshId('pe-');
    const csv = [
      'payout_id,payee_id,wallet_id,wallet_name,amount',
      `${prefix}-1,${known.payeeId},,,50000`,
      `${prefix}-2,${limited.payeeId},,,60000`,
      `${prefix}-3,${changed.payeeId},,,70000`,
      `${prefix}-4,,${stranger},Someone New,80000`,
    ].join('\n');
    const uploaded = await upload(csv);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const runId = uploaded.body.runId as string;
    expect(uploaded.body.payees).toMatchObject({ known: 2, new: 1, changed: 1, changedWindowDays: 30 });

    const items = await get(t.stack.approver, `/v1/payout-runs/${runId}/items`);
    expect(items.body.items.map((item: { payeeStatus: string }) => item.payeeStatus)).toEqual([
      'known',
      'known',
      'changed',
      'new',
    ]);
    expect(items.body.items[0]).toMatchObject({ walletId: accentedWallet, walletName: 'VO THI E' });

    const approved = await post(t.stack.approver, `/v1/payout-runs/${runId}/approve`);
    expect(approved.status).toBe(200);
    await waitForRunStatus(t.db, runId, ['reconciled', 'needs_attention']);
    const paid = await get(t.stack.approver, `/v1/payout-runs/${runId}/items`);
    expect(
      paid.body.items.map((item: { state: string; resultCode: number | null }) => [
        item.state,
        item.resultCode,
      ]),
    ).toEqual([
      ['SUCCEEDED', 0],
      ['FAILED', 1008],
      ['SUCCEEDED', 0],
      ['SUCCEEDED', 0],
    ]);
  });

  it('tells the approver which rows pay a payee whose wallet is registered under another name', async () => {
    const mismatchedWallet = walletEnding();
    t.stack.sandbox.admin.registerWalletHolder(mismatchedWallet, 'NGUYEN VAN AN');
    const mismatched = await savePayee('Tran Thi Binh', mismatchedWallet);
    expect(mismatched.nameCheck).toBe('mismatch');
    const matchedWallet = walletEnding();
    t.stack.sandbox.admin.registerWalletHolder(matchedWallet, 'LY VAN K');
    const matched = await savePayee('Ly Van K', matchedWallet);

    const prefix = freshId('pm-');
    const csv = [
      'payout_id,payee_id,wallet_id,wallet_name,amount',
      `${prefix}-1,${mismatched.payeeId},,,50000`,
      `${prefix}-2,${matched.payeeId},,,60000`,
      `${prefix}-3,,${walletEnding()},Someone Else,70000`,
      // The matched payee's wallet under another name: the payee's check says nothing of this row's name.
      `${prefix}-4,,${matchedWallet},Ly Van Khac,80000`,
    ].join('\n');
    const uploaded = await upload(csv);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const runId = uploaded.body.runId as string;

    const run = await get(t.stack.approver, `/v1/payout-runs/${runId}`);
    expect(run.body.payees).toMatchObject({ known: 3, new: 1, mismatched: 1 });
    const items = await get(t.stack.viewer, `/v1/payout-runs/${runId}/items`);
    expect(
      items.body.items.map((item: { payeeId: string | null; payeeNameCheck: string | null }) => [
        item.payeeId,
        item.payeeNameCheck,
      ]),
    ).toEqual([
      [mismatched.payeeId, 'mismatch'],
      [matched.payeeId, 'match'],
      [null, null],
      [matched.payeeId, 'unchecked'],
    ]);
  });

  it('refuses a file naming an unknown payee, or another receiver than its payee, naming row and column', async () => {
    const payee = await savePayee('Ho Van H', walletEnding());
    const prefix = freshId('pu-');
    const csv = [
      'payout_id,payee_id,wallet_id,wallet_name,amount',
      `${prefix}-1,pe_0000000000000000,,,50000`,
      `${prefix}-2,${payee.payeeId},${walletEnding()},,50000`,
      `${prefix}-3,${payee.payeeId},,Ho Van H,50000`,
    ].join('\n');
    for (const path of ['/v1/payout-runs/dry-run', '/v1/payout-runs?fileName=bad.csv']) {
      const answer = await upload(csv, path);
      const errors = path.includes('dry-run')
        ? answer.body.rowErrors.map((error: { row: number; column: string; rule: string }) => [
            `row ${error.row}.${error.column}`,
            error.rule,
          ])
        : answer.body.error.problems.map((problem: { field: string; rule: string }) => [
            problem.field,
            problem.rule,
          ]);
      expect(errors, JSON.stringify(answer.body)).toEqual([
        ['row 2.payee_id', 'unknown_payee'],
        ['row 3.wallet_id', 'payee_mismatch'],
      ]);
    }
    const runs = await t.db('payout_items').where('payout_id', 'like', `${prefix}%`);
    expect(runs).toEqual([]);
  });
});
