/**
 * One error vocabulary: every failure type a workflow or an activity raises is a code of the catalogue
 * (contracts/shared/errors.ts), the same name the API answers; types of earlier workers read as today's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_FAILURE_TYPES } from '../../activities/shared/gateway-calls';
import { BINDING_REFUSED, OTP_FAILURE, OTP_REFUSAL_TYPE } from '../../contracts/saved-methods';
import { ERRORS, earlierTypesOf, failureTypeOf, isErrorCode } from '../../contracts/shared';
import { CONFIRM_REFUSED } from '../../contracts/payments';
import { SUBSCRIPTION_REFUSED } from '../../contracts/subscriptions';
import { WEBHOOK_REFUSED, WEBHOOK_URL_REFUSED } from '../../contracts/events';

const root = path.resolve(__dirname, '..', '..');
const sources = ['workflows', 'activities', 'api', 'gateway'].flatMap((folder) =>
  fs
    .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(folder, file)),
);

describe('one error vocabulary', () => {
  it('every declared failure type is a catalogue code', () => {
    const declared = [
      ...GATEWAY_FAILURE_TYPES,
      ...Object.values(OTP_FAILURE),
      BINDING_REFUSED,
      CONFIRM_REFUSED,
      SUBSCRIPTION_REFUSED,
      WEBHOOK_REFUSED,
      WEBHOOK_URL_REFUSED,
    ];
    expect(declared.filter((type) => !isErrorCode(type))).toEqual([]);
  });

  it('every literal failure type raised in the code is a catalogue code', () => {
    const raised = sources.flatMap((file) =>
      [
        ...fs
          .readFileSync(path.join(root, file), 'utf8')
          .matchAll(
            /ApplicationFailure\.(?:nonRetryable|retryable|create)\(\s*(?:`[^`]*`|'[^']*'|[\w.]+)\s*,\s*'([^']+)'/g,
          ),
      ].map((match) => ({ file, type: match[1]! })),
    );
    expect(raised.length).toBeGreaterThan(5);
    expect(raised.filter(({ type }) => !isErrorCode(type))).toEqual([]);
  });

  it('every code has a status the API can answer and words for people', () => {
    for (const [code, { status, meaning }] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      for (const each of typeof status === 'number' ? [status] : status) {
        expect(each).toBeGreaterThanOrEqual(400);
        expect(each).toBeLessThan(600);
      }
      expect(meaning.length).toBeGreaterThan(10);
    }
  });

  it('earlier workers’ types read as today’s codes; codes pass unchanged', () => {
    expect(failureTypeOf({ type: 'OtpWrong' })).toBe(OTP_FAILURE.wrong);
    expect(failureTypeOf({ type: 'PaymentNotAuthorized' })).toBe(CONFIRM_REFUSED);
    expect(failureTypeOf({ type: 'SubscriptionRefused' })).toBe(SUBSCRIPTION_REFUSED);
    expect(failureTypeOf({ type: 'BindingRefused' })).toBe(BINDING_REFUSED);
    expect(failureTypeOf({ type: 'GatewayRejected' })).toBe('gateway_rejected');
    expect(failureTypeOf({ type: 'WebhookUrlRefused' })).toBe(WEBHOOK_URL_REFUSED);
    for (const type of Object.values(OTP_REFUSAL_TYPE)) expect(failureTypeOf({ type })).toBe(type);
    expect(failureTypeOf({ type: 'otp_locked' })).toBe('otp_locked');
    expect(failureTypeOf(undefined)).toBeUndefined();
    expect(earlierTypesOf('webhook_url_refused')).toEqual(['WebhookUrlRefused']);
  });
});
