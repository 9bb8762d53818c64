/**
 * A remittance's record moves forward only (its transition table in contracts/remittances), and each of
 * its events is emitted once: a status write that arrives late (an activity attempt run again after a
 * later write) changes nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { insertRemittance, updateRemittance } from '../../db/remittances/remittances';
import { canMoveRemittance, remittanceOrderIds } from '../../contracts/remittances';
import { connectTestDatabase, eventTypesOf } from '../support/database';
import { freshId } from '../support/ids';

const db = connectTestDatabase();
afterAll(() => db.destroy());

async function remittance() {
  const id = freshId('rf_', 12);
  await insertRemittance(
    db,
    {
      remittance_id: id,
      order_id: id,
      workflow_id: `remittance/${id}`,
      status: 'accepted',
      request_type: 'remitToWallet',
      auto_capture: true,
      base_currency: 'USD',
      foreign_amount: 100,
      requested_amount: null,
      receiver_label: 'wallet',
      receiver_details: { walletId: '0900000000' },
      remittance_info: {},
      reason: 'RSN01',
      order_info: 'test',
      created_by_key: 'test',
      created_by: 'test',
      request_key: null,
    },
    Object.values(remittanceOrderIds(id)),
  );
  return id;
}

const move = (id: string, status: Parameters<typeof updateRemittance>[2]['status']) =>
  updateRemittance(db, id, { status }, canMoveRemittance);
const statusOf = async (id: string) =>
  (await db('remittances').where({ remittance_id: id }).first('status')).status as string;
const eventsOf = (id: string) => eventTypesOf(db, id);

describe('a remittance record', () => {
  it('walks the whole way a workflow takes it, emitting each event once', async () => {
    const id = await remittance();
    for (const status of [
      'quoting',
      'verifying_receiver',
      'checking_balance',
      'quoting',
      'buying',
      'buying',
      'checking_balance',
      'sending',
      'awaiting_result',
      'needs_attention',
      'needs_attention',
      'succeeded',
    ] as const)
      await move(id, status);
    expect(await statusOf(id)).toBe('succeeded');
    expect(await eventsOf(id)).toEqual(['remittance.needs_attention', 'remittance.succeeded']);
  });

  it('a late write of an earlier status never takes a finished remittance back', async () => {
    const id = await remittance();
    for (const status of ['quoting', 'checking_balance', 'buying', 'checking_balance', 'sending'] as const)
      await move(id, status);
    await move(id, 'succeeded');
    await move(id, 'sending');
    await move(id, 'needs_attention');
    await move(id, 'failed');
    expect(await statusOf(id)).toBe('succeeded');
    expect(await eventsOf(id)).toEqual(['remittance.succeeded']);
  });
});
