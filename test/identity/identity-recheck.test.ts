/**
 * A person removed at the provider loses access without anyone touching payrun: the console session is
 * refused once its recheck window has passed, the keys they own stop at the next sweep, their sign-in is
 * refused; a provider that is down changes nothing. payrun's own provider over real HTTP, nothing stubbed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../db/shared/api-keys';
import { personIdOf } from '../../db/identity/people';
import { RECHECK_ACTOR, sweepKeyOwners } from '../../api/identity/recheck';
import { createLogger } from '../../platform/logger';
import type { IdentityServer } from '../../platform/identity/server';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import {
  identityDependencies,
  prepareTestIdentity,
  signInToConsole,
  type TestIdentity,
} from '../support/identity';
import { eventually } from '../support/wait';

let identity: TestIdentity;
let provider: IdentityServer | undefined;
beforeAll(async () => {
  identity = await prepareTestIdentity();
  // A tiny window: every request more than a second after the last confirmation asks the provider again.
  identity.settings.recheckSeconds = 1;
});
const t = useApiOnDevServer({
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

const sweepDeps = () => ({ db: t.db, logger: createLogger('silent'), ...t.deps.identity! });
const me = (headers: Record<string, string>) => fetch(`${t.api.baseUrl}/v1/me`, { headers });
const ownedKey = async (subject: string, roles: string[]) =>
  (
    await createApiKey(t.db, `integration of ${subject}`, roles, {
      kind: 'person',
      id: personIdOf(identity.settings.issuer, subject),
    })
  ).key;
const personRow = (subject: string) =>
  t
    .db('people')
    .where({ person_id: personIdOf(identity.settings.issuer, subject) })
    .first();

describe('a person removed at the provider', () => {
  it('is refused on their session’s next request after the recheck window, with their keys, and cannot sign in', async () => {
    const subject = 'dung.billing';
    const session = await signInToConsole(t.api.baseUrl, subject);
    expect(session.status).toBe(302);
    const key = await ownedKey(subject, ['billing']);
    expect((await me({ cookie: session.cookie! })).status).toBe(200);
    expect((await me({ authorization: `Bearer ${key}` })).status).toBe(200);
    // Kept sealed at rest, never as the token itself.
    const kept = await personRow(subject);
    expect(kept.refresh_token_sealed).toMatch(/^[^.]+\.[A-Za-z0-9+/=]+$/);

    identity.remove(subject);

    await eventually(async () => expect((await me({ cookie: session.cookie! })).status).toBe(401));
    expect((await me({ authorization: `Bearer ${key}` })).status).toBe(401);
    expect((await signInToConsole(t.api.baseUrl, subject)).cookie).toBeUndefined();
    expect(await personRow(subject)).toMatchObject({ removed_by: RECHECK_ACTOR });
    const [entry] = await t
      .db('audit_log')
      .where({ action: 'person.offboard', target_id: subject, actor_key_id: RECHECK_ACTOR })
      .where('at', '>=', kept.first_seen_at);
    expect(entry).toMatchObject({ actor_name: RECHECK_ACTOR, outcome: 'succeeded' });
  });

  it('loses the keys they own at the next sweep, without any request of theirs', async () => {
    const subject = 'giang.remittance';
    expect((await signInToConsole(t.api.baseUrl, subject)).status).toBe(302);
    const key = await ownedKey(subject, ['remittance']);
    identity.remove(subject);
    await eventually(async () => {
      await sweepKeyOwners(sweepDeps());
      expect((await me({ authorization: `Bearer ${key}` })).status).toBe(401);
    });
    expect((await personRow(subject)).removed_by).toBe(RECHECK_ACTOR);
  });

  it('a person still at the provider is confirmed and keeps everything', async () => {
    const subject = 'chi.approver';
    const session = await signInToConsole(t.api.baseUrl, subject);
    const key = await ownedKey(subject, ['payouts-approver']);
    const before = (await personRow(subject)).rechecked_at as Date;
    await eventually(async () => {
      expect((await me({ cookie: session.cookie! })).status).toBe(200);
      await sweepKeyOwners(sweepDeps());
      expect(((await personRow(subject)).rechecked_at as Date).getTime()).toBeGreaterThan(before.getTime());
    });
    expect((await me({ authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await personRow(subject)).removed_at).toBeNull();
  });
});

describe('payrun’s own provider restarted', () => {
  it('forgets nobody: the refresh tokens it issued still confirm their people', async () => {
    // Not a subject another file offboards (offboarding by hand reaches every issuer's person of a subject).
    const subject = 'binh.maker';
    const session = await signInToConsole(t.api.baseUrl, subject);
    const key = await ownedKey(subject, ['payouts-maker']);
    const confirmed = (await personRow(subject)).rechecked_at as Date;
    await provider!.close();
    provider = await identity.start();

    await eventually(async () => {
      expect((await me({ cookie: session.cookie! })).status).toBe(200);
      expect(((await personRow(subject)).rechecked_at as Date).getTime()).toBeGreaterThan(
        confirmed.getTime(),
      );
    });
    expect((await sweepKeyOwners(sweepDeps())).removed).toBe(0);
    expect((await me({ authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await personRow(subject)).removed_at).toBeNull();
  });
});

describe('a provider that is down', () => {
  it('changes nothing: sessions and keys keep working past the recheck window, nobody is offboarded', async () => {
    const subject = 'lan.viewer';
    const session = await signInToConsole(t.api.baseUrl, subject);
    const key = await ownedKey(subject, ['viewer']);
    const confirmed = (await personRow(subject)).rechecked_at as Date;
    await provider!.close();
    provider = undefined;

    // The provider was asked (and could not answer) once the window had passed: the check moved on.
    await eventually(async () => {
      expect((await me({ cookie: session.cookie! })).status).toBe(200);
      expect(((await personRow(subject)).rechecked_at as Date).getTime()).toBeGreaterThan(
        confirmed.getTime(),
      );
    });
    const counts = await sweepKeyOwners(sweepDeps());
    expect(counts.removed).toBe(0);
    expect((await me({ authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await me({ cookie: session.cookie! })).status).toBe(200);
    expect((await personRow(subject)).removed_at).toBeNull();
  });
});
