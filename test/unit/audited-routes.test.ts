/**
 * Every route a person calls to change something declares its audit action, so the mount records it
 * (`requested` before acting, completed before answering). The exceptions are named: the gateway's
 * notifications (public, signed, not a person's action), the payout dry run and the price-change previews
 * (they validate and compute, changing nothing).
 */
import { describe, expect, it } from 'vitest';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { testApiSettings, testMerchant } from '../support/settings';

const routes = apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies);
const CHANGES_NOTHING = [
  'POST /v1/payout-runs/dry-run',
  'POST /v1/plans/:planId/price-changes/preview',
  'POST /v1/subscriptions/:subscriptionId/price-changes/preview',
];

describe('audited routes', () => {
  it('every mutating route a person calls declares its audit action', () => {
    const unaudited = routes
      .filter((route) => route.method !== 'get' && 'roles' in route.access && !route.audit)
      .map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(unaudited).toEqual(CHANGES_NOTHING);
  });
});
