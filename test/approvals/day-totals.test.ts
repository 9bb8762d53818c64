/**
 * The daily caps read the day's running totals (approval_day_totals), not a sum over the day's requests:
 * a recorded request adds its amount for the merchant and its maker, a rejected or expired one takes it
 * back, an approved one keeps it, and the migration starts the totals from the requests already recorded.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  expireApproval,
  recordDecision,
  requestApproval,
  type CapBreach,
} from '../../db/approvals/approvals';
import * as dayTotals from '../../migrations/20261130_0037_approval_day_totals';
import { statementsSentBy, useScratchDatabase } from '../support/database';

const scratch = useScratchDatabase('day_totals');
const CAPS = { perMakerDailyVnd: 30_000_000, perMerchantDailyVnd: 50_000_000 };

async function request(maker: string, amount: number): Promise<{ approvalId: string; breach?: CapBreach }> {
  const approvalId = `disbursement:dt-${randomUUID().slice(0, 12)}`;
  const breach = await scratch.db.transaction((trx) =>
    requestApproval(
      trx,
      {
        approvalId,
        kind: 'disbursement',
        objectId: approvalId.slice('disbursement:'.length),
        amount,
        receiverLabel: 'wallet ••5678',
        description: 'payout',
        requiredApprovers: 1,
        roles: ['payouts-approver'],
        requestedBy: { keyId: `key-${maker}`, name: maker },
        expiresAt: new Date(Date.now() + 3_600_000),
      },
      CAPS,
    ),
  );
  return { approvalId, ...(breach && { breach }) };
}

/** Today's totals of disbursements, by scope and person. */
async function totals(): Promise<Record<string, number>> {
  const rows = (await scratch.db('approval_day_totals').where({ kind: 'disbursement' })) as Array<{
    scope: string;
    person: string;
    amount: string;
  }>;
  return Object.fromEntries(rows.map((row) => [`${row.scope}:${row.person}`, Number(row.amount)]));
}

const decide = (approvalId: string, decision: 'approve' | 'reject') =>
  recordDecision(scratch.db, {
    approvalId,
    decision,
    by: { keyId: 'key-approver', name: 'Approver' },
    status: decision === 'approve' ? 'approved' : 'rejected',
  });

describe("the day's approval totals", () => {
  it('count each request for the merchant and its maker; a rejected or expired one gives its amount back', async () => {
    const first = await request('Alice', 8_000_000);
    const second = await request('Alice', 5_000_000);
    const third = await request('Bob', 7_000_000);
    expect(await totals()).toMatchObject({
      'merchant:': 20_000_000,
      'maker:alice': 13_000_000,
      'maker:bob': 7_000_000,
    });

    await decide(first.approvalId, 'approve');
    await decide(second.approvalId, 'reject');
    await expireApproval(scratch.db, { approvalId: third.approvalId, reason: 'Nobody approved in time.' });
    // A decision on a request decided already changes nothing, and gives nothing back twice.
    await expireApproval(scratch.db, { approvalId: second.approvalId, reason: 'late' });
    expect(await totals()).toMatchObject({
      'merchant:': 8_000_000,
      'maker:alice': 8_000_000,
      'maker:bob': 0,
    });
  });

  it('refuse what the totals leave no room for, naming what was requested today', async () => {
    const fits = await request('Carol', 25_000_000);
    expect(fits.breach).toBeUndefined();
    const over = await request('Carol', 6_000_000);
    expect(over.breach).toEqual({
      cap: 'perMakerDailyVnd',
      limitVnd: 30_000_000,
      requestedTodayVnd: 25_000_000,
    });
    expect(await scratch.db('approvals').where({ approval_id: over.approvalId })).toEqual([]);
  });

  it('check a request by adding it: no lock and no read of the totals before', async () => {
    const sent = await statementsSentBy(scratch.db, () => request('Erin', 1_000_000));
    expect(sent.filter((sql) => /advisory|select .* from "approval_day_totals"/i.test(sql))).toEqual([]);
    expect(await totals()).toMatchObject({ 'maker:erin': 1_000_000 });
  });

  it('let no two requests at once both take the room only one of them fits in', async () => {
    const { 'merchant:': merchant = 0, 'maker:dana': dana = 0 } = await totals();
    const room = Math.min(CAPS.perMakerDailyVnd - dana, CAPS.perMerchantDailyVnd - merchant);
    const amount = 4_000_000;
    const answers = await Promise.all(Array.from({ length: 10 }, () => request('Dana', amount)));
    const fitted = answers.filter((answer) => !answer.breach);
    expect(fitted).toHaveLength(Math.floor(room / amount));
    expect(fitted.length).toBeLessThan(10);
    expect(await totals()).toMatchObject({
      'maker:dana': dana + fitted.length * amount,
      'merchant:': merchant + fitted.length * amount,
    });
    expect(await scratch.db('approvals').where({ requested_by_person: 'dana' })).toHaveLength(fitted.length);
  });

  it('start, in the migration, from the requests that still count', async () => {
    // A total given back to nothing stays as a row of 0; the migration writes no row for it.
    const counted = (all: Record<string, number>) =>
      Object.fromEntries(Object.entries(all).filter(([, amount]) => amount !== 0));
    const before = counted(await totals());
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['merchant:', 'maker:alice', 'maker:carol']));
    await dayTotals.down(scratch.db);
    await dayTotals.up(scratch.db);
    expect(await totals()).toEqual(before);
  });
});
