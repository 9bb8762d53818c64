import { describe, expect, it } from 'vitest';
import {
  createGatewayClient,
  encryptedFields,
  notificationSpecs,
  operationForRequest,
  operationNames,
  operations,
  operationSpec,
  decryptRequestFields,
  validateRequest,
  verifySignature,
  type NotificationKind,
} from '../../gateway';
import { sampleContexts, samples, TEST_KEYS, testKeyPair } from './support/samples';

const SENSITIVE_ENCRYPTED = ['paymentCode', 'token', 'receiver', 'disbursementMethod'];
const keyPair = testKeyPair();
const client = createGatewayClient({
  baseUrl: 'http://gateway.invalid',
  partnerCode: 'MOMO',
  ...TEST_KEYS,
  gatewayPublicKey: keyPair.publicKey,
});

describe('operation table', () => {
  it.each(operationNames)('%s is complete and consistent', (name) => {
    const spec = operationSpec(name);
    expect(spec.path.startsWith('/v2/gateway/')).toBe(true);
    expect(spec.signed).toContain('accessKey');
    expect([...spec.signed]).toEqual([...spec.signed].sort());
    for (const field of spec.signed)
      if (field !== 'accessKey') expect(Object.keys(spec.request)).toContain(field);
    for (const field of spec.response.signed ?? []) {
      if (field !== 'accessKey') expect(Object.keys(spec.response.fields)).toContain(field);
    }
    expect(spec.request.requestId?.required).toBe(true);
    expect(spec.request.partnerCode?.required).toBe(true);
    expect(spec.timeoutMs).toBeGreaterThanOrEqual(10_000);
    for (const field of encryptedFields(name)) expect(SENSITIVE_ENCRYPTED).toContain(field);
    if (spec.notification) expect(Object.keys(notificationSpecs)).toContain(spec.notification);
  });

  it.each(operationNames)(
    '%s: the sample request passes validation and becomes a signed, encrypted body',
    (name) => {
      const sample = samples[name] as Record<string, unknown>;
      expect(
        validateRequest(name, { ...sample, partnerCode: 'MOMO', ...constants(name) }, sampleContexts[name]),
      ).toEqual([]);
      const prepared = client.prepare(name, samples[name] as never, { context: sampleContexts[name] ?? {} });
      const spec = operationSpec(name);
      expect(verifySignature(spec.signed, prepared.body, prepared.body.signature, TEST_KEYS)).toBe(true);
      const decrypted = decryptRequestFields(name, prepared.body, keyPair.privateKey);
      for (const field of encryptedFields(name)) {
        expect(typeof prepared.body[field]).toBe('string');
        expect(prepared.body[field]).not.toEqual(sample[field]);
        expect(decrypted[field]).toEqual(sample[field]);
      }
      expect(prepared.url).toBe(`http://gateway.invalid${spec.path}`);
      expect(prepared.body.accessKey).toBeUndefined();
    },
  );

  it('money-moving calls wait at least 30 seconds', () => {
    for (const name of [
      'payment.captureWallet',
      'payment.pos',
      'refund.create',
      'remittance.create',
      'disbursement.pay',
    ] as const) {
      expect(operations[name].timeoutMs).toBeGreaterThanOrEqual(30_000);
    }
  });

  it('routes api/create by requestType, telling the two payWithCC variants apart', () => {
    expect(operationForRequest('/v2/gateway/api/create', 'captureWallet')).toBe('payment.captureWallet');
    expect(operationForRequest('/v2/gateway/api/create', 'payWithCC', false)).toBe('payment.payWithCC');
    expect(operationForRequest('/v2/gateway/api/create', 'payWithCC', true)).toBe('binding.payWithCC');
    expect(operationForRequest('/v2/gateway/api/create', 'initiate')).toBe('batch.init');
    expect(operationForRequest('/v2/gateway/api/pos', undefined)).toBe('payment.pos');
  });

  it.each(Object.keys(notificationSpecs) as NotificationKind[])(
    'notification %s signs only declared fields',
    (kind) => {
      const spec = notificationSpecs[kind];
      expect(spec.signed).toContain('accessKey');
      for (const field of spec.signed)
        if (field !== 'accessKey') expect(Object.keys(spec.fields)).toContain(field);
    },
  );
});

function constants(name: keyof typeof operations): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, spec] of Object.entries(operationSpec(name).request)) {
    if (spec.kind === 'string' && spec.constant) out[field] = spec.constant;
  }
  return out;
}
