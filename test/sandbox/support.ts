import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  createGatewayClient,
  GatewayResultError,
  encryptRequestFields,
  operationSpec,
  sign,
  type GatewayClient,
  type OperationName,
} from '../../gateway';
import { generateSandboxKeyPair, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { WAIT_LIMIT_MS } from '../support/wait';

/** Shared by the sandbox conformance suites: one key pair per test file, fast timing, an IPN receiver. */

export const merchant = {
  partnerCode: 'MOMOTEST',
  accessKey: 'test-access-key',
  secretKey: 'test-secret-key-0123456789abcdef',
};
export const keys = { accessKey: merchant.accessKey, secretKey: merchant.secretKey };

let keyPair: ReturnType<typeof generateSandboxKeyPair> | undefined;
export const sandboxKeyPair = () => (keyPair ??= generateSandboxKeyPair());

export const FAST_TIMING = {
  ipnDelayMs: 5,
  batchValidationMs: 20,
  batchPaymentMs: 20,
  pendingSettleMs: 200,
  ipnRetryDelayMs: 20,
};

export interface TestGateway {
  sandbox: Sandbox;
  client: GatewayClient;
  close(): Promise<void>;
}

export async function startTestGateway(options: Partial<SandboxOptions> = {}): Promise<TestGateway> {
  const sandbox = await startSandbox({
    merchant,
    keyPair: sandboxKeyPair(),
    ...options,
    timing: { ...FAST_TIMING, ...options.timing },
  });
  const client = createGatewayClient({
    baseUrl: sandbox.url,
    ...merchant,
    gatewayPublicKey: sandboxKeyPair().publicKeyPem,
  });
  return { sandbox, client, close: () => sandbox.close() };
}

export interface GatewayFixture {
  gw: TestGateway;
  ipn: IpnReceiver;
}

/**
 * A test gateway and an IPN receiver for one test file: started before its tests, reset and cleared
 * before each, closed after them. `options` may name the receiver's URLs (it starts first). Both
 * objects are filled in beforeAll, so `const { gw, ipn } = useTestGateway()` reads them inside tests.
 */
export function useTestGateway(
  options: Partial<SandboxOptions> | ((ipn: IpnReceiver) => Partial<SandboxOptions>) = {},
): GatewayFixture {
  const gw = {} as TestGateway;
  const ipn = {} as IpnReceiver;
  beforeAll(async () => {
    Object.assign(ipn, await startIpnReceiver());
    Object.assign(gw, await startTestGateway(typeof options === 'function' ? options(ipn) : options));
  });
  afterAll(async () => {
    await gw.close?.();
    await ipn.close?.();
  });
  beforeEach(() => {
    gw.sandbox.admin.reset();
    ipn.clear();
  });
  return { gw, ipn };
}

export interface ReceivedIpn {
  path: string;
  raw: Buffer;
  body: Record<string, unknown>;
}

/** A merchant IPN endpoint (node:http) that records every notification and answers 204. */
export interface IpnReceiver {
  url(path?: string): string;
  received: ReceivedIpn[];
  /** HTTP status answered to the next notifications (default 204). */
  answerWith(status: number): void;
  waitFor(predicate: (ipn: ReceivedIpn) => boolean, timeoutMs?: number): Promise<ReceivedIpn>;
  /** Waits until `count` notifications match. */
  waitForCount(
    predicate: (ipn: ReceivedIpn) => boolean,
    count: number,
    timeoutMs?: number,
  ): Promise<ReceivedIpn[]>;
  clear(): void;
  close(): Promise<void>;
}

export async function startIpnReceiver(): Promise<IpnReceiver> {
  const received: ReceivedIpn[] = [];
  let status = 204;
  let wake: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        path: request.url ?? '/',
        raw,
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
      });
      response.writeHead(status).end();
      wake.splice(0).forEach((fn) => fn());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  async function waitForCount(
    predicate: (ipn: ReceivedIpn) => boolean,
    count: number,
    timeoutMs = WAIT_LIMIT_MS,
  ) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = received.filter(predicate);
      if (matching.length >= count) return matching;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${count} IPN(s); received ${JSON.stringify(received.map((r) => r.body))}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    url: (path = '/ipn') => `http://127.0.0.1:${port}${path}`,
    received,
    answerWith: (next) => void (status = next),
    waitFor: async (predicate, timeoutMs) => (await waitForCount(predicate, 1, timeoutMs))[0]!,
    waitForCount,
    clear: () => void received.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        wake = [];
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A request built like the client builds it but without the client's validation, so that the
 * sandbox's own checks (20, 22, 13) can be exercised. `tamper` edits the wire body after signing.
 */
export async function rawCall(
  url: string,
  operation: OperationName,
  plain: Record<string, unknown>,
  tamper: (wire: Record<string, unknown>) => void = () => undefined,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const spec = operationSpec(operation);
  const wire = encryptRequestFields(
    operation,
    { partnerCode: merchant.partnerCode, ...plain },
    sandboxKeyPair().publicKeyPem,
  );
  wire.signature = sign(spec.signed, wire, keys);
  tamper(wire);
  const response = await fetch(`${url}${spec.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(wire),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** Unique ids per test (orderId pattern-safe). */
export const ids = (label: string) => {
  counter += 1;
  return { requestId: `req-${label}-${counter}`, orderId: `ord-${label}-${counter}` };
};

export const wallet = (lastFour: string, walletName = 'Nguyen Van A') => ({
  walletId: `090000${lastFour}`,
  walletName,
});

/** The resultCode of a call whether the client returned it or threw it as a GatewayResultError. */
export async function resultCodeOf(promise: Promise<unknown>): Promise<number> {
  try {
    return ((await promise) as { resultCode: number }).resultCode;
  } catch (error) {
    if (error instanceof GatewayResultError) return error.resultCode;
    throw error;
  }
}

/** A clock the sandbox reads (`now` option) that tests move instead of waiting. */
export function movableClock(start = Date.parse('2025-03-10T03:00:00Z')) {
  let current = start;
  return {
    now: () => current,
    advance(ms: number) {
      current += ms;
    },
    set(epochMs: number) {
      current = epochMs;
    },
  };
}
