import { describe, expect, it } from 'vitest';
import { REDACTED, redact, SENSITIVE_FIELDS } from '../../gateway';

describe('redact', () => {
  it('hides sensitive values at any depth, case-insensitively, and keeps the rest', () => {
    const input = {
      requestId: 'r-1',
      orderId: 'o-1',
      amount: 1000,
      signature: 'abc',
      SecurityCode: '123456',
      userInfo: { email: 'a@b.c', phoneNumber: '0912', note: 'ok' },
      disbursements: [{ id: 'i-1', method: { walletId: '0912' }, amount: 1000 }],
      extraData: '',
    };
    const output = redact(input);
    expect(output).toEqual({
      requestId: 'r-1',
      orderId: 'o-1',
      amount: 1000,
      signature: REDACTED,
      SecurityCode: REDACTED,
      userInfo: { email: REDACTED, phoneNumber: REDACTED, note: 'ok' },
      disbursements: [{ id: 'i-1', method: REDACTED, amount: 1000 }],
      extraData: '',
    });
    expect(input.signature).toBe('abc');
  });

  it('covers the encrypted fields and credentials', () => {
    for (const name of [
      'paymentCode',
      'token',
      'receiver',
      'disbursementMethod',
      'secretKey',
      'accessKey',
      'aesToken',
      'personalId',
    ]) {
      expect(SENSITIVE_FIELDS).toContain(name);
    }
  });
});
