import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayClient,
  decryptRequestFields,
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  GatewayValidationError,
  buildResponse,
  operations,
  verifySignature,
  type GatewayLogger,
} from '../../gateway';
import { samples, TEST_KEYS, testKeyPair } from './support/samples';

type Handler = (request: { path: string; body: Record<string, unknown> }, response: ServerResponse) => void;

const keyPair = testKeyPair();
let server: Server;
let baseUrl: string;
let handler: Handler;
const received: { path: string; body: Record<string, unknown> }[] = [];
const logged: unknown[] = [];

const logger: GatewayLogger = {
  info: (fields, message) => logged.push({ level: 'info', fields, message }),
  warn: (fields, message) => logged.push({ level: 'warn', fields, message }),
  debug: (fields, message) => logged.push({ level: 'debug', fields, message }),
};

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Answers like the gateway: echo ids, sign what the spec signs. */
function answer(
  resultCode: number,
  extra: Record<string, unknown> = {},
  afterSigning: Record<string, unknown> = {},
): Handler {
  return ({ body }, response) => {
    const reply: Record<string, unknown> = {
      partnerCode: body.partnerCode,
      requestId: body.requestId,
      orderId: body.orderId,
      amount: body.amount,
      responseTime: 1_700_000_000_000,
      message: resultCode === 0 ? 'Thành công.' : 'Lỗi',
      resultCode,
      payUrl: 'https://gw.example/pay/1',
      ...extra,
    };
    json(response, 200, { ...buildResponse('payment.captureWallet', reply, TEST_KEYS), ...afterSigning });
  };
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const entry = { path: request.url ?? '', body };
      received.push(entry);
      handler(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  received.length = 0;
  logged.length = 0;
});

const client = () =>
  createGatewayClient({
    baseUrl,
    partnerCode: 'MOMO',
    ...TEST_KEYS,
    gatewayPublicKey: keyPair.publicKey,
    logger,
  });

describe('gateway client over real HTTP', () => {
  it('sends nothing when validation fails and names the field', async () => {
    handler = answer(0);
    const error = await client()
      .call('payment.captureWallet', { ...samples['payment.captureWallet'], amount: 999 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).field).toBe('amount');
    expect(received).toHaveLength(0);
  });

  it('signs the request so that the server can recompute it, and returns the classified answer', async () => {
    handler = answer(0);
    const result = await client().call('payment.captureWallet', samples['payment.captureWallet']);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.path).toBe('/v2/gateway/api/create');
    expect(request?.body.requestType).toBe('captureWallet');
    expect(request?.body.partnerCode).toBe('MOMO');
    expect(request?.body.orderInfo).toBe('Thanh toán đơn hàng');
    expect(
      verifySignature(
        operations['payment.captureWallet'].signed,
        request?.body ?? {},
        request?.body.signature,
        TEST_KEYS,
      ),
    ).toBe(true);
    expect(result.resultCode).toBe(0);
    expect(result.classification.action).toBe('redirect-customer');
    expect(result.body.payUrl).toBe('https://gw.example/pay/1');
  });

  it('re-sends exactly the caller-supplied requestId and orderId', async () => {
    handler = answer(0);
    await client().call('payment.query', samples['payment.query']);
    await client().call('payment.query', samples['payment.query']);
    expect(received.map((r) => r.body.requestId)).toEqual(['req-q', 'req-q']);
    expect(received.map((r) => r.body.orderId)).toEqual(['ord-q', 'ord-q']);
  });

  it('encrypts sensitive fields so that only the private key reads them', async () => {
    handler = ({ body }, response) =>
      json(response, 200, { ...body, signature: undefined, resultCode: 7000, message: 'pending' });
    const result = await client().call('disbursement.pay', samples['disbursement.pay']);
    expect(result.classification.action).toBe('wait-for-ipn');
    const body = received[0]?.body ?? {};
    expect(typeof body.disbursementMethod).toBe('string');
    expect(decryptRequestFields('disbursement.pay', body, keyPair.privateKey).disbursementMethod).toEqual(
      samples['disbursement.pay'].disbursementMethod,
    );
    expect(verifySignature(operations['disbursement.pay'].signed, body, body.signature, TEST_KEYS)).toBe(
      true,
    );
  });

  it('rejects a captureWallet answer whose signature does not match', async () => {
    handler = answer(0, {}, { payUrl: 'https://evil.example/pay' });
    const error = await client()
      .call('payment.captureWallet', samples['payment.captureWallet'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewaySignatureError);
    expect((error as GatewaySignatureError).type).toBe('signature_error');
  });

  it('turns a timeout into a retryable transport error', async () => {
    handler = () => undefined; // never answers
    const error = await client()
      .call('payment.query', samples['payment.query'], { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect((error as GatewayTransportError).reason).toBe('timeout');
    expect((error as GatewayTransportError).retryable).toBe(true);
  });

  it('turns HTTP 500 into a retryable transport error', async () => {
    handler = (_request, response) => json(response, 500, { error: 'boom' });
    const error = await client()
      .call('payment.query', samples['payment.query'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({
      type: 'transport_error',
      reason: 'http_status',
      status: 500,
      retryable: true,
    });
  });

  it('turns an unparseable body into a transport error', async () => {
    handler = (_request, response) => response.writeHead(200).end('<html>maintenance</html>');
    const error = await client()
      .call('payment.query', samples['payment.query'])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'transport_error', reason: 'unparseable_body' });
  });

  it('throws a result error carrying code and classification for a final failure', async () => {
    handler = ({ body }, response) =>
      json(response, 200, { ...body, resultCode: 1100, message: 'Số dư không đủ' });
    const error = await client()
      .call('disbursement.pay', samples['disbursement.pay'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayResultError);
    expect(error).toMatchObject({
      type: 'gateway_result_error',
      operation: 'disbursement.pay',
      resultCode: 1100,
      final: true,
      retryable: false,
      classification: { action: 'final-failure' },
    });
  });

  it('returns duplicates (resolve by query) and OTP requests rather than throwing', async () => {
    handler = ({ body }, response) =>
      json(response, 200, { ...body, resultCode: 40, message: 'Duplicated requestId' });
    const duplicate = await client().call('disbursement.pay', samples['disbursement.pay']);
    expect(duplicate.classification.action).toBe('resolve-by-query');
    handler = ({ body }, response) => json(response, 200, { ...body, resultCode: 8200, message: 'OTP' });
    const otp = await client().call('tokenization.pay', samples['tokenization.pay'], {
      context: { tokenKind: 'wallet' },
    });
    expect(otp.classification.action).toBe('ask-for-otp');
  });

  it('never logs keys, tokens, OTPs, personal data or signatures', async () => {
    handler = ({ body }, response) => json(response, 200, { ...body, resultCode: 0, message: 'ok' });
    await client().call('tokenization.verify', samples['tokenization.verify']);
    await client().call('disbursement.pay', samples['disbursement.pay']);
    handler = (_request, response) => json(response, 500, {});
    await client()
      .call('remittance.create', samples['remittance.create'])
      .catch(() => undefined);
    expect(logged.length).toBeGreaterThan(0);
    const text = JSON.stringify(logged);
    const secrets = [
      TEST_KEYS.secretKey,
      TEST_KEYS.accessKey,
      '123456', // securityCode
      '0912345678', // walletId
      '001099012345', // personalId
      'Nguyễn Văn A',
      'Trần Thị B',
      'tok',
      ...received.flatMap((r) => [
        r.body.signature,
        r.body.token,
        r.body.disbursementMethod,
        r.body.receiver,
      ]),
    ].filter((value): value is string => typeof value === 'string');
    for (const secret of secrets) expect(text).not.toContain(`"${secret}"`);
    expect(text).toContain('req-tv'); // ids stay visible for tracing
  });
});
