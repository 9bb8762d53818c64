import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config';
import { webhookSettingsFrom } from '../../api/events/webhook-settings';
import { signWebhook, verifyWebhook, type VerifyOptions } from '../../platform/webhook-signature';
import { webhookUrlProblem } from '../../platform/webhook-url';

/** Why a request was refused, or 'ok'. */
const verdict = (options: VerifyOptions) => {
  const result = verifyWebhook(options);
  return result.ok ? 'ok' : result.reason;
};

describe('webhook signatures (the integrators helper)', () => {
  const body = '{"id":"evt_1","type":"payment.succeeded"}';
  const now = 1_800_000_000_000;
  const header = signWebhook(body, ['whsec_a'], now / 1000);

  it('accepts what was signed, within the replay window', () => {
    expect(verifyWebhook({ body, header, secrets: 'whsec_a', now })).toEqual({
      ok: true,
      timestamp: now / 1000,
    });
    expect(
      verifyWebhook({ body: Buffer.from(body), header, secrets: ['whsec_old', 'whsec_a'], now }).ok,
    ).toBe(true);
    expect(verifyWebhook({ body, header, secrets: 'whsec_a', now: now + 299_000 }).ok).toBe(true);
  });

  it('refuses another body, another secret, a replay outside the window and a malformed header', () => {
    expect(verifyWebhook({ body: body.replace('evt_1', 'evt_2'), header, secrets: 'whsec_a', now })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verdict({ body, header, secrets: 'whsec_b', now })).toBe('signature_mismatch');
    expect(verdict({ body, header, secrets: 'whsec_a', now: now + 301_000 })).toBe('outside_replay_window');
    expect(verifyWebhook({ body, header, secrets: 'whsec_a', now, toleranceSeconds: 60 }).ok).toBe(true);
    // The timestamp is signed: moving it forward breaks the signature.
    const moved = header.replace(/t=\d+/, `t=${now / 1000 + 10}`);
    expect(verdict({ body, header: moved, secrets: 'whsec_a', now })).toBe('signature_mismatch');
    for (const bad of [undefined, '', 'v1=abc', `t=x,${header.split(',')[1]}`, `t=${now / 1000}`])
      expect(verdict({ body, header: bad, secrets: 'whsec_a', now })).toBe('malformed_header');
  });

  it('signs once per live secret during a rotation', () => {
    const both = signWebhook(body, ['whsec_new', 'whsec_old'], now / 1000);
    expect(both.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook({ body, header: both, secrets: 'whsec_old', now }).ok).toBe(true);
    expect(verifyWebhook({ body, header: both, secrets: 'whsec_new', now }).ok).toBe(true);
  });
});

describe('webhook URLs', () => {
  const production = { allowLoopbackHttp: false };
  const development = { allowLoopbackHttp: true };

  it('takes https to a public host', () => {
    expect(webhookUrlProblem('https://erp.example.com/payrun', production)).toBeUndefined();
    expect(webhookUrlProblem('https://203.0.113.7:8443/hook', production)).toBeUndefined();
  });

  it('refuses http, other schemes, credentials, fragments and internal addresses in production', () => {
    for (const url of [
      'http://erp.example.com/payrun',
      'ftp://erp.example.com',
      'https://user:pw@erp.example.com/',
      'https://erp.example.com/#x',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://172.20.0.1/hook',
      'https://192.168.0.5/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://[fd00::1]/hook',
      'not a url',
      `https://example.com/${'a'.repeat(2100)}`,
    ])
      expect(webhookUrlProblem(url, production), url).toBeDefined();
  });

  it('lets http reach loopback only when development allows it', () => {
    expect(webhookUrlProblem('http://127.0.0.1:4000/hook', development)).toBeUndefined();
    expect(webhookUrlProblem('http://localhost:4000/hook', development)).toBeUndefined();
    expect(webhookUrlProblem('http://[::1]:4000/hook', development)).toBeUndefined();
    expect(webhookUrlProblem('http://127.0.0.1:4000/hook', production)).toBeDefined();
    expect(webhookUrlProblem('http://erp.example.com/hook', development)).toBeDefined();
    expect(webhookUrlProblem('http://10.0.0.2/hook', development)).toBeDefined();
  });

  it('reads WEBHOOK_ALLOW_LOOPBACK_HTTP as true or false, off by default, naming a bad value', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_LOOPBACK_HTTP).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' }).WEBHOOK_ALLOW_LOOPBACK_HTTP).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: '' }).WEBHOOK_ALLOW_LOOPBACK_HTTP).toBe(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'yes' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK_HTTP/);
    const keyring = { currentKeyId: 'k', keys: new Map([['k', Buffer.alloc(32)]]) };
    const settings = webhookSettingsFrom(loadConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' }), keyring);
    expect(settings).toMatchObject({
      allowLoopbackHttp: true,
      taskQueue: 'payrun',
      timing: { retryWindow: '3 days' },
    });
  });
});
