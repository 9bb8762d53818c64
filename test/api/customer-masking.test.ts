/**
 * Masking by role on every route that shows a customer: a subscription (list and detail), a binding, a
 * customer's saved methods, saved-method payments (list and detail). A viewer sees `****` and the last four
 * characters of `partnerClientId` (often an email) and of `subsOwner` (a phone, an email); admins and the
 * duty that bills or charges the customer (billing, payments) see them in full, as payout items show
 * receivers in full only to the payout duties.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import type { Role } from '../../api/auth/roles';

const t = useApiOnDevServer();
const tag = randomUUID().slice(0, 8);
const customer = `an.nguyen.${tag}@example.com`;
const masked = '****.com';
const owner = '0912345678';
const ids = {
  subscription: `sub-mask-${tag}`,
  binding: `bind-mask-${tag}`,
  method: `method-mask-${tag}`,
  payment: `tp-mask-${tag}`,
};

beforeAll(async () => {
  const by = { created_by_key: 'masking-test', created_by: 'masking test' };
  await t.db('subscriptions').insert({
    subscription_id: ids.subscription,
    workflow_id: `subscription/${ids.subscription}`,
    partner_client_id: customer,
    subs_owner: owner,
    name: 'Gói tháng',
    type: 'FIXED',
    recurring_amount: 99_000,
    frequency: 'MONTHLY',
    initial_amount: 99_000,
    status: 'active',
    ...by,
  });
  await t.db('saved_method_bindings').insert({
    binding_id: ids.binding,
    order_id: `${ids.binding}-o`,
    workflow_id: `saved-method-binding/${ids.binding}`,
    kind: 'card',
    request_type: 'payWithCC',
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    amount: 10_000,
    status: 'active',
    ...by,
  });
  await t.db('saved_methods').insert({
    method_id: ids.method,
    binding_id: ids.binding,
    initial_order_id: `${ids.binding}-o`,
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    kind: 'card',
    card_last4: '4242',
    token_ciphertext: 'sealed-elsewhere',
    status: 'active',
  });
  await t.db('saved_method_payments').insert({
    payment_id: ids.payment,
    order_id: `${ids.payment}-o`,
    workflow_id: `saved-method-payment/${ids.payment}`,
    method_id: ids.method,
    partner_client_id: customer,
    gateway_client_id: `gw-${tag}`,
    kind: 'card',
    amount: 150_000,
    state: 'awaiting_otp',
    ...by,
  });
});

/** Each route, the duty that sees it in full, and how to find this file's record in the answer. */
const routes: Array<{ path: string; duty: Role; record: (body: never) => Record<string, unknown> }> = [
  {
    path: `/v1/subscriptions?q=${ids.subscription}`,
    duty: 'billing',
    record: (body: { subscriptions: Record<string, unknown>[] }) => body.subscriptions[0]!,
  },
  { path: `/v1/subscriptions/${ids.subscription}`, duty: 'billing', record: (body) => body },
  { path: `/v1/saved-method-bindings/${ids.binding}`, duty: 'payments', record: (body) => body },
  {
    path: `/v1/saved-method-payments?q=${ids.payment}`,
    duty: 'payments',
    record: (body: { payments: Record<string, unknown>[] }) => body.payments[0]!,
  },
  { path: `/v1/saved-method-payments/${ids.payment}`, duty: 'payments', record: (body) => body },
];

describe('customers are masked by role, the rule payout items follow', () => {
  it.each(routes)('$path: masked to a viewer, in full to admin and $duty', async ({ path, duty, record }) => {
    const read = async (roles: Role[]) => {
      const { status, body } = await callApi(t.api, await newKey(t.db, roles), 'GET', path);
      expect(status, JSON.stringify(body)).toBe(200);
      // Nowhere in the answer, not only in the field this test knows.
      if (!roles.includes('admin') && !roles.includes(duty))
        expect(JSON.stringify(body)).not.toContain(customer);
      return record(body as never);
    };
    expect((await read(['viewer'])).partnerClientId).toBe(masked);
    expect((await read(['admin'])).partnerClientId).toBe(customer);
    expect((await read([duty])).partnerClientId).toBe(customer);
    // A viewer who also holds the duty reads as the duty.
    expect((await read(['viewer', duty])).partnerClientId).toBe(customer);
  });

  it("a customer's saved methods: in full to admin and payments; any other role is refused whether or not the id is a customer", async () => {
    const methods = async (roles: Role[], id: string) =>
      callApi(
        t.api,
        await newKey(t.db, roles),
        'GET',
        `/v1/customers/${encodeURIComponent(id)}/saved-methods`,
      );
    for (const roles of [['admin'], ['payments']] as Role[][]) {
      const { status, body } = await methods(roles, customer);
      expect(status).toBe(200);
      expect((body as { methods: Array<{ partnerClientId: string }> }).methods[0]!.partnerClientId).toBe(
        customer,
      );
    }
    for (const roles of [['viewer'], ['billing'], ['payouts-maker']] as Role[][]) {
      const known = await methods(roles, customer);
      const unknown = await methods(roles, `nobody.${tag}@example.com`);
      expect([known.status, unknown.status]).toEqual([403, 403]);
      const refusal = (body: unknown) => {
        const { code, message } = (body as { error: { code: string; message: string } }).error;
        return { code, message };
      };
      expect(refusal(known.body)).toEqual(refusal(unknown.body));
    }
  });

  it("a subscription's owner label (a phone, an email) follows the same rule", async () => {
    const subscription = async (roles: Role[]) =>
      (await callApi(t.api, await newKey(t.db, roles), 'GET', `/v1/subscriptions/${ids.subscription}`)).body;
    expect((await subscription(['viewer'])).subsOwner).toBe('****5678');
    expect(JSON.stringify(await subscription(['viewer']))).not.toContain(owner);
    expect((await subscription(['billing'])).subsOwner).toBe(owner);
  });
});
