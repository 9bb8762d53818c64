import { describe, expect, it } from 'vitest';
import {
  acknowledge,
  acknowledgementFormat,
  buildCardAck,
  buildNotification,
  formatGmt7,
  GatewayFormatError,
  GatewaySignatureError,
  notificationSpecs,
  parseNotification,
  parseRedirectQuery,
  redirectQuery,
  verifySignature,
} from '../../gateway';
import { TEST_KEYS } from './support/samples';

const payment = {
  partnerCode: 'MOMO',
  orderId: 'ord-1',
  requestId: 'req-1',
  amount: 50_000,
  orderInfo: 'Thanh toán đơn hàng',
  transId: 4_088_878_653,
  resultCode: 0,
  message: 'Thành công.',
  payType: 'qr',
  responseTime: 1_700_000_000_123,
  extraData: '',
};

describe('notifications', () => {
  it('verifies and parses a list A IPN from a Buffer', () => {
    const body = buildNotification('payment.resultA', payment, TEST_KEYS);
    expect(body.orderType).toBe('svc_wallet');
    const parsed = parseNotification('payment.resultA', Buffer.from(JSON.stringify(body)), TEST_KEYS);
    expect(parsed.fields.transId).toBe(4_088_878_653);
    expect(parsed.classification?.action).toBe('success');
  });

  it('refuses an altered IPN, a list-A signature presented as list B, and non-JSON', () => {
    const body = buildNotification('payment.resultA', payment, TEST_KEYS);
    const altered = JSON.stringify({ ...body, amount: 1 });
    expect(() => parseNotification('payment.resultA', altered, TEST_KEYS)).toThrow(GatewaySignatureError);
    expect(() =>
      parseNotification(
        'payment.resultB',
        JSON.stringify({ ...body, partnerClientId: 'u', callbackToken: 'c' }),
        TEST_KEYS,
      ),
    ).toThrow(GatewaySignatureError);
    expect(() => parseNotification('payment.resultA', 'not json', TEST_KEYS)).toThrow(GatewayFormatError);
  });

  it('refuses a correctly signed body with the wrong shape', () => {
    const body = buildNotification('payment.resultA', payment, TEST_KEYS);
    const { resultCode: _dropped, ...rest } = body;
    const resigned = { ...rest, signature: body.signature };
    expect(() => parseNotification('payment.resultA', JSON.stringify(resigned), TEST_KEYS)).toThrow();
  });

  it('handles list B with callbackToken (binding) and classifies a pending payment', () => {
    const body = buildNotification(
      'payment.resultB',
      { ...payment, resultCode: 7002, partnerClientId: 'user-42', callbackToken: 'cb' },
      TEST_KEYS,
    );
    const parsed = parseNotification('payment.resultB', JSON.stringify(body), TEST_KEYS);
    expect(parsed.fields.callbackToken).toBe('cb');
    expect(parsed.classification?.action).toBe('wait-for-ipn');
  });

  it('verifies the redirect query string over the raw strings', () => {
    const body = buildNotification(
      'payment.resultB',
      { ...payment, partnerClientId: 'u', callbackToken: 'c' },
      TEST_KEYS,
    );
    const query = redirectQuery(body);
    const parsed = parseRedirectQuery('payment.resultB', `?${query}`, TEST_KEYS);
    expect(parsed.fields.amount).toBe(50_000);
    expect(parsed.fields.orderInfo).toBe('Thanh toán đơn hàng');
    const tampered = query.replace('amount=50000', 'amount=5');
    expect(() => parseRedirectQuery('payment.resultB', tampered, TEST_KEYS)).toThrow(GatewaySignatureError);
  });

  it('parses single disbursement, remittance, batch and unbind notifications', () => {
    const disbursement = buildNotification(
      'disbursement.result',
      { ...payment, resultCode: 0, payType: undefined },
      TEST_KEYS,
    );
    expect(disbursement.orderType).toBe('svc_disbursement');
    expect(
      parseNotification('disbursement.result', JSON.stringify(disbursement), TEST_KEYS).fields.amount,
    ).toBe(50_000);
    const remittance = buildNotification('remittance.result', { ...payment, payType: undefined }, TEST_KEYS);
    expect(remittance.orderType).toBe('svc_remittance');

    const created = buildNotification(
      'batch.created',
      {
        partnerCode: 'MOMO',
        orderId: 'b-1',
        requestId: 'r-1',
        amount: 3000,
        resultCode: 8003,
        message: 'ok',
        requestType: 'batchWallet',
        disbursementBatchInfo: { totalUploadedCount: 2, totalUploadedAmount: 3000 },
      },
      TEST_KEYS,
    );
    expect(
      parseNotification('batch.created', JSON.stringify(created), TEST_KEYS).classification?.action,
    ).toBe('batch-created');

    const unbind = buildNotification(
      'token.unbind',
      {
        partnerCode: 'MOMO',
        orderId: 'o',
        requestId: 'r',
        requestType: 'remove',
        partnerClientId: 'u',
        tokenType: 'atm',
      },
      TEST_KEYS,
    );
    const parsedUnbind = parseNotification('token.unbind', JSON.stringify(unbind), TEST_KEYS);
    expect(parsedUnbind.fields.tokenType).toBe('atm');
    expect(acknowledge(parsedUnbind, TEST_KEYS)).toEqual({ status: 204, headers: {}, body: '' });
  });

  it('refuses integers it cannot verify exactly', () => {
    const body = { ...buildNotification('payment.resultA', payment, TEST_KEYS) };
    const text = JSON.stringify(body).replace('"transId":4088878653', '"transId":90071992547409931');
    expect(() => parseNotification('payment.resultA', text, TEST_KEYS)).toThrow(/safe integer/);
  });
});

describe('acknowledgements', () => {
  it('answers the card one-time flow with a signed JSON body, others with 204', () => {
    expect(acknowledgementFormat('payment.resultB', 'payment.payWithCC')).toBe('signed-json');
    expect(acknowledgementFormat('payment.resultB', 'binding.payWithCC')).toBe('no-content');
    expect(acknowledgementFormat('payment.resultA')).toBe('no-content');
    expect(acknowledgementFormat('disbursement.result')).toBe('no-content');
  });

  it('builds the card acknowledgement with a GMT+7 responseTime and a valid signature', () => {
    const now = new Date('2024-01-02T03:11:12Z');
    const ack = buildCardAck(
      { partnerCode: 'MOMO', requestId: 'req-cc', orderId: 'ord-cc', resultCode: 0, message: 'Đã nhận' },
      TEST_KEYS,
      now,
    );
    expect(ack.status).toBe(200);
    expect(ack.headers['content-type']).toBe('application/json;charset=UTF-8');
    const body = JSON.parse(ack.body) as Record<string, unknown>;
    expect(body.responseTime).toBe('2024-01-02 10:11:12');
    expect(
      verifySignature(notificationSpecs['payment.cardAck'].signed, body, body.signature, TEST_KEYS),
    ).toBe(true);
    // the sandbox verifies it with the same parser
    expect(parseNotification('payment.cardAck', ack.body, TEST_KEYS).fields.message).toBe('Đã nhận');
  });

  it('acknowledges a verified card IPN in the signed format', () => {
    const ipn = parseNotification(
      'payment.resultB',
      JSON.stringify(
        buildNotification('payment.resultB', { ...payment, payType: 'credit', extraData: 'e30=' }, TEST_KEYS),
      ),
      TEST_KEYS,
    );
    const ack = acknowledge(ipn, TEST_KEYS, { operation: 'payment.payWithCC', now: new Date(0) });
    expect(JSON.parse(ack.body)).toMatchObject({
      orderId: 'ord-1',
      extraData: 'e30=',
      resultCode: 0,
      responseTime: '1970-01-01 07:00:00',
    });
  });

  it('formats GMT+7 across a date boundary', () => {
    expect(formatGmt7(new Date('2024-12-31T20:00:00Z'))).toBe('2025-01-01 03:00:00');
  });
});
