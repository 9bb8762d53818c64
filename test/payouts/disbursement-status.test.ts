/**
 * The status write a disbursement's own activities make (advanceDisbursementStatus): forward only. An
 * activity attempt that runs again after an earlier attempt recorded the answer (the worker died before
 * reporting it) must neither take the record back nor record its event a second time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { advanceDisbursementStatus } from '../../db/payouts/disbursements';
import { statusesBefore, type DisbursementStatus } from '../../contracts/payouts';
import { connectTestDatabase, disbursementRecord, eventTypesOf, statementsSentBy } from '../support/database';

const db = connectTestDatabase();
afterAll(() => db.destroy());

async function queuedDisbursement(): Promise<string> {
  const id = `adv-${randomUUID()}`;
  await db('disbursements').insert(disbursementRecord(id));
  return id;
}

const advance = (disbursementId: string, status: DisbursementStatus, resultCode?: number) =>
  advanceDisbursementStatus(db, { disbursementId, status, resultCode }, statusesBefore(status));
const statusOf = async (id: string) =>
  (await db('disbursements').where({ disbursement_id: id }).first('status', 'result_code')) as {
    status: string;
    result_code: number | null;
  };
const eventsOf = (id: string) => eventTypesOf(db, id);

describe('advanceDisbursementStatus', () => {
  it('moves a record forward, step by step, with one event for the outcome', async () => {
    const id = await queuedDisbursement();
    expect(await advance(id, 'paying')).toBe(true);
    expect(await advance(id, 'succeeded', 0)).toBe(true);
    expect(await statusOf(id)).toEqual({ status: 'succeeded', result_code: 0 });
    expect(await eventsOf(id)).toEqual(['disbursement.succeeded']);
  });

  it('a pay attempt run again after the answer was recorded changes nothing and adds no event', async () => {
    const id = await queuedDisbursement();
    await advance(id, 'paying');
    await advance(id, 'succeeded', 0);
    // The second attempt: `paying` before the call, then the gateway's answer to a re-sent order.
    expect(await advance(id, 'paying')).toBe(false);
    expect(await advance(id, 'pending', 7000)).toBe(false);
    expect(await advance(id, 'succeeded', 0)).toBe(false);
    expect(await statusOf(id)).toEqual({ status: 'succeeded', result_code: 0 });
    expect(await eventsOf(id)).toEqual(['disbursement.succeeded']);
  });

  it('two attempts recording the same answer at once: one moves the record, one event', async () => {
    const id = await queuedDisbursement();
    await advance(id, 'paying');
    const moved = await Promise.all([advance(id, 'succeeded', 0), advance(id, 'succeeded', 0)]);
    expect(moved.filter(Boolean)).toHaveLength(1);
    expect(await eventsOf(id)).toEqual(['disbursement.succeeded']);
  });

  it('a step without an event is one statement: no transaction around it', async () => {
    const id = await queuedDisbursement();
    let moved: boolean | undefined;
    const sent = await statementsSentBy(db, async () => {
      moved = await advance(id, 'paying');
    });
    expect(moved).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^update "disbursements"/);
  });

  it('never skips the table: a failed record is not made succeeded', async () => {
    const id = await queuedDisbursement();
    await advance(id, 'paying');
    await advance(id, 'failed', 1507);
    expect(await advance(id, 'succeeded', 0)).toBe(false);
    expect(await statusOf(id)).toEqual({ status: 'failed', result_code: 1507 });
  });
});
