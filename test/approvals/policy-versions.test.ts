/**
 * The approval policy changed through the API: an admin proposes, a second admin (another person, not
 * another key of the proposer) approves, and the version applies to items created from its effective time,
 * never to one created before. A database of the file's own: an approved version applies to everything in it.
 */
import { describe, expect, it } from 'vitest';
import type { AmountBand } from '../../contracts/approvals';
import { eventsOf } from '../../db/events/events';
import { callApi } from '../support/api';
import { TEST_APPROVAL_POLICY } from '../support/approvals';
import { freshId } from '../support/ids';
import { useScratchStack } from '../support/stack';

type Keys = 'adminA' | 'adminATwin' | 'adminB' | 'viewer' | 'approver' | 'maker';

const t = useScratchStack<Keys>('policy_versions', {
  taskQueue: `policy-${freshId('', 8)}`,
  keys: {
    adminA: { name: 'Admin An', roles: ['admin'] },
    // The same person's second key: another case, a double space.
    adminATwin: { name: 'ADMIN  AN', roles: ['admin'] },
    adminB: { name: 'Admin Bình', roles: ['admin'] },
    viewer: { name: 'viewer', roles: ['viewer'] },
    approver: { name: 'approver', roles: ['payouts-approver'] },
    maker: { name: 'maker', roles: ['payouts-maker'] },
  },
  sandbox: { balances: { VND: 100_000_000_000 } },
  app: { approvals: { policy: TEST_APPROVAL_POLICY } },
});

const band = (fromVnd: number, approvers: number): AmountBand => ({
  fromVnd,
  approvers,
  roles: ['payouts-approver'],
});
/** TEST_APPROVAL_POLICY with disbursements free below 10,000,000 VND. */
const looserPolicy = () => ({
  ...TEST_APPROVAL_POLICY,
  kinds: {
    ...TEST_APPROVAL_POLICY.kinds,
    disbursement: { ...TEST_APPROVAL_POLICY.kinds.disbursement, bands: [band(0, 0), band(10_000_000, 1)] },
  },
});
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

const propose = (key: string, body: Record<string, unknown>) =>
  callApi(t.stack.api, key, 'POST', '/v1/approval-policy', body);
const decide = (key: string, version: number, decision: 'approve' | 'reject') =>
  callApi(t.stack.api, key, 'POST', `/v1/approval-policy/${version}/${decision}`, {});
const overview = async () => (await callApi(t.stack.api, t.stack.viewer, 'GET', '/v1/approval-policy')).body;

async function disburse(amount: number) {
  const disbursementId = freshId('d-pol-');
  const created = await callApi(t.stack.api, t.stack.maker, 'POST', '/v1/disbursements', {
    disbursementId,
    amount,
    description: `policy ${disbursementId}`,
    wallet: { walletId: '0912345678', walletName: 'Nguyen Van B', personalId: null },
  });
  expect(created.status).toBe(201);
  return { disbursementId, status: created.body.status as string };
}
const statusOf = async (id: string) =>
  (await callApi(t.stack.api, t.stack.maker, 'GET', `/v1/disbursements/${id}`)).body.status;

describe('changing the approval policy through the API', () => {
  it('applies a version a second admin approved to items created after it, never to one created before', async () => {
    const before = await disburse(2_000_000);
    expect(before.status).toBe('awaiting_approval');

    const proposed = await propose(t.stack.adminA, {
      policy: looserPolicy(),
      effectiveFrom: new Date().toISOString(),
      reason: 'rent is paid in one go',
    });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({
      status: 'proposed',
      proposedBy: expect.stringMatching(/^Admin An-/),
    });
    const version = proposed.body.version as number;
    // Proposed is not in effect.
    expect((await disburse(2_000_000)).status).toBe('awaiting_approval');
    expect((await overview()).proposals.map((p: { version: number }) => p.version)).toContain(version);

    // Neither the proposer nor another key of theirs approves.
    for (const key of [t.stack.adminA, t.stack.adminATwin]) {
      const own = await decide(key, version, 'approve');
      expect(own.status).toBe(403);
      expect(own.body.error.code).toBe('self_approval');
    }
    const approved = await decide(t.stack.adminB, version, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ version, status: 'approved', takesEffect: 'on_approval' });

    const after = await disburse(2_000_000);
    expect(after.status).toBe('queued');
    // The item made before keeps what the policy asked when it was created.
    expect(await statusOf(before.disbursementId)).toBe('awaiting_approval');
    expect((await overview()).current).toMatchObject({ version, source: 'api' });

    const events = await eventsOf(t.db, 'approval_policy', String(version));
    expect(events.map((event) => event.type)).toEqual([
      'approval_policy.proposed',
      'approval_policy.approved',
    ]);
    const audit = await t
      .db('audit_log')
      .where({ target_type: 'approval_policy', target_id: String(version) })
      .orderBy('id');
    expect(audit.map((entry) => [entry.action, entry.outcome])).toEqual([
      ['approval_policy.propose', 'succeeded'],
      ['approval_policy.approve', 'refused'],
      ['approval_policy.approve', 'refused'],
      ['approval_policy.approve', 'succeeded'],
    ]);
    expect(await decide(t.stack.adminB, version, 'approve')).toMatchObject({
      status: 409,
      body: { error: { code: 'policy_not_proposed' } },
    });
  });

  it('a version effective later applies from its effectiveFrom, not before', async () => {
    const strict = {
      ...TEST_APPROVAL_POLICY,
      kinds: {
        ...TEST_APPROVAL_POLICY.kinds,
        disbursement: { ...TEST_APPROVAL_POLICY.kinds.disbursement, bands: [band(0, 1)] },
      },
    };
    const effectiveFrom = inAnHour();
    const proposed = await propose(t.stack.adminB, {
      policy: strict,
      effectiveFrom,
      reason: 'from tomorrow',
    });
    expect(proposed.status).toBe(201);
    const approved = await decide(t.stack.adminA, proposed.body.version, 'approve');
    expect(approved.body).toMatchObject({ status: 'approved', takesEffect: 'at_effective_from' });
    expect(approved.body.effectiveAt).toBe(new Date(effectiveFrom).toISOString());

    // Still the version before: 2,000,000 VND is free under it, not under the scheduled one.
    expect((await disburse(2_000_000)).status).toBe('queued');
    const { current, scheduled } = await overview();
    expect(current.version).not.toBe(proposed.body.version);
    expect(scheduled.map((v: { version: number }) => v.version)).toEqual([proposed.body.version]);
  });

  it('only an admin proposes or decides', async () => {
    const body = { policy: looserPolicy(), effectiveFrom: inAnHour(), reason: 'try' };
    expect((await propose(t.stack.viewer, body)).status).toBe(403);
    expect((await propose(t.stack.approver, body)).status).toBe(403);
    const proposed = await propose(t.stack.adminA, body);
    expect((await decide(t.stack.approver, proposed.body.version, 'approve')).status).toBe(403);
    const rejected = await decide(t.stack.adminB, proposed.body.version, 'reject');
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decidedBy: expect.stringMatching(/^Admin Bình-/),
    });
    expect((await overview()).history[0]).toMatchObject({
      version: proposed.body.version,
      status: 'rejected',
    });
  });

  it('refuses an invalid policy or a past effectiveFrom naming the field, and records nothing', async () => {
    // A rule the OpenAPI document states (at most 5 approvers): 400.
    const tooMany = looserPolicy();
    tooMany.kinds.refund = { ...tooMany.kinds.refund, bands: [band(0, 1), band(5, 9)] };
    const invalid = await propose(t.stack.adminA, {
      policy: tooMany,
      effectiveFrom: inAnHour(),
      reason: 'x',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.problems).toContainEqual(
      expect.objectContaining({
        field: 'body.policy.kinds.refund.bands.1.approvers',
        message: 'must be 5 or fewer',
      }),
    );
    // A rule across fields, which the document cannot state: 422, named.
    const falling = looserPolicy();
    falling.kinds.refund = { ...falling.kinds.refund, bands: [band(0, 1), band(5, 0)] };
    const refused = await propose(t.stack.adminA, {
      policy: falling,
      effectiveFrom: inAnHour(),
      reason: 'x',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.problems).toEqual([
      {
        field: 'body.policy.kinds.refund.bands.1.approvers',
        rule: 'approvers_never_fall',
        message: 'must be at least the band before’s',
      },
    ]);
    const past = await propose(t.stack.adminA, {
      policy: looserPolicy(),
      effectiveFrom: new Date(Date.now() - 5 * 60_000).toISOString(),
      reason: 'x',
    });
    expect(past.status).toBe(400);
    expect(past.body.error.problems).toEqual([expect.objectContaining({ field: 'body.effectiveFrom' })]);
    const noOffset = await propose(t.stack.adminA, {
      policy: looserPolicy(),
      effectiveFrom: '2030-01-01 10:00',
      reason: 'x',
    });
    expect(noOffset.status).toBe(400);
    expect(noOffset.body.error.problems[0].field).toBe('body.effectiveFrom');
    const versions = (await overview()).history.map((v: { reason: string }) => v.reason);
    expect(versions).not.toContain('x');
  });
});
