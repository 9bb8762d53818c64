/**
 * The hold switch over HTTP, with real workflows on the time-skipping server and the sandbox gateway: two
 * admins hold wallet disbursements, a new one stops before the gateway and is counted, two admins release
 * it at a rate and it is paid exactly once. A database of the file's own: a hold stops its kind for every
 * workflow that reads the same database.
 */
import { describe, expect, it } from 'vitest';
import { HOLD_STATE_MAX_AGE_MS, type HoldView } from '../../contracts/holds';
import { eventsOf } from '../../db/events/events';
import { callApi } from '../support/api';
import { gatewaySaw, TEST_APPROVAL_POLICY } from '../support/approvals';
import { freshId } from '../support/ids';
import { useScratchStack } from '../support/stack';
import { eventually } from '../support/wait';

type Keys = 'adminA' | 'adminATwin' | 'adminB' | 'viewer' | 'maker';

const t = useScratchStack<Keys>('holds', {
  taskQueue: `holds-${freshId('', 8)}`,
  keys: {
    adminA: { name: 'admin a', roles: ['admin'] },
    // The same person with another key and another spelling of the name.
    adminATwin: { name: 'Admin  A', roles: ['admin'] },
    adminB: { name: 'admin b', roles: ['admin'] },
    viewer: { name: 'viewer', roles: ['viewer'] },
    maker: { name: 'maker', roles: ['payouts-maker'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: TEST_APPROVAL_POLICY } },
});

const post = (key: string, path: string, body: unknown = {}) => callApi(t.stack.api, key, 'POST', path, body);

async function walletHold(): Promise<HoldView> {
  const answer = await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/holds');
  expect(answer.status).toBe(200);
  expect((answer.body.holds as HoldView[]).map((hold) => hold.kind)).toEqual([
    'bank_disbursement',
    'wallet_disbursement',
    'batch_payment',
    'charge',
    'refund',
    'remittance',
  ]);
  return (answer.body.holds as HoldView[]).find((hold) => hold.kind === 'wallet_disbursement')!;
}

const disbursementOf = async (id: string) =>
  (await callApi(t.stack.api, t.stack.maker, 'GET', `/v1/disbursements/${id}`)).body;

describe('holding wallet disbursements', () => {
  it('two admins hold, a new payout stops before the gateway, two admins release and it is paid once', async () => {
    expect((await post(t.stack.viewer, '/v1/holds/wallet_disbursement/hold', { reason: 'x' })).status).toBe(
      403,
    );
    const bad = await post(t.stack.adminA, '/v1/holds/wallet_disbursement/hold', { reason: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems[0].field).toBe('body.reason');

    const proposed = await post(t.stack.adminA, '/v1/holds/wallet_disbursement/hold', {
      reason: 'suspected fraud on payouts',
    });
    expect(proposed.status).toBe(200);
    expect(proposed.body).toMatchObject({ status: 'proposed', heldBy: [expect.stringMatching(/^admin a-/)] });
    const self = await post(t.stack.adminATwin, '/v1/holds/wallet_disbursement/hold', { reason: 'again' });
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('self_approval');

    const held = await post(t.stack.adminB, '/v1/holds/wallet_disbursement/hold', { reason: 'confirmed' });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ status: 'held', holdId: proposed.body.holdId, held: { count: 0 } });
    const holdId = held.body.holdId as string;
    // Workers read the holds at most once per HOLD_STATE_MAX_AGE_MS: a step starting after that stops.
    const effective = Date.parse(held.body.heldAt) + HOLD_STATE_MAX_AGE_MS + 200;
    await eventually(() => expect(Date.now()).toBeGreaterThan(effective));

    const disbursementId = freshId('d-hold-');
    const created = await post(t.stack.maker, '/v1/disbursements', {
      disbursementId,
      amount: 700_000,
      description: `held ${disbursementId}`,
      wallet: { walletId: '0912345678', walletName: 'Nguyen Van B', personalId: null },
    });
    expect(created.status).toBe(201);

    const counted = await eventually(async () => {
      const view = await walletHold();
      expect(view.held).toEqual({ count: 1, totalVnd: 700_000 });
      return view;
    });
    expect(counted).toMatchObject({ status: 'held', holdId, reason: 'suspected fraud on payouts' });
    expect(counted.heldBy).toHaveLength(2);
    expect(gatewaySaw(t.stack.sandbox, disbursementId).calls).toEqual([]);
    expect((await disbursementOf(disbursementId)).status).toBe('queued');

    const releaseProposed = await post(t.stack.adminA, '/v1/holds/wallet_disbursement/release', {
      ratePerMinute: 600,
    });
    expect(releaseProposed.body).toMatchObject({
      status: 'release_proposed',
      release: { ratePerMinute: 600, remaining: 1 },
    });
    expect(
      (await post(t.stack.adminATwin, '/v1/holds/wallet_disbursement/release', {})).body.error.code,
    ).toBe('self_approval');
    const mismatch = await post(t.stack.adminB, '/v1/holds/wallet_disbursement/release', {
      ratePerMinute: 30,
    });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error).toMatchObject({
      code: 'hold_release_mismatch',
      problems: [{ field: 'body.ratePerMinute' }],
    });
    const releasing = await post(t.stack.adminB, '/v1/holds/wallet_disbursement/release', {});
    expect(releasing.status).toBe(200);
    expect(releasing.body).toMatchObject({ status: 'releasing', release: { ratePerMinute: 600 } });

    await eventually(async () => expect((await disbursementOf(disbursementId)).status).toBe('succeeded'));
    await eventually(async () => expect((await walletHold()).status).toBe('off'));
    expect(gatewaySaw(t.stack.sandbox, disbursementId).movements).toHaveLength(1);

    const events = await eventsOf(t.db, 'hold', holdId);
    expect(events.map((event) => event.type)).toEqual([
      'hold.proposed',
      'hold.held',
      'hold.release_proposed',
      'hold.released',
    ]);
    expect(events.at(-1)!.snapshot).toMatchObject({
      heldCount: 1,
      heldTotalVnd: 700_000,
      ratePerMinute: 600,
    });
  });

  it('a proposal can be withdrawn: nothing is held, and the next call proposes anew', async () => {
    expect((await post(t.stack.adminA, '/v1/holds/charge/withdraw')).body.error.code).toBe('hold_state');
    const proposed = await post(t.stack.adminA, '/v1/holds/charge/hold', { reason: 'audit' });
    const withdrawn = await post(t.stack.adminB, '/v1/holds/charge/withdraw');
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ kind: 'charge', status: 'off' });
    const events = await eventsOf(t.db, 'hold', proposed.body.holdId);
    expect(events.map((event) => event.type)).toEqual(['hold.proposed', 'hold.withdrawn']);
  });
});
