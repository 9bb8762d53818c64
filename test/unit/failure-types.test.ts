/**
 * One casing for failure types (PascalCase), with the API's snake_case error codes mapped explicitly;
 * refusals from workers that predate the rule still read as today's types.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_FAILURE_TYPES } from '../../activities/shared/gateway-calls';
import { BINDING_REFUSED, OTP_FAILURE, OTP_REFUSAL_TYPE } from '../../contracts/saved-methods';
import { failureTypeOf } from '../../contracts/shared';
import { CONFIRM_REFUSED } from '../../contracts/payments';
import { SUBSCRIPTION_REFUSED } from '../../contracts/subscriptions';
import { WEBHOOK_REFUSED, WEBHOOK_URL_REFUSED } from '../../contracts/events';

const PASCAL = /^[A-Z][a-zA-Z]+$/;
const root = path.resolve(__dirname, '..', '..');
const sources = ['workflows', 'activities', 'api', 'gateway'].flatMap((folder) =>
  fs
    .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(folder, file)),
);

describe('failure types', () => {
  it('every declared one is PascalCase', () => {
    const declared = [
      ...GATEWAY_FAILURE_TYPES,
      ...Object.values(OTP_FAILURE),
      BINDING_REFUSED,
      CONFIRM_REFUSED,
      SUBSCRIPTION_REFUSED,
      WEBHOOK_REFUSED,
      WEBHOOK_URL_REFUSED,
    ];
    expect(declared.filter((type) => !PASCAL.test(type))).toEqual([]);
  });

  it('every literal one raised in the code is PascalCase', () => {
    const raised = sources.flatMap((file) =>
      [
        ...fs
          .readFileSync(path.join(root, file), 'utf8')
          .matchAll(
            /ApplicationFailure\.(?:nonRetryable|retryable|create)\(\s*(?:`[^`]*`|'[^']*'|[\w.]+)\s*,\s*'([^']+)'/g,
          ),
      ].map((match) => `${file}: ${match[1]}`),
    );
    expect(raised.length).toBeGreaterThan(5);
    expect(raised.filter((entry) => !PASCAL.test(entry.split(': ')[1]!))).toEqual([]);
  });

  it('an earlier worker’s snake_case type reads as today’s; other types pass unchanged', () => {
    expect(failureTypeOf({ type: 'otp_wrong' })).toBe(OTP_FAILURE.wrong);
    expect(failureTypeOf({ type: 'payment_not_authorized' })).toBe(CONFIRM_REFUSED);
    expect(failureTypeOf({ type: 'subscription_refused' })).toBe(SUBSCRIPTION_REFUSED);
    expect(failureTypeOf({ type: 'binding_refused' })).toBe(BINDING_REFUSED);
    for (const [reason, type] of Object.entries(OTP_REFUSAL_TYPE))
      expect(failureTypeOf({ type: reason })).toBe(type);
    expect(failureTypeOf({ type: OTP_FAILURE.locked })).toBe(OTP_FAILURE.locked);
    expect(failureTypeOf({ type: 'GatewayRejected' })).toBe('GatewayRejected');
    expect(failureTypeOf(undefined)).toBeUndefined();
  });
});
