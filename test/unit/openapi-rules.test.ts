/**
 * The OpenAPI document states the rules the API enforces, so a client (or schemathesis) can build a
 * request the API accepts: no control characters in text, exactly one receiver with its amount range,
 * amount ranges per requestType, the required Idempotency-Key, strict bodies, every refusal by status.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { beyondSchema, invalidInput } from '../../api/http/errors';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { buildOpenApiDocument, NO_CONTROL_CHARACTERS } from '../../api/http/openapi';
import { DISBURSEMENT_AMOUNT_RANGES, PAYMENT_AMOUNT_RANGES } from '../../gateway/limits';
import { EVENT_TYPES } from '../../platform/event-catalogue';
import { PUBLIC_HOST, URL_SYNTAX, webhookUrlProblem } from '../../platform/webhook-url';
import { listQuery } from '../../api/http/list-query';
import { maxUserIdLength, RESERVED_ENDINGS_PATTERN, reservedEndingOf } from '../../gateway/ids';
import { testApiSettings, testMerchant } from '../support/settings';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document: any = buildOpenApiDocument(
  apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies),
  'test',
);
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const bodyOf = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema;

describe('the OpenAPI document states the real rules', () => {
  it('text without control characters, everywhere text is taken', () => {
    const pattern = new RegExp(NO_CONTROL_CHARACTERS);
    expect(pattern.test('tab\tand\nlines')).toBe(true);
    expect(pattern.test('a\u0000b')).toBe(false);
    expect(bodyOf('/v1/disbursements').properties.description.pattern).toBe(NO_CONTROL_CHARACTERS);
    const methodId = document.paths['/v1/saved-methods/{methodId}'].delete.parameters[0];
    expect(methodId.schema.pattern).toBe(NO_CONTROL_CHARACTERS);
  });

  it('a disbursement: exactly one receiver, the amount range of its kind, one bank number', () => {
    const body = bodyOf('/v1/disbursements');
    expect(body.additionalProperties).toBe(false);
    expect(body.oneOf).toEqual([
      expect.objectContaining({
        required: ['wallet'],
        properties: {
          amount: {
            minimum: DISBURSEMENT_AMOUNT_RANGES.disburseToWallet[0],
            maximum: DISBURSEMENT_AMOUNT_RANGES.disburseToWallet[1],
          },
        },
      }),
      expect.objectContaining({ required: ['bank'], not: { required: ['wallet'] } }),
    ]);
    expect(body.properties.bank.oneOf).toHaveLength(2);
  });

  it('a payment: the amount range of each requestType', () => {
    const variants = bodyOf('/v1/payments').oneOf as Array<{
      properties: { requestType: { const: string }; amount: { minimum: number; maximum: number } };
    }>;
    expect(variants.length).toBeGreaterThan(5);
    for (const variant of variants) {
      const range =
        PAYMENT_AMOUNT_RANGES[variant.properties.requestType.const as keyof typeof PAYMENT_AMOUNT_RANGES];
      expect(variant.properties.amount).toMatchObject({ minimum: range[0], maximum: range[1] });
    }
  });

  it('event types from the catalogue; the Idempotency-Key required where the API requires it', () => {
    const type = document.paths['/v1/events'].get.parameters.find((p: { name: string }) => p.name === 'type');
    expect(type.schema.enum).toEqual(EVENT_TYPES);
    const key = (path: string) =>
      document.paths[path].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
    expect(key('/v1/remittances')).toMatchObject({ required: true, schema: { pattern: '^[\\x21-\\x7e]+$' } });
    expect(key('/v1/payments/{paymentId}/refunds').required).toBe(true);
    expect(key('/v1/disbursements').required).toBe(false);
  });

  it('every refusal by status, and pages by their own content type', () => {
    const responses = document.paths['/v1/remittances'].post.responses;
    for (const status of ['400', '401', '403', '404', '409', '413', '422', '429'])
      expect(responses[status]).toBeDefined();
    const page = document.paths['/payments/return'].get.responses;
    expect(Object.keys(page['200'].content)).toEqual(['text/html']);
    expect(Object.keys(page['400'].content)).toEqual(['text/html']);
    expect(page['401']).toBeUndefined();
  });

  it("caller-supplied ids: the gateway's orderId pattern, the kind's length, and no ending payrun derives ids with", () => {
    const fields = {
      payment: (bodyOf('/v1/payments').oneOf as Array<{ properties: { paymentId: unknown } }>)[0]!.properties
        .paymentId,
      disbursement: bodyOf('/v1/disbursements').properties.disbursementId,
      subscription: bodyOf('/v1/subscriptions').properties.subscriptionId,
      saved_method_payment: bodyOf('/v1/saved-method-payments').properties.paymentId,
    } as const;
    for (const [kind, field] of Object.entries(fields) as Array<[keyof typeof fields, unknown]>)
      expect(field, kind).toMatchObject({
        minLength: 1,
        maxLength: maxUserIdLength(kind),
        pattern: '^[0-9a-zA-Z]([-_.]*[0-9a-zA-Z]+)*$',
        not: { pattern: RESERVED_ENDINGS_PATTERN },
      });
    // The document's pattern refuses exactly the ids the API refuses for their ending.
    const reserved = new RegExp(RESERVED_ENDINGS_PATTERN);
    for (const id of [
      'acme-c1',
      'acme-c12-r1',
      'x-m3',
      'INV-7-r2',
      'run-b001',
      'r-verify',
      'r-buy',
      'b-del',
      'd-chk',
    ])
      expect([id, reserved.test(id), reservedEndingOf(id) !== undefined]).toEqual([id, true, true]);
    for (const id of ['acme', 'acme-c', 'acme-c1x', 'x-m', 'INV-7', 'r-verify2', 'd_chk', 'd-q0123456789a'])
      expect([id, reserved.test(id), reservedEndingOf(id) !== undefined]).toEqual([id, false, false]);
  });

  it('a payout file: one entry per media type it may be, text or a workbook', () => {
    for (const path of ['/v1/payout-runs', '/v1/payout-runs/dry-run'])
      expect(document.paths[path].post.requestBody.content).toEqual({
        'text/csv': { schema: { type: 'string', minLength: 1 } },
        [XLSX_TYPE]: { schema: { type: 'string', format: 'binary', minLength: 1 } },
      });
  });

  it('days: the pattern takes exactly the days the check takes', () => {
    const from = document.paths['/v1/payout-runs'].get.parameters.find(
      (p: { name: string }) => p.name === 'from',
    );
    expect(from.schema.format).toBe('date');
    const pattern = new RegExp(from.schema.pattern);
    const expiry = bodyOf('/v1/subscriptions').properties.subscriptionInfo.properties.expiryDate;
    expect(expiry.pattern).toBe(from.schema.pattern);
    for (const year of [0, 1, 99, 100, 400, 1900, 2000, 2024, 2025, 2100, 2400, 9999])
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++) {
          const text = [String(year).padStart(4, '0'), month, day]
            .map((part) => String(part).padStart(2, '0'))
            .join('-');
          expect(pattern.test(text), text).toBe(listQuery.shape.from.safeParse(text).success);
        }
  });

  it('webhook URLs: what the pattern allows the API takes (or refuses 422 for its host), the rest is 400', () => {
    const url = bodyOf('/v1/webhook-endpoints').properties.url;
    const pattern = new RegExp(url.pattern);
    const policy = { allowLoopbackHttp: false };
    for (const text of [
      'https://erp.example.com/payrun?token=a*b',
      'https://203.0.113.7:8443/hook',
      'https://A.EXAMPLE.COM:65535/x/y;z/%zz',
      'https://10.1.2.3/hook',
      'https://localhost/hook',
    ]) {
      expect(pattern.test(text), text).toBe(true);
      expect(() => new URL(text)).not.toThrow();
    }
    expect(webhookUrlProblem('https://10.1.2.3/hook', policy)).toBe(PUBLIC_HOST);
    for (const text of [
      'http://erp.example.com/hook',
      'https://xn--a.com/',
      'https://a.123/',
      'https://a.com:65536/',
      'https://user@a.com/',
      'https://a.com/#x',
      'https://[2001:db8::1]/',
      'https://a .com/',
    ]) {
      expect(pattern.test(text), text).toBe(false);
      expect(webhookUrlProblem(text, policy), text).toBe(URL_SYNTAX);
    }
  });
});

describe('a rule the document cannot state', () => {
  const schema = z
    .object({ amount: z.number().int(), items: z.array(z.number().int()) })
    .superRefine((body, context) => {
      const sum = body.items.reduce((total, item) => total + item, 0);
      if (sum !== body.amount)
        context.addIssue({
          code: 'custom',
          path: ['items'],
          message: `items add up to ${sum}`,
          params: beyondSchema('sum_of_items'),
        });
    });
  const refusal = (value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? undefined : invalidInput('body', result.error.issues);
  };

  it('answers 422 naming field and rule when the request satisfies the document but breaks only such a rule', () => {
    expect(refusal({ amount: 10, items: [3, 4] })).toMatchObject({
      status: 422,
      code: 'invalid_request',
      problems: [{ field: 'body.items', rule: 'sum_of_items' }],
    });
  });

  it('answers 400 when the request breaks the document itself', () => {
    expect(refusal({ amount: 'ten', items: [3, 4] })).toMatchObject({ status: 400 });
  });
});
