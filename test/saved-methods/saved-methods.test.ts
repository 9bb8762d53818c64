/** Saved methods and saved-method payments through the API, on the time-skipping server, against the sandbox. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { formerIpnPaths, ipnPaths } from '../../platform/ipn-paths';
import { parseKeyId } from '../../db/shared/api-keys';
import {
  savedMethodBindingWorkflowId,
  savedMethodDeletionWorkflowId,
  savedMethodPaymentWorkflowId,
} from '../../contracts/saved-methods';
import { captureHistory } from '../support/history-capture';
import { testMerchant } from '../support/settings';
import { useSavedMethodStack, waitFor } from './saved-method-stack';
import { eventually } from '../support/wait';
import { freshId } from '../support/ids';

const { History } = proto.temporal.api.history.v1;
const t = useSavedMethodStack();

const user = (label: string) => freshId(label, 8);
const cardUser = { email: 'an@example.com', name: 'Nguyen Van An' };

async function bind(
  kind: 'card' | 'domestic' | 'wallet',
  partnerClientId: string,
  extra: Record<string, unknown> = {},
) {
  const created = await t.call('POST', '/v1/saved-method-bindings', {
    kind,
    partnerClientId,
    ...(kind === 'wallet' ? {} : { userInfo: cardUser }),
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const bindingOf = (bindingId: string) =>
  t.call('GET', `/v1/saved-method-bindings/${bindingId}`, undefined, t.viewerKey);
const bindingStatus = (bindingId: string, statuses: string[]) =>
  waitFor(
    async () => (await bindingOf(bindingId)).body,
    (body) => statuses.includes(body.status),
    `binding ${bindingId}`,
  );

/** Binds and approves: the saved method's id. */
async function savedMethod(kind: 'card' | 'domestic' | 'wallet', partnerClientId: string) {
  const created = await bind(kind, partnerClientId);
  t.sandbox.admin.approvePayment(created.orderId);
  const done = await bindingStatus(created.bindingId, ['active', 'failed', 'expired']);
  expect(done.status).toBe('active');
  return done.methodId as string;
}

const payment = (paymentId: string) =>
  t.call('GET', `/v1/saved-method-payments/${paymentId}`, undefined, t.viewerKey);
const paymentState = (paymentId: string, states: string[]) =>
  waitFor(
    async () => (await payment(paymentId)).body,
    (body) => states.includes(body.state),
    `saved-method payment ${paymentId}`,
  );
async function pay(methodId: string, amount: number) {
  const paymentId = `tp_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const created = await t.call('POST', '/v1/saved-method-payments', {
    paymentId,
    methodId,
    amount,
    description: 'Order',
  });
  return { paymentId, created };
}
const otp = (paymentId: string, code: string) =>
  t.call('POST', `/v1/saved-method-payments/${paymentId}/otp`, { code });
const codeOf = (orderId: string) => {
  const sent = t.sandbox.admin.otpInbox().filter((message) => message.orderId === orderId);
  return sent[sent.length - 1]!.code;
};
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const tokenPayCalls = (orderId: string) =>
  t.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);

describe('binding', () => {
  it('saves a card: payUrl, IPN with callbackToken, bind, stored encrypted with its display fields', async () => {
    const id = user('card');
    const created = await bind('card', id);
    expect(created).toMatchObject({ status: 'awaiting_customer', kind: 'card', amount: 0 });
    expect(created.payUrl).toMatch(/^http/);
    t.sandbox.admin.approvePayment(created.orderId);
    const done = await bindingStatus(created.bindingId, ['active', 'failed']);
    expect(done.status).toBe('active');

    const listed = await t.call('GET', `/v1/customers/${id}/saved-methods`);
    expect(listed.status).toBe(200);
    expect(listed.body.methods).toEqual([
      expect.objectContaining({
        methodId: done.methodId,
        kind: 'card',
        status: 'active',
        last4: expect.stringMatching(/^\d{4}$/),
      }),
    ]);
    expect(['VISA', 'MASTERCARD', 'JCB']).toContain(listed.body.methods[0].cardType);
    const [token] = t.sandbox.admin.tokens(id);
    expect(JSON.stringify(listed.body)).not.toContain(token!.value);
    const row = await t.db('saved_methods').where({ method_id: done.methodId }).first();
    expect(row.token_ciphertext).not.toContain(token!.value);
    await captureHistory(t.env.client, savedMethodBindingWorkflowId(created.bindingId), 'card-bound');
  });

  it('saves a domestic card while paying, and binds two wallets of one user (n000_, n001_)', async () => {
    const id = user('dom');
    const domestic = await bind('domestic', id, { amount: 10_000 });
    t.sandbox.admin.approvePayment(domestic.orderId);
    expect(await bindingStatus(domestic.bindingId, ['active', 'failed'])).toMatchObject({ status: 'active' });

    const first = await bind('wallet', id, { userInfo: { phoneNumber: '0912341234' } });
    expect(first.deeplink).toBeTruthy();
    expect(first.qrCodeUrl).toBeTruthy();
    const second = await bind('wallet', id, { amount: 50_000, userInfo: { phoneNumber: '0912345678' } });
    t.sandbox.admin.approvePayment(first.orderId);
    t.sandbox.admin.approvePayment(second.orderId);
    await bindingStatus(first.bindingId, ['active']);
    await bindingStatus(second.bindingId, ['active']);

    const methods = (await t.call('GET', `/v1/customers/${id}/saved-methods`)).body.methods;
    expect(methods).toHaveLength(3);
    expect(methods).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'domestic', bankCode: '970436' }),
        expect.objectContaining({ kind: 'wallet', walletAlias: '******1234' }),
        expect.objectContaining({ kind: 'wallet', walletAlias: '******5678' }),
      ]),
    );
    const owners = t.sandbox.admin.tokens().map((token) => token.partnerClientId);
    expect(owners).toEqual(expect.arrayContaining([id, `n000_${id}`, `n001_${id}`]));
  });

  it('refuses bad amounts and missing fields per flow', async () => {
    const low = await t.call('POST', '/v1/saved-method-bindings', {
      kind: 'domestic',
      partnerClientId: 'u1',
      amount: 5000,
      userInfo: cardUser,
    });
    expect(low.status).toBe(400);
    expect(low.body.error.problems[0].field).toBe('body.amount');
    const noEmail = await t.call('POST', '/v1/saved-method-bindings', {
      kind: 'card',
      partnerClientId: 'u1',
    });
    expect(noEmail.body.error.problems[0].field).toBe('body.userInfo.email');
    const viewer = await t.call(
      'POST',
      '/v1/saved-method-bindings',
      { kind: 'wallet', partnerClientId: 'u1' },
      t.viewerKey,
    );
    expect(viewer.status).toBe(403);
  });

  it('binds a wallet with a first payment above 50 000 000 VND: document 2 sets no maximum for linkWallet', async () => {
    const created = await bind('wallet', user('big'), { amount: 60_000_000 });
    expect(created.payUrl ?? created.deeplink).toBeTruthy();
  });

  it('asks tokenization/cbQuery when the IPN does not come', async () => {
    t.sandbox.admin.setFaults({ operation: 'binding.payWithCC', ipn: { drop: true } });
    try {
      const created = await bind('card', user('cbq'));
      t.sandbox.admin.approvePayment(created.orderId);
      // Only once the gateway has decided (and dropped its notification) can a query find the result.
      await eventually(() =>
        expect(
          t.sandbox.admin
            .ipnLog()
            .filter((entry) => entry.orderId === created.orderId)
            .map((entry) => entry.outcome),
        ).toContain('dropped'),
      );
      await t.advance('3 minutes');
      expect(await bindingStatus(created.bindingId, ['active', 'failed'])).toMatchObject({
        status: 'active',
      });
    } finally {
      t.sandbox.admin.clearFaults();
    }
  });

  it('ends a wallet link the customer never uses as expired', async () => {
    const created = await bind('wallet', user('late'));
    await t.advance('17 minutes');
    expect(await bindingStatus(created.bindingId, ['active', 'failed', 'expired'])).toMatchObject({
      status: 'expired',
    });
  });
});

describe('delete and revoke', () => {
  it('deletes a saved method at the gateway; paying with it fails before any call', async () => {
    const methodId = await savedMethod('card', user('del'));
    const deleted = await t.call('DELETE', `/v1/saved-methods/${methodId}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toMatchObject({ status: 'deleted' });
    await captureHistory(t.env.client, savedMethodDeletionWorkflowId(methodId), 'card-deleted');
    const { paymentId, created } = await pay(methodId, 50_000);
    expect(created.status).toBe(409);
    expect(created.body.error.code).toBe('method_deleted');
    expect(tokenPayCalls(paymentId)).toHaveLength(0);
  });

  it('marks a token revoked on the unbind call (answered 204) and never uses it again', async () => {
    const id = user('unb');
    const methodId = await savedMethod('domestic', id);
    const revoked = t.sandbox.admin.revokeToken(id);
    expect(revoked.notified).toBe(1);
    await waitFor(
      async () => (await t.db('saved_methods').where({ method_id: methodId }).first()).status,
      (status) => status === 'revoked',
      'revoked',
    );
    // The sandbox logs the delivery once it has read the answer, a moment after payrun acted on it.
    await eventually(() => {
      const delivered = t.sandbox.admin.ipnLog().filter((entry) => entry.kind === 'token.unbind');
      expect(delivered.at(-1)).toMatchObject({ httpStatus: 204, outcome: 'delivered' });
    });
    const { created } = await pay(methodId, 50_000);
    expect(created.status).toBe(409);
    expect(created.body.error.code).toBe('method_revoked');
  });
});

describe('former names (one release after the rename to saved methods)', () => {
  it('answers at the former paths as at the new ones, marked deprecated with a link to the new path', async () => {
    const id = user('former');
    const created = await t.call('POST', '/v1/bindings', {
      kind: 'card',
      partnerClientId: id,
      userInfo: { email: 'former@example.com' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('deprecation')).toBe('true');
    expect(created.headers.get('link')).toBe('</v1/saved-method-bindings>; rel="successor-version"');

    const { bindingId } = created.body;
    const former = await t.call('GET', `/v1/bindings/${bindingId}`, undefined, t.viewerKey);
    const current = await t.call('GET', `/v1/saved-method-bindings/${bindingId}`, undefined, t.viewerKey);
    expect(former.status).toBe(200);
    expect(former.body).toEqual(current.body);
    expect(former.headers.get('link')).toBe(
      `</v1/saved-method-bindings/${bindingId}>; rel="successor-version"`,
    );
    expect(current.headers.get('deprecation')).toBeNull();

    // Roles still apply at the former path: a viewer cannot create there either.
    const refused = await t.call('POST', '/v1/token-payments', {}, t.viewerKey);
    expect(refused.status).toBe(403);
  });

  it('revokes a method through the former unbind path, still set in merchant profiles', async () => {
    const id = user('former-unb');
    const methodId = await savedMethod('card', id);
    t.sandbox.admin.setUnbindUrl(`${t.api.baseUrl}${formerIpnPaths.unbind}`);
    try {
      expect(t.sandbox.admin.revokeToken(id).notified).toBe(1);
      await waitFor(
        async () => (await t.db('saved_methods').where({ method_id: methodId }).first()).status,
        (status) => status === 'revoked',
        'revoked',
      );
    } finally {
      t.sandbox.admin.setUnbindUrl(`${t.api.baseUrl}${ipnPaths.unbind}`);
    }
  });
});

describe('pay with a token', () => {
  it('0: succeeds at once; amounts outside the flow range are refused', async () => {
    const methodId = await savedMethod('card', user('p0'));
    const { paymentId, created } = await pay(methodId, 50_000);
    expect(created.status).toBe(201);
    expect((await paymentState(paymentId, ['succeeded', 'failed'])).state).toBe('succeeded');
    const tooMuch = await pay(methodId, 10_000_001);
    expect(tooMuch.created.status).toBe(400);
    expect(tooMuch.created.body.error.problems[0].field).toBe('body.amount');
  });

  it('7000: pending, then the IPN', async () => {
    const methodId = await savedMethod('wallet', user('p7'));
    const { paymentId, created } = await pay(methodId, 17_000);
    expect(created.body.state).toBe('pending');
    t.sandbox.admin.settlePending();
    expect(await paymentState(paymentId, ['succeeded', 'failed'])).toMatchObject({
      state: 'succeeded',
      resultCode: 0,
    });
  });

  it('8000: hands over payUrl/deeplink, then the IPN after the customer confirms', async () => {
    const methodId = await savedMethod('wallet', user('p8'));
    const { paymentId, created } = await pay(methodId, 28_000);
    expect(created.body).toMatchObject({ state: 'awaiting_customer', resultCode: 8000 });
    expect(created.body.payUrl).toMatch(/^http/);
    expect(created.body.deeplink).toBeTruthy();
    t.sandbox.admin.approvePayment(paymentId);
    expect(await paymentState(paymentId, ['succeeded', 'failed'])).toMatchObject({ state: 'succeeded' });
  });

  it('8200: the right code confirms the payment through the update', async () => {
    const methodId = await savedMethod('wallet', user('otpok'));
    const { paymentId, created } = await pay(methodId, 18_200);
    expect(created.body).toMatchObject({ state: 'awaiting_otp', resultCode: 8200 });
    const listed = await t.call(
      'GET',
      '/v1/saved-method-payments?state=awaiting_otp',
      undefined,
      t.viewerKey,
    );
    expect(listed.body.payments.map((p: { paymentId: string }) => p.paymentId)).toContain(paymentId);
    await t.advance('4 seconds');
    const verified = await otp(paymentId, codeOf(paymentId));
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ verdict: 'succeeded', payment: { state: 'succeeded' } });
    expect(verified.body.payment.otpAttempts).toEqual([
      expect.objectContaining({ kind: 'sms', outcome: 'sent' }),
      expect.objectContaining({ kind: 'verify', outcome: 'accepted' }),
    ]);
  });

  it('8200: a wrong code (422), a retry within 3 s refused (429), then the right one', async () => {
    const methodId = await savedMethod('wallet', user('otpwr'));
    const { paymentId } = await pay(methodId, 18_200);
    await paymentState(paymentId, ['awaiting_otp']);
    const code = codeOf(paymentId);
    await t.advance('4 seconds');
    const wrong = await otp(paymentId, wrongCode(code));
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ code: 'otp_wrong' });
    expect(wrong.body.error.message).toContain('4 attempts left');
    const tooSoon = await otp(paymentId, code);
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.error.code).toBe('otp_too_soon');
    await t.advance('4 seconds');
    const right = await otp(paymentId, code);
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body.payment.state).toBe('succeeded');
    await captureHistory(t.env.client, savedMethodPaymentWorkflowId(paymentId), 'otp-wrong-then-right');
  });

  it('8200: a code older than 5 minutes is refused (410) and the payment fails', async () => {
    const methodId = await savedMethod('wallet', user('otpex'));
    const { paymentId } = await pay(methodId, 18_200);
    await paymentState(paymentId, ['awaiting_otp']);
    const code = codeOf(paymentId);
    await t.advance('6 minutes');
    expect(await paymentState(paymentId, ['failed', 'succeeded'])).toMatchObject({
      state: 'failed',
      resultCode: 8202,
    });
    const late = await otp(paymentId, code);
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('otp_expired');
  });

  it('8200: five wrong codes lock the user until the next day (423), new payments too', async () => {
    // Workflow time a day ahead of the wall clock: the API must count the lock on workflow time's day,
    // as it once did not when a run crossed midnight in Vietnam (UTC+7) between the two clocks.
    await t.advance('1 day');
    const methodId = await savedMethod('wallet', user('otplk'));
    const { paymentId } = await pay(methodId, 18_200);
    await paymentState(paymentId, ['awaiting_otp']);
    const wrong = wrongCode(codeOf(paymentId));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      await t.advance('4 seconds');
      statuses.push((await otp(paymentId, wrong)).status);
    }
    expect(statuses).toEqual([422, 422, 422, 422, 423]);
    expect(await paymentState(paymentId, ['failed'])).toMatchObject({ state: 'failed' });
    const again = await otp(paymentId, wrong);
    expect(again.status).toBe(423);
    const next = await pay(methodId, 50_000);
    expect(next.created.status).toBe(423);
    expect(next.created.body.error.code).toBe('otp_locked');
    expect(tokenPayCalls(next.paymentId)).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('no token, OTP code or key appears in logs or in workflow histories', async () => {
    const tokens = t.sandbox.admin.tokens().map((token) => token.value);
    const codes = t.sandbox.admin.otpInbox().map((message) => message.code);
    expect(tokens.length).toBeGreaterThan(5);
    expect(codes.length).toBeGreaterThan(3);
    const keys = [testMerchant.secretKey, testMerchant.accessKey, t.payKey, t.viewerKey];
    const tokenKey = t.keyring.keys.get(t.keyring.currentKeyId)!.toString('base64');
    const forbidden = [...tokens, ...keys, tokenKey];

    const logs = t.logs.join('');
    expect(logs.length).toBeGreaterThan(1000);
    for (const value of forbidden) expect(logs, `"${value}" leaked into the logs`).not.toContain(value);
    // Six-digit codes could collide with other numbers in a log line; look for them as JSON values.
    for (const code of codes) expect(logs).not.toContain(`"${code}"`);

    const rawClient = new Client({ connection: t.env.connection });
    // This file's workflows only: other files write bindings and payments to the same database.
    const mine = { created_by_key: parseKeyId(t.payKey) };
    const ids = [
      ...(await t.db('saved_method_bindings').where(mine).select('workflow_id')),
      ...(await t.db('saved_method_payments').where(mine).select('workflow_id')),
    ].map((row) => row.workflow_id as string);
    expect(ids.length).toBeGreaterThan(5);
    for (const workflowId of ids) {
      const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
      const bytes = Buffer.from(History.encode(history).finish()).toString('latin1');
      for (const value of [...forbidden, ...codes])
        expect(bytes, `"${value}" in ${workflowId}`).not.toContain(value);
    }
  });
});
