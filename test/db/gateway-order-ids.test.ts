/**
 * One namespace of gateway orderIds (db/shared/gateway-order-ids.ts): an orderId has one owner across every kind;
 * the same owner may reserve it again (a retry), anyone else is refused with OrderIdTaken, also when two
 * transactions race for it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { insertDisbursement } from '../../db/payouts/disbursements';
import {
  orderIdOwner,
  OrderIdTaken,
  reserveManageOrderId,
  reserveOrderIds,
} from '../../db/shared/gateway-order-ids';
import { withFreshId } from '../../api/order-ids';
import { connectTestDatabase, disbursementRecord, statementsSentBy } from '../support/database';

const db = connectTestDatabase();
afterAll(() => db.destroy());

const fresh = () => `ns-${randomUUID()}`;

async function refusal(run: () => Promise<unknown>): Promise<OrderIdTaken> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OrderIdTaken);
  return error as OrderIdTaken;
}

describe('gateway orderIds: one owner each, across kinds', () => {
  it('an owner reserves its ids again as often as it likes; another kind is refused, naming the owner', async () => {
    const id = fresh();
    await reserveOrderIds(db, [
      { orderId: id, kind: 'disbursement', objectId: id },
      { orderId: `${id}-chk`, kind: 'disbursement', objectId: id },
    ]);
    await reserveOrderIds(db, [{ orderId: id, kind: 'disbursement', objectId: id }]);

    const taken = await refusal(() => reserveOrderIds(db, [{ orderId: id, kind: 'payment', objectId: id }]));
    expect(taken).toMatchObject({ type: 'OrderIdTaken', orderId: id, ownerKind: 'disbursement' });
    expect(await orderIdOwner(db, id)).toMatchObject({ kind: 'disbursement', objectId: id });
  });

  it('the same kind with another object is refused too (a subscription charge of another subscription)', async () => {
    const first = fresh();
    await reserveManageOrderId(db, { subscriptionId: first, orderId: `${first}-m1` });
    await reserveManageOrderId(db, { subscriptionId: first, orderId: `${first}-m1` });
    const taken = await refusal(() =>
      reserveOrderIds(db, [{ orderId: `${first}-m1`, kind: 'subscription', objectId: `${first}-x` }]),
    );
    expect(taken.ownerKind).toBe('subscription');
  });

  it('a refusal inside a transaction leaves nothing of the reservation behind', async () => {
    const owned = fresh();
    const other = fresh();
    await reserveOrderIds(db, [{ orderId: owned, kind: 'payment', objectId: owned }]);
    await refusal(() =>
      db.transaction((trx) =>
        reserveOrderIds(trx, [
          { orderId: other, kind: 'remittance', objectId: other },
          { orderId: owned, kind: 'remittance', objectId: other },
        ]),
      ),
    );
    expect(await orderIdOwner(db, other)).toBeUndefined();
  });

  it("a record inserted in its caller's transaction: no savepoint of its own, and a refused orderId takes the record back", async () => {
    const fine = fresh();
    const sent = await statementsSentBy(db, () =>
      db.transaction((trx) => insertDisbursement(trx, disbursementRecord(fine))),
    );
    expect(sent.filter((sql) => /savepoint/i.test(sql))).toEqual([]);
    expect(await orderIdOwner(db, `${fine}-chk`)).toMatchObject({ kind: 'disbursement', objectId: fine });

    // The caller goes on after the refusal and commits: neither the record nor the orderId it got stays.
    const refused = fresh();
    await reserveOrderIds(db, [{ orderId: `${refused}-chk`, kind: 'payment', objectId: refused }]);
    await db.transaction(async (trx) => {
      await refusal(() => insertDisbursement(trx, disbursementRecord(refused)));
    });
    expect(await db('disbursements').where({ disbursement_id: refused }).first()).toBeUndefined();
    expect(await orderIdOwner(db, refused)).toBeUndefined();
  });

  it('two owners in one call for one orderId: refused', async () => {
    const id = fresh();
    await refusal(() =>
      reserveOrderIds(db, [
        { orderId: id, kind: 'payment', objectId: id },
        { orderId: id, kind: 'saved_method_payment', objectId: id },
      ]),
    );
    expect(await orderIdOwner(db, id)).toBeUndefined();
  });

  it('two transactions racing for one orderId: exactly one wins', async () => {
    const id = fresh();
    const kinds = ['payment', 'disbursement', 'saved_method_payment', 'subscription'] as const;
    const outcomes = await Promise.allSettled(
      kinds.map((kind) =>
        db.transaction((trx) => reserveOrderIds(trx, [{ orderId: id, kind, objectId: `${kind}:${id}` }])),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(kinds.length - 1);
    for (const reason of lost) expect(reason).toBeInstanceOf(OrderIdTaken);
    const owner = await orderIdOwner(db, id);
    expect(lost.map((reason: OrderIdTaken) => reason.ownerKind)).toEqual(lost.map(() => owner!.kind));
  });

  it('an id payrun draws is drawn again while its orderId is taken, a few times at most', async () => {
    const taken = [fresh(), fresh(), fresh(), fresh(), fresh(), fresh()];
    for (const id of taken) await reserveOrderIds(db, [{ orderId: id, kind: 'payment', objectId: id }]);
    const free = fresh();
    const draws = [taken[0]!, taken[1]!, free];
    const create = (id: string) =>
      db.transaction((trx) => reserveOrderIds(trx, [{ orderId: id, kind: 'remittance', objectId: id }]));
    expect(await withFreshId(() => draws.shift()!, create)).toBe(free);
    expect(await orderIdOwner(db, free)).toMatchObject({ kind: 'remittance' });

    const always = [...taken];
    await refusal(() => withFreshId(() => always.shift()!, create));
    expect(always).toHaveLength(1);
  });
});
