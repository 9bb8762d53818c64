/**
 * People sign in through payrun's own OpenID Connect provider (oidc-provider), over real HTTP: the console's
 * session, the Temporal UI's access token at the codec (decoded per role, masked as the API masks), forged
 * and expired tokens, and offboarding (sessions end, keys stop, sign-in refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair, importJWK, type JWK } from 'jose';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { DisbursementInput } from '../../contracts/payouts';
import { AesGcmPayloadCodec } from '../../platform/payload-codec';
import { createApiKey } from '../../db/shared/api-keys';
import { personIdOf } from '../../db/identity/people';
import type { IdentityServer } from '../../platform/identity/server';
import { newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { freshId } from '../support/ids';
import {
  accessTokenFor,
  identityDependencies,
  prepareTestIdentity,
  signInToConsole,
  type TestIdentity,
} from '../support/identity';
import { testCodecKeyring } from '../support/temporal';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const codec = new AesGcmPayloadCodec(testCodecKeyring);

let identity: TestIdentity;
let provider: IdentityServer;
beforeAll(async () => {
  identity = await prepareTestIdentity();
});
const t = useApiOnDevServer({
  codec: { codec, allowedOrigins: [UI_ORIGIN] },
  // Read when the API is built, after the provider's settings exist.
  get identity() {
    return identityDependencies(identity);
  },
});
beforeAll(async () => {
  identity.settings.publicBaseUrl = t.api.baseUrl;
  provider = await identity.start();
});
afterAll(async () => {
  await provider?.close();
});

const walletId = `09${freshId('', 8).replace(/[a-f]/g, '7')}`;
const walletName = 'Nguyễn Văn An';
const start: DisbursementInput = {
  disbursementId: freshId('d-identity-'),
  amount: 150_000_000,
  description: 'identity codec',
  receiver: { kind: 'wallet', walletId, walletName, personalId: null },
  gatewayAttemptTimeout: '30s',
  resultWait: '1h',
};

const toWire = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value!).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data!).toString('base64'),
});
type WirePayload = ReturnType<typeof toWire>;
const fromWire = (wire: WirePayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(wire.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(wire.data, 'base64'),
});

async function decode(payloads: Payload[], headers: Record<string, string>) {
  const response = await fetch(`${t.api.baseUrl}/codec/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN, ...headers },
    body: JSON.stringify({ payloads: payloads.map(toWire) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    payloads: response.ok ? (JSON.parse(text).payloads as WirePayload[]) : [],
  };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sealedStart = () => codec.encode([defaultPayloadConverter.toPayload(start)]);
const shownStart = (wire: WirePayload) =>
  defaultPayloadConverter.fromPayload<DisbursementInput>(fromWire(wire));

describe('the Temporal UI’s access token at the codec', () => {
  it('decodes a disbursement for a viewer masked as the API masks it, and for an admin in full', async () => {
    const sealed = await sealedStart();

    const viewer = await decode(sealed, bearer(await accessTokenFor(identity, 'lan.viewer')));
    expect(viewer.status).toBe(200);
    expect(shownStart(viewer.payloads[0]!).receiver).toEqual({
      kind: 'wallet',
      walletId: `****${walletId.slice(-4)}`,
      walletName: 'N. V. A.',
      personalId: null,
    });
    expect(shownStart(viewer.payloads[0]!).amount).toBe(start.amount);
    expect(viewer.text).not.toContain(walletId);

    const admin = await decode(sealed, bearer(await accessTokenFor(identity, 'an.admin')));
    expect(admin.status).toBe(200);
    expect(shownStart(admin.payloads[0]!).receiver).toEqual(start.receiver);

    // The payout maker checks receivers before money moves: in full, as in the API's lists.
    const maker = await decode(sealed, bearer(await accessTokenFor(identity, 'binh.maker')));
    expect(shownStart(maker.payloads[0]!).receiver).toEqual(start.receiver);
  });

  it('leaves a payload carrying an OTP sealed for anyone but an admin', async () => {
    const sealed = await codec.encode([
      defaultPayloadConverter.toPayload({ otp: '123456', paymentId: 'p-1' }),
    ]);
    const viewer = await decode(sealed, bearer(await accessTokenFor(identity, 'lan.viewer')));
    expect(viewer.status).toBe(200);
    expect(viewer.payloads[0]).toEqual(toWire(sealed[0]!));
    expect(viewer.text).not.toContain('123456');
  });

  it('refuses a forged token and an expired one (401), and shows nothing', async () => {
    const sealed = await sealedStart();
    const [signingKey] = identity.keys.jwks.keys as JWK[];
    const claims = { groups: ['admin'], name: 'Trần Thị An' };
    const issued = (_key: unknown, expiresAt: number) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signingKey!.kid! })
        .setIssuer(identity.settings.issuer)
        .setAudience(identity.settings.audience)
        .setSubject('an.admin')
        .setIssuedAt(expiresAt - 600)
        .setExpirationTime(expiresAt);
    const now = Math.floor(Date.now() / 1000);

    const { privateKey: strangerKey } = await generateKeyPair('RS256');
    const forged = await (await issued(strangerKey, now + 600)).sign(strangerKey);
    const providerKey = (await importJWK(signingKey!, 'RS256')) as Parameters<SignJWT['sign']>[0];
    const expired = await (await issued(providerKey, now - 60)).sign(providerKey);
    const genuine = await (await issued(providerKey, now + 600)).sign(providerKey);

    for (const token of [forged, expired]) {
      const refused = await decode(sealed, bearer(token));
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.text).error.code).toBe('unauthorized');
      expect(refused.text).not.toContain(walletId);
    }
    // The same claims signed by the provider's own key pass: the refusals above are the signature and the expiry.
    expect((await decode(sealed, bearer(genuine))).status).toBe(200);
  });
});

describe('the console’s session', () => {
  it('signs a person in through the provider; mutating requests need the CSRF token; sign-out ends it', async () => {
    const signedIn = await signInToConsole(t.api.baseUrl, 'chi.approver');
    expect(signedIn.status).toBe(302);
    const me = await fetch(`${t.api.baseUrl}/v1/me`, { headers: { cookie: signedIn.cookie! } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      keyId: personIdOf(identity.settings.issuer, 'chi.approver'),
      name: 'Phạm Minh Chi',
      roles: ['payouts-approver'],
    });

    const withoutToken = await fetch(`${t.api.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { cookie: signedIn.cookie! },
    });
    expect(withoutToken.status).toBe(403);
    const out = await fetch(`${t.api.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { cookie: signedIn.cookie!, 'x-csrf-token': signedIn.csrfToken! },
    });
    expect(out.status).toBe(200);
    expect(((await out.json()) as { endSessionUrl: string }).endSessionUrl).toContain(
      `${identity.settings.issuer}/session/end`,
    );
    expect((await fetch(`${t.api.baseUrl}/v1/me`, { headers: { cookie: signedIn.cookie! } })).status).toBe(
      401,
    );
  });

  it('two sessions of one person are one person (the same identity in every four-eyes comparison)', async () => {
    const first = await signInToConsole(t.api.baseUrl, 'binh.maker');
    const second = await signInToConsole(t.api.baseUrl, 'binh.maker');
    const idOf = async (cookie: string) =>
      ((await (await fetch(`${t.api.baseUrl}/v1/me`, { headers: { cookie } })).json()) as { keyId: string })
        .keyId;
    expect(first.cookie).not.toBe(second.cookie);
    expect(await idOf(first.cookie!)).toBe(await idOf(second.cookie!));
  });
});

describe('the console’s session, as the API’s credential', () => {
  it('a mutating API call with the cookie needs the CSRF token; the session ends when idle too long', async () => {
    const admin = await signInToConsole(t.api.baseUrl, 'an.admin');
    const offboard = (headers: Record<string, string>) =>
      fetch(`${t.api.baseUrl}/v1/people/nobody.${freshId('')}/offboard`, {
        method: 'POST',
        headers: { cookie: admin.cookie!, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ reason: 'test' }),
      });
    const refused = await offboard({});
    expect(refused.status).toBe(403);
    expect((await offboard({ 'x-csrf-token': admin.csrfToken! })).status).toBe(200);

    // Thirty-one minutes without a request (SESSION_IDLE_MINUTES is 30): the session is over.
    await t
      .db('console_sessions')
      .where({ person_id: personIdOf(identity.settings.issuer, 'an.admin') })
      .whereNull('ended_at')
      .update({ last_seen_at: t.db.raw(`now() - interval '31 minutes'`) });
    expect((await fetch(`${t.api.baseUrl}/v1/me`, { headers: { cookie: admin.cookie! } })).status).toBe(401);
  });
});

describe('offboarding', () => {
  it('ends a person’s sessions, revokes the keys they own, and refuses their sign-in', async () => {
    const subject = 'hoa.payments';
    const personId = personIdOf(identity.settings.issuer, subject);
    const session = await signInToConsole(t.api.baseUrl, subject);
    expect(session.status).toBe(302);
    const { key } = await createApiKey(t.db, `integration of ${subject}`, ['payments'], {
      kind: 'person',
      id: personId,
    });
    const keyCall = () => fetch(`${t.api.baseUrl}/v1/me`, { headers: bearer(key) });
    expect((await keyCall()).status).toBe(200);

    const admin = await newKey(t.db, ['admin']);
    const offboarded = await fetch(`${t.api.baseUrl}/v1/people/${subject}/offboard`, {
      method: 'POST',
      headers: { ...bearer(admin), 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'left the company' }),
    });
    expect(offboarded.status).toBe(200);
    expect(await offboarded.json()).toMatchObject({ subject, sessionsEnded: 1 });

    expect((await keyCall()).status).toBe(401);
    expect((await fetch(`${t.api.baseUrl}/v1/me`, { headers: { cookie: session.cookie! } })).status).toBe(
      401,
    );
    const again = await signInToConsole(t.api.baseUrl, subject);
    expect(again.status).toBe(403);
    expect(again.cookie).toBeUndefined();
    // The Temporal UI's token of a removed person decodes nothing either.
    const token = await accessTokenFor(identity, subject);
    expect((await decode(await sealedStart(), bearer(token))).status).toBe(401);
  });

  it('a person removed from the provider cannot sign in', async () => {
    const subject = 'giang.remittance';
    expect((await signInToConsole(t.api.baseUrl, subject)).status).toBe(302);
    identity.remove(subject);
    const refused = await signInToConsole(t.api.baseUrl, subject);
    expect(refused.cookie).toBeUndefined();
    expect(refused.status).toBe(401);
  });
});
