/**
 * The console's sign-in through the identity provider in a real Chromium, in both languages: the sign-in
 * page offers the company account, the provider's form signs the person in, the console shows their name
 * and the pages of their role, and signing out ends the session at payrun and at the provider.
 * Screenshots: test-output/screenshots/console-sign-in-<language>.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { IdentityServer } from '../../platform/identity/server';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import {
  identityDependencies,
  prepareTestIdentity,
  signInThroughProvider,
  type TestIdentity,
} from '../support/identity';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-output/screenshots';

let identity: TestIdentity;
let provider: IdentityServer;
let browser: Browser;
beforeAll(async () => {
  identity = await prepareTestIdentity();
});
const t = useApiOnDevServer({
  console: { temporalUiUrl: 'http://127.0.0.1:8233', namespace: 'default' },
  get identity() {
    return identityDependencies(identity);
  },
});
beforeAll(async () => {
  identity.settings.publicBaseUrl = t.api.baseUrl;
  provider = await identity.start();
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run bash scripts/install-browser.sh`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  fs.mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await provider?.close();
});

describe('signing in to the console through the identity provider', () => {
  for (const language of ['vi', 'en'] as const) {
    it(`signs in and out in ${language === 'vi' ? 'Vietnamese' : 'English'}`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`${t.api.baseUrl}/console#/sign-in`);
      if (language === 'en') await page.locator('#language').selectOption('en');
      const button = page.locator('#sign-in-provider');
      await expect
        .poll(() => button.innerText())
        .toBe(language === 'vi' ? 'Đăng nhập bằng tài khoản công ty' : 'Sign in with your company account');
      await page.screenshot({ path: path.join(SHOTS, `console-sign-in-${language}.png`), fullPage: true });

      await signInThroughProvider(page, t.api.baseUrl, 'chi.approver');
      await expect.poll(() => page.locator('#signed-in-name').textContent()).toBe('Phạm Minh Chi');
      // The session is a cookie the page cannot read; no key was ever put in the browser.
      const cookie = (await context.cookies()).find((each) => each.name === 'payrun_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(await page.evaluate('JSON.stringify(sessionStorage)')).toBe('{}');

      await page.locator('#sign-out').click();
      await page.waitForURL(`${t.api.baseUrl}/console**`);
      await page.locator('#sign-in-provider').waitFor();
      const me = await fetch(`${t.api.baseUrl}/v1/me`, {
        headers: { cookie: `payrun_session=${cookie!.value}` },
      });
      expect(me.status).toBe(401);
      await context.close();
    });
  }
});
