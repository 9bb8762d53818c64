/**
 * payrun's own provider for tests, and signing in through it as a browser would (redirects followed by
 * hand, cookies kept per host): the real protocol end to end, nothing stubbed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as oidc from 'openid-client';
import { freePort } from '../../scripts/cluster/readiness';
import { DEMO_PEOPLE, type DirectoryPerson, type PeopleDirectory } from '../../platform/identity/people';
import { startIdentityServer, type IdentityServer } from '../../platform/identity/server';
import { resolveProviderKeys, type ProviderKeys } from '../../platform/identity/signing-keys';
import { providerClient } from '../../api/identity/provider-client';
import type { IdentitySettings } from '../../api/identity/settings';
import { afterAll, beforeAll } from 'vitest';
import { testCodecKeyring } from './temporal';

export const TEST_PASSWORD = 'test-password-of-the-demo-people';
export const CONSOLE_CLIENT = { clientId: 'payrun-console', clientSecret: 'console-secret-for-tests' };
/** Stands in for the Temporal UI: a client that only wants the person's access token. */
export const UI_CLIENT = {
  clientId: 'temporal-ui',
  clientSecret: 'temporal-ui-secret-for-tests',
  redirectUri: 'http://127.0.0.1:9/auth/sso/callback',
};

export interface TestIdentity {
  keys: ProviderKeys;
  /** The people the provider knows now; `remove` takes one out, as an administrator of the provider would. */
  people: DirectoryPerson[];
  remove(subject: string): void;
  /** The API's settings; set `publicBaseUrl` to the API's address before `start`. */
  settings: IdentitySettings;
  /** Starts the provider, its console client registered at the API's `publicBaseUrl`. */
  start(): Promise<IdentityServer>;
}

/** The provider's settings, keys and people, before it listens (the API's port is not known yet). */
export async function prepareTestIdentity(): Promise<TestIdentity> {
  const people = DEMO_PEOPLE.map((person) => ({ ...person, groups: [...person.groups] }));
  const directory: PeopleDirectory = {
    find: (subject) => people.find((person) => person.subject === subject),
    list: () => [...people],
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-identity-'));
  const keys = await resolveProviderKeys(dataDir);
  const issuer = `http://127.0.0.1:${await freePort()}`;
  const settings: IdentitySettings = {
    issuer,
    ...CONSOLE_CLIENT,
    audience: 'urn:payrun:api',
    roleClaim: 'groups',
    roleMap: 'identity',
    idleSeconds: 1800,
    maxSeconds: 12 * 3600,
    recheckSeconds: 300,
    sweepSeconds: 900,
    publicBaseUrl: 'http://127.0.0.1:1',
    allowHttpIssuer: true,
  };
  return {
    keys,
    people,
    remove(subject) {
      const index = people.findIndex((person) => person.subject === subject);
      if (index >= 0) people.splice(index, 1);
    },
    settings,
    start: () =>
      startIdentityServer({
        host: '127.0.0.1',
        port: Number(new URL(issuer).port),
        issuer,
        audience: settings.audience,
        directory,
        password: TEST_PASSWORD,
        keys,
        // As deployed: started again after `close()`, the provider still knows the refresh tokens it issued.
        tokenFile: path.join(dataDir, 'identity-tokens.json'),
        clients: [
          {
            ...CONSOLE_CLIENT,
            redirectUris: [new URL('/auth/callback', settings.publicBaseUrl).href],
            postLogoutRedirectUris: [new URL('/console', settings.publicBaseUrl).href],
          },
          { ...UI_CLIENT, redirectUris: [UI_CLIENT.redirectUri] },
        ],
      }),
  };
}

/** A cookie jar per host, enough for the provider's and payrun's cookies. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookie(host: string, name: string): string | undefined {
    return this.jars.get(host)?.get(name);
  }

  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.jars.get(target.host) ?? new Map<string, string>();
    this.jars.set(target.host, jar);
    const response = await fetch(target, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        ...(jar.size ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value.join('=') === '') jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
    return response;
  }

  /** Follows redirects until `stop` says the address is where we wanted to land (or no redirect is left). */
  async follow(url: string, stop: (url: string) => boolean): Promise<{ url: string; response: Response }> {
    let current = url;
    for (let hop = 0; hop < 12; hop++) {
      const response = await this.go(current);
      const location = response.headers.get('location');
      if (!location || stop(current)) return { url: current, response };
      current = new URL(location, current).href;
      if (stop(current)) return { url: current, response };
    }
    throw new Error(`Too many redirects from ${url}`);
  }
}

/** At the provider's sign-in page (`interactionUrl`): submits the person and password, returns where it leads. */
export async function submitSignIn(
  browser: Browser,
  interactionUrl: string,
  subject: string,
  password: string,
) {
  const page = await browser.go(interactionUrl);
  const html = await page.text();
  const action = /action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`No sign-in form at ${interactionUrl}: ${page.status} ${html.slice(0, 300)}`);
  return browser.go(new URL(action, interactionUrl).href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ subject, password }).toString(),
  });
}

export interface ConsoleSignIn {
  /** The status of payrun's callback: 302 to /console when signed in. */
  status: number;
  body: string;
  cookie?: string;
  csrfToken?: string;
}

/** Signs in to the console through the provider as `subject`, like a browser. */
export async function signInToConsole(
  apiBaseUrl: string,
  subject: string,
  password = TEST_PASSWORD,
): Promise<ConsoleSignIn> {
  const browser = new Browser();
  const atProvider = await browser.follow(`${apiBaseUrl}/auth/login`, (url) => url.includes('/interaction/'));
  const submitted = await submitSignIn(browser, atProvider.url, subject, password);
  const next = submitted.headers.get('location');
  if (!next) return { status: submitted.status, body: await submitted.text() };
  const landed = await browser.follow(new URL(next, atProvider.url).href, (url) =>
    url.startsWith(`${apiBaseUrl}/auth/callback`),
  );
  const callback = await browser.go(landed.url);
  const host = new URL(apiBaseUrl).host;
  const cookie = browser.cookie(host, 'payrun_session');
  if (!cookie) return { status: callback.status, body: await callback.text() };
  const session = (await (await browser.go(`${apiBaseUrl}/auth/session`)).json()) as { csrfToken: string };
  return {
    status: callback.status,
    body: '',
    cookie: `payrun_session=${cookie}`,
    csrfToken: session.csrfToken,
  };
}

/** The access token the Temporal UI would hold for `subject` (authorization code + PKCE, as the UI does). */
export async function accessTokenFor(identity: TestIdentity, subject: string): Promise<string> {
  const configuration = await oidc.discovery(
    new URL(identity.settings.issuer),
    UI_CLIENT.clientId,
    undefined,
    oidc.ClientSecretBasic(UI_CLIENT.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const browser = new Browser();
  const start = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: UI_CLIENT.redirectUri,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const atProvider = await browser.follow(start.href, (url) => url.includes('/interaction/'));
  const submitted = await submitSignIn(browser, atProvider.url, subject, TEST_PASSWORD);
  const landed = await browser.follow(
    new URL(submitted.headers.get('location')!, atProvider.url).href,
    (url) => url.startsWith(UI_CLIENT.redirectUri),
  );
  const tokens = await oidc.authorizationCodeGrant(configuration, new URL(landed.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  return tokens.access_token;
}

/** The API's client of the test provider, for ApiDependencies.identity. */
export const identityDependencies = (identity: TestIdentity) => ({
  settings: identity.settings,
  provider: providerClient(identity.settings),
  keyring: testCodecKeyring,
});

/**
 * The provider a test file's people sign in through (payrun's own, in this process), in two steps around
 * the stack: made before it (the stack's API reads `dependencies` when it is built), started once the API
 * listens (`startFor`: the provider's redirect addresses are the API's). Closed after the file.
 */
export function useTestProvider() {
  let identity: TestIdentity | undefined;
  let provider: IdentityServer | undefined;
  beforeAll(async () => {
    identity = await prepareTestIdentity();
  });
  afterAll(async () => {
    await provider?.close();
  });
  const prepared = () => {
    if (!identity) throw new Error('the test provider is not prepared yet: call useTestProvider() first');
    return identity;
  };
  return {
    get dependencies() {
      return identityDependencies(prepared());
    },
    startFor(apiBaseUrl: () => string) {
      beforeAll(async () => {
        prepared().settings.publicBaseUrl = apiBaseUrl();
        provider = await prepared().start();
      });
    },
  };
}

/**
 * `page.goto`, again if a navigation the page had started itself took over (a sign-out that a test just
 * clicked still going through the provider's end-session page and back): the goto's target is where the
 * test means to be, once that navigation has landed.
 */
async function gotoAfterPendingNavigation(page: import('playwright-core').Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await page.goto(url);
      return;
    } catch (error) {
      if (attempt >= 3 || !/interrupted by another navigation/.test(String(error))) throw error;
      await page.waitForLoadState('load');
    }
  }
}

/**
 * In a browser page: from the console's sign-in page through the provider's sign-in form and back,
 * signed in as `subject`. The one sign-in of the console's browser tests.
 */
export async function signInThroughProvider(
  page: import('playwright-core').Page,
  apiBaseUrl: string,
  subject: string,
  password = TEST_PASSWORD,
): Promise<void> {
  await gotoAfterPendingNavigation(page, `${apiBaseUrl}/console#/sign-in`);
  await page.locator('#sign-in-provider').click();
  await page.locator('select#subject').selectOption(subject);
  await page.locator('input#password').fill(password);
  await page.locator('button#sign-in').click();
  await page.waitForURL(`${apiBaseUrl}/console**`);
  await page.locator('#signed-in-name').waitFor();
}
