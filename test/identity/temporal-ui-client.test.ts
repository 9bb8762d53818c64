/**
 * The Temporal UI signs people in at payrun's own provider as the UI server v2.42 does: authorization
 * code with state and nonce, no PKCE, its secret sent from its server. The provider started the way the
 * cluster and compose start it (configuration alone) must register that client, hand it a JWT access
 * token for payrun's audience carrying the person's groups (what the codec decodes by), and still refuse
 * the console's client without PKCE.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config';
import { launchIdentity, temporalUiClient, type LaunchedIdentity } from '../../platform/identity/launch';
import { freePort } from '../../scripts/cluster/readiness';
import { Browser, submitSignIn } from '../support/identity';

const UI_URL = 'http://127.0.0.1:9';
const UI_SECRET = 'temporal-ui-secret-of-this-test';
const PASSWORD = 'password-of-this-test-people';

let launched: LaunchedIdentity;

beforeAll(async () => {
  const port = await freePort();
  const config = loadConfig({
    PAYRUN_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-ui-client-')),
    IDENTITY_PORT: String(port),
    OIDC_ISSUER: `http://127.0.0.1:${port}`,
    OIDC_CLIENT_SECRET: 'console-secret-of-this-test',
    IDENTITY_DEMO_PASSWORD: PASSWORD,
    IDENTITY_TEMPORAL_UI_CLIENT_SECRET: UI_SECRET,
    TEMPORAL_UI_URL: UI_URL,
  });
  const client = temporalUiClient(config);
  launched = await launchIdentity(config, {
    host: '127.0.0.1',
    apiBaseUrl: 'http://127.0.0.1:1',
    extraClients: client ? [client] : [],
  });
});

afterAll(() => launched?.close());

/** What the UI server does: to the authorization endpoint without PKCE, sign in, back with a code. */
async function codeWithoutPkce(clientId: string, redirectUri: string, subject: string) {
  const browser = new Browser();
  const start = new URL(`${launched.issuer}/auth`);
  start.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile email',
    state: 'state-of-the-ui',
    nonce: 'nonce-of-the-ui',
  }).toString();
  const atProvider = await browser.follow(
    start.href,
    (url) => url.includes('/interaction/') || url.startsWith(redirectUri),
  );
  if (atProvider.url.startsWith(redirectUri)) return new URL(atProvider.url);
  const submitted = await submitSignIn(browser, atProvider.url, subject, PASSWORD);
  const landed = await browser.follow(
    new URL(submitted.headers.get('location')!, atProvider.url).href,
    (url) => url.startsWith(redirectUri),
  );
  return new URL(landed.url);
}

describe("the Temporal UI's client at payrun's own provider", () => {
  it('signs the viewer in without PKCE and gets a JWT access token for payrun, carrying her groups', async () => {
    const callback = await codeWithoutPkce('temporal-ui', `${UI_URL}/auth/sso/callback`, 'lan.viewer');
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('state')).toBe('state-of-the-ui');
    const tokens = await fetch(`${launched.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`temporal-ui:${UI_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: `${UI_URL}/auth/sso/callback`,
      }).toString(),
    });
    expect(tokens.status).toBe(200);
    const body = (await tokens.json()) as { access_token: string; id_token: string };
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ sub: 'lan.viewer', aud: 'urn:payrun:api', groups: ['viewer'] });
    expect(decodeJwt(body.id_token).nonce).toBe('nonce-of-the-ui');
  });

  it("still refuses the console's client an authorization without PKCE", async () => {
    const callback = await codeWithoutPkce(
      'payrun-console',
      'http://127.0.0.1:1/auth/callback',
      'lan.viewer',
    );
    expect(callback.searchParams.get('code')).toBeNull();
    expect(callback.searchParams.get('error')).toBe('invalid_request');
  });
});
