import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { notificationSpecs, operations, sign, signedText, verifySignature } from '../../gateway';
import { TEST_KEYS } from './support/samples';

/**
 * Expected signatures come from the openssl CLI (`openssl dgst -sha256 -hmac <secret>` over the
 * signed text written out by hand below), never from the code under test.
 */
function openssl(text: string, key: string): string {
  const run = spawnSync('openssl', ['dgst', '-sha256', '-hmac', key], { input: Buffer.from(text, 'utf8') });
  if (run.status !== 0) throw new Error(`openssl failed: ${run.stderr.toString()}`);
  const hex = run.stdout.toString().trim().split(/\s+/).pop() ?? '';
  expect(hex).toMatch(/^[0-9a-f]{64}$/);
  return hex;
}

const { accessKey, secretKey } = TEST_KEYS;

interface Vector {
  name: string;
  signed: readonly string[];
  values: Record<string, unknown>;
  text: string;
}

const vectors: Vector[] = [
  {
    name: 'document 1: api/create captureWallet with Vietnamese orderInfo',
    signed: operations['payment.captureWallet'].signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-1',
      orderId: 'ord-1',
      amount: 50000,
      orderInfo: 'Thanh toán đơn hàng',
      redirectUrl: 'https://m.example/r',
      ipnUrl: 'https://m.example/ipn',
      requestType: 'captureWallet',
      extraData: '',
    },
    text:
      `accessKey=${accessKey}&amount=50000&extraData=&ipnUrl=https://m.example/ipn&orderId=ord-1` +
      '&orderInfo=Thanh toán đơn hàng&partnerCode=MOMO&redirectUrl=https://m.example/r&requestId=req-1' +
      '&requestType=captureWallet',
  },
  {
    name: 'document 1: captureWallet response signature',
    signed: operations['payment.captureWallet'].response.signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-1',
      orderId: 'ord-1',
      amount: 50000,
      responseTime: 1700000000000,
      message: 'Thành công.',
      resultCode: 0,
      payUrl: 'https://gw.example/pay?t=abc',
    },
    text:
      `accessKey=${accessKey}&amount=50000&message=Thành công.&orderId=ord-1&partnerCode=MOMO` +
      '&payUrl=https://gw.example/pay?t=abc&requestId=req-1&responseTime=1700000000000&resultCode=0',
  },
  {
    name: 'document 2: tokenization/pay (token signed as its ciphertext; absent extraData is empty)',
    signed: operations['tokenization.pay'].signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-2',
      orderId: 'ord-2',
      amount: 20000,
      orderInfo: 'Gia hạn gói',
      partnerClientId: 'user-42',
      token: 'QmFzZTY0Q2lwaGVy+/=',
    },
    text:
      `accessKey=${accessKey}&amount=20000&extraData=&orderId=ord-2&orderInfo=Gia hạn gói&partnerClientId=user-42` +
      '&partnerCode=MOMO&requestId=req-2&token=QmFzZTY0Q2lwaGVy+/=',
  },
  {
    name: 'document 3: disbursement/pay',
    signed: operations['disbursement.pay'].signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-3',
      orderId: 'ord-3',
      amount: 1000000,
      requestType: 'disburseToWallet',
      disbursementMethod: 'RSAcipher==',
      orderInfo: 'Chi lương tháng 1',
      extraData: 'e30=',
    },
    text:
      `accessKey=${accessKey}&amount=1000000&disbursementMethod=RSAcipher==&extraData=e30=&orderId=ord-3` +
      '&orderInfo=Chi lương tháng 1&partnerCode=MOMO&requestId=req-3&requestType=disburseToWallet',
  },
  {
    name: 'document 3: batch/query (numbers as JSON text; states not signed)',
    signed: operations['batch.query'].signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-4',
      orderId: 'ord-4',
      pageSize: 50,
      pageNum: 2,
      states: ['PENDING'],
    },
    text: `accessKey=${accessKey}&orderId=ord-4&pageNum=2&pageSize=50&partnerCode=MOMO&requestId=req-4`,
  },
  {
    name: 'notification list A',
    signed: notificationSpecs['payment.resultA'].signed,
    values: {
      partnerCode: 'MOMO',
      orderId: 'ord-1',
      requestId: 'req-1',
      amount: 50000,
      orderInfo: 'Thanh toán đơn hàng',
      orderType: 'svc_wallet',
      transId: 4088878653,
      resultCode: 0,
      message: 'Thành công.',
      payType: 'qr',
      responseTime: 1700000000123,
      extraData: '',
    },
    text:
      `accessKey=${accessKey}&amount=50000&extraData=&message=Thành công.&orderId=ord-1&orderInfo=Thanh toán đơn hàng` +
      '&orderType=svc_wallet&partnerCode=MOMO&payType=qr&requestId=req-1&responseTime=1700000000123&resultCode=0' +
      '&transId=4088878653',
  },
  {
    name: 'notification list B',
    signed: notificationSpecs['payment.resultB'].signed,
    values: {
      partnerCode: 'MOMO',
      orderId: 'ord-5',
      requestId: 'req-5',
      amount: 0,
      orderInfo: 'Liên kết ví',
      orderType: 'svc_wallet',
      transId: 123,
      resultCode: 0,
      message: 'Successful.',
      payType: 'app',
      responseTime: 1700000000999,
      extraData: '',
      partnerClientId: 'user-42',
      callbackToken: 'cbTok',
    },
    text:
      `accessKey=${accessKey}&amount=0&callbackToken=cbTok&extraData=&message=Successful.&orderId=ord-5` +
      '&orderInfo=Liên kết ví&orderType=svc_wallet&partnerClientId=user-42&partnerCode=MOMO&payType=app' +
      '&requestId=req-5&responseTime=1700000000999&resultCode=0&transId=123',
  },
  {
    name: 'single disbursement notification',
    signed: notificationSpecs['disbursement.result'].signed,
    values: {
      partnerCode: 'MOMO',
      orderId: 'ord-3',
      requestId: 'req-3',
      amount: 1000000,
      orderInfo: 'Chi lương tháng 1',
      orderType: 'svc_disbursement',
      transId: 77,
      resultCode: 0,
      message: 'OK',
      responseTime: 1700000001000,
      extraData: '',
    },
    text:
      `accessKey=${accessKey}&amount=1000000&extraData=&message=OK&orderId=ord-3&orderInfo=Chi lương tháng 1` +
      '&orderType=svc_disbursement&partnerCode=MOMO&requestId=req-3&responseTime=1700000001000&resultCode=0&transId=77',
  },
  {
    name: 'batch notification (8003)',
    signed: notificationSpecs['batch.created'].signed,
    values: {
      partnerCode: 'MOMO',
      orderId: 'ord-b',
      requestId: 'req-b',
      amount: 3000,
      resultCode: 8003,
      message: 'Tạo lô thành công',
      requestType: 'batchWallet',
      disbursementBatchInfo: { totalUploadedCount: 2 },
    },
    text:
      `accessKey=${accessKey}&amount=3000&message=Tạo lô thành công&orderId=ord-b&partnerCode=MOMO` +
      '&requestId=req-b&requestType=batchWallet&resultCode=8003',
  },
  {
    name: 'unbind notification',
    signed: notificationSpecs['token.unbind'].signed,
    values: {
      partnerCode: 'MOMO',
      orderId: 'ord-cc',
      requestId: 'req-u',
      requestType: 'remove',
      partnerClientId: 'user-42',
      tokenType: 'credit',
    },
    text: `accessKey=${accessKey}&orderId=ord-cc&partnerClientId=user-42&partnerCode=MOMO&requestId=req-u&requestType=remove&tokenType=credit`,
  },
  {
    name: 'card-flow IPN acknowledgement',
    signed: notificationSpecs['payment.cardAck'].signed,
    values: {
      partnerCode: 'MOMO',
      requestId: 'req-cc',
      orderId: 'ord-cc',
      resultCode: 0,
      message: 'Đã nhận',
      responseTime: '2024-01-02 10:11:12',
      extraData: '',
    },
    text: `accessKey=${accessKey}&extraData=&message=Đã nhận&orderId=ord-cc&partnerCode=MOMO&requestId=req-cc&responseTime=2024-01-02 10:11:12&resultCode=0`,
  },
];

describe('signatures match openssl', () => {
  it.each(vectors)('$name', ({ signed, values, text }) => {
    expect(signedText(signed, values, accessKey)).toBe(text);
    const expected = openssl(text, secretKey);
    expect(sign(signed, values, { accessKey, secretKey })).toBe(expected);
    expect(verifySignature(signed, values, expected, { accessKey, secretKey })).toBe(true);
  });

  it('rejects a tampered value, a wrong key, and malformed signatures', () => {
    const { signed, values } = vectors[0] as Vector;
    const good = sign(signed, values, { accessKey, secretKey });
    expect(verifySignature(signed, { ...values, amount: 50001 }, good, { accessKey, secretKey })).toBe(false);
    expect(verifySignature(signed, values, good, { accessKey, secretKey: `${secretKey}x` })).toBe(false);
    expect(verifySignature(signed, values, good.slice(0, 63), { accessKey, secretKey })).toBe(false);
    expect(verifySignature(signed, values, undefined, { accessKey, secretKey })).toBe(false);
    expect(verifySignature(signed, values, `${good.slice(0, 63)}z`, { accessKey, secretKey })).toBe(false);
  });

  it('uses the configured access key, never one found in the body', () => {
    const { signed, values } = vectors[0] as Vector;
    expect(sign(signed, { ...values, accessKey: 'forged' }, { accessKey, secretKey })).toBe(
      sign(signed, values, { accessKey, secretKey }),
    );
  });
});
