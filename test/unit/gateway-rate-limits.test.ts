/** GATEWAY_RATE_LIMITS is read strictly: a limit that would silently do nothing stops the process. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config';
import { operationRateLimitsOf } from '../../workers/build';
import { payoutSettingsFrom } from '../../api/payouts/settings';

describe('GATEWAY_RATE_LIMITS', () => {
  it('reads operation=callsPerSecond pairs; unset or empty means no limit', () => {
    expect(
      loadConfig({ GATEWAY_RATE_LIMITS: 'subscription.pay=50, disbursement.pay=2.5' }).GATEWAY_RATE_LIMITS,
    ).toEqual({
      'subscription.pay': 50,
      'disbursement.pay': 2.5,
    });
    expect(loadConfig({}).GATEWAY_RATE_LIMITS).toEqual({});
    expect(loadConfig({ GATEWAY_RATE_LIMITS: '' }).GATEWAY_RATE_LIMITS).toEqual({});
  });

  it.each([
    ['subscription.pay', 'not operation=callsPerSecond'],
    ['subscription.pay=0', 'above 0'],
    ['subscription.pay=-1', 'not operation=callsPerSecond'],
    ['subscription.charge=5', 'not a gateway operation'],
    ['subscription.pay=5,subscription.pay=6', 'named twice'],
  ])('refuses %s', (value, problem) => {
    expect(() => loadConfig({ GATEWAY_RATE_LIMITS: value })).toThrow(problem);
  });

  it('refuses at worker start-up a gateway operation without a queue of its own', () => {
    const config = loadConfig({ GATEWAY_RATE_LIMITS: 'payment.query=5' });
    expect(() => operationRateLimitsOf(config)).toThrow(ConfigError);
    expect(operationRateLimitsOf(loadConfig({ GATEWAY_RATE_LIMITS: 'disbursement.pay=3' }))).toEqual({
      'disbursement.pay': 3,
    });
  });

  it("a limit on disbursement.pay keeps each payout on pay's queue; without one it is paid in the workflow task", () => {
    const inWorkflowTask = (limits?: string) =>
      payoutSettingsFrom(loadConfig(limits === undefined ? {} : { GATEWAY_RATE_LIMITS: limits })).disbursement
        .inWorkflowTask;
    expect(inWorkflowTask()).toBe(true);
    expect(inWorkflowTask('subscription.pay=50')).toBe(true);
    expect(inWorkflowTask('disbursement.pay=20')).toBe(false);
  });
});
