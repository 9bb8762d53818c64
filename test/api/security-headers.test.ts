/** What every HTML page and every API answer carries, whichever route served it. */
import { describe, expect, it } from 'vitest';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { newKey } from '../support/api';

const api = useApiOnDevServer();

describe('security headers', () => {
  it('every HTML page forbids framing, sniffing and foreign scripts', async () => {
    for (const path of ['/docs', '/console', '/payments/return?orderId=x', '/no-such-page']) {
      const response = await fetch(`${api.api.baseUrl}${path}`);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('API answers with personal data are never stored by a browser or proxy', async () => {
    const viewer = await newKey(api.db, ['viewer']);
    for (const path of ['/v1/payout-runs', '/v1/disbursements', '/v1/payments', '/v1/remittances']) {
      const response = await fetch(`${api.api.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${viewer}` },
      });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});
