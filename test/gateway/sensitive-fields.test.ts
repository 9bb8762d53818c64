import { describe, expect, it } from 'vitest';
import { REDACTED, redact, SENSITIVE_FIELDS } from '../../gateway';
import { isSensitiveField } from '../../gateway/sensitive-fields';
import { notificationSpecs, operations } from '../../gateway/operations';
import type { FieldMap, FieldSpec } from '../../gateway/operations/types';
import { createLogger } from '../../platform/logger';

/**
 * Every field the gateway sends (responses and notifications) that is not about a person. A new field in
 * the operation table fails the test below until someone decides which list it belongs to.
 */
const NOT_PERSONAL = new Set(
  `action amount amountSponsor balance bankCode baseCurrency cardType category createdTime currency deeplink
  deeplinkMiniApp deliveryFee description disbursementBatchInfo disbursements exchangeAmount exchangeCurrency
  expiryDate frequency id image imageUrl inStorePickup initialOrderId instrumentType itemId items lang
  lastUpdated manufacturer merchantRate message nextPaymentDate orderExpireTime orderGroupId orderId orderType
  orderingCountry pageNum pageSize partnerCode partnerName partnerSubsId payType payUrl paymentOption price
  promotionInfo qrCodeUrl quantity rate rateInfo reason recurringAmount refundAmount refundCount refundTrans
  refundTransId remittanceInfo requestId requestType requireSecurityCode responseTime resultCode
  resultDescription serialNumber shortLink sourceAmount sourceCurrency state states storeId storeName
  subPartnerCode subscriptionInfo taxAmount timestamp tokenType totalErrorAmount totalErrorCount totalPages
  totalPendingAmount totalPendingCount totalPrice totalSucceedAmount totalSucceedCount totalUploadedAmount
  totalUploadedCount transGroup transId type unit userFee userInfo voucherId voucherName voucherType`.split(
    /\s+/,
  ),
);

function fieldNames(map: FieldMap, into: Set<string>): Set<string> {
  const visit = (spec: FieldSpec): void => {
    if (spec.kind === 'object') fieldNames(spec.fields, into);
    if (spec.kind === 'list') visit(spec.of);
    if (spec.kind === 'encrypted') visit(spec.payload);
  };
  for (const [name, spec] of Object.entries(map)) {
    into.add(name);
    visit(spec);
  }
  return into;
}

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

  it('classifies every field the gateway sends: personal ones are redacted', () => {
    const sent = new Set<string>();
    for (const operation of Object.values(operations)) fieldNames(operation.response.fields, sent);
    for (const notification of Object.values(notificationSpecs)) fieldNames(notification.fields, sent);
    const unclassified = [...sent].filter((name) => !isSensitiveField(name) && !NOT_PERSONAL.has(name));
    expect(unclassified).toEqual([]);
    for (const name of ['partnerClientId', 'partnerUserId', 'orderInfo', 'cardPaymentInfo', 'cardNumber'])
      expect(isSensitiveField(name)).toBe(true);
  });

  it('keeps an error’s type, message, code, stack and cause in the log, without secrets', () => {
    const lines: string[] = [];
    const log = createLogger('error', 'test', { write: (line: string) => void lines.push(line) });
    class GatewayDown extends Error {
      override readonly name = 'GatewayDown';
      readonly code = 'ECONNREFUSED';
      readonly body = { walletId: '0912345678', resultCode: 99 };
    }
    const cause = new Error('connect postgres://payrun:hunter2@db:5432/payrun refused');
    const error = new GatewayDown('disbursement/pay failed (Bearer sk_live_abcdef)', { cause });
    log.error({ err: error }, 'The call failed');
    const entry = JSON.parse(lines[0]!);
    expect(entry.err).toMatchObject({
      type: 'GatewayDown',
      message: `disbursement/pay failed (Bearer ${REDACTED})`,
      code: 'ECONNREFUSED',
      body: { walletId: REDACTED, resultCode: 99 },
      cause: { type: 'Error', message: `connect postgres://${REDACTED}@db:5432/payrun refused` },
    });
    expect(entry.err.stack).toContain('sensitive-fields.test.ts');
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0]).not.toContain('sk_live_abcdef');
    expect(lines[0]).not.toContain('0912345678');
  });
});
