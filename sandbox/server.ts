import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toPrivateKey } from '../gateway';
import { createAdmin, handleAdminRequest, NotWaitingError, type SandboxAdmin } from './admin';
import { notWaitingPage, orderPage, resultPage } from './hosted-page';
import { PAY_PAGE_PREFIX, payPagePath, SHORT_LINK_PREFIX } from './links';
import { handlers } from './handlers';
import {
  CURRENCIES,
  DEFAULT_BALANCES,
  DEFAULT_SEED,
  DEFAULT_TIMING,
  SILENT_LOGGER,
  type Currency,
  type SandboxOptions,
} from './options';
import { handleGatewayRequest, isGatewayPath } from './pipeline';
import { createWorld, type SandboxConfig, type SandboxWorld } from './world';

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:PORT (the client's baseUrl). */
  url: string;
  admin: SandboxAdmin;
  /** Stops the server, every timer and every IPN in flight; nothing is sent after it resolves. */
  close(): Promise<void>;
}

const ADMIN_PREFIX = '/__sandbox';
const MAX_BODY_BYTES = 5 * 1024 * 1024;

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const config = resolveConfig(options);
  let world: SandboxWorld = createWorld(config);
  /** Gateway requests not answered yet (latency, hang): a reset or close cuts them off. */
  const unanswered = new Set<ServerResponse>();

  const admin = createAdmin(
    () => world,
    () => {
      world.stop();
      for (const response of unanswered) response.socket?.destroy();
      unanswered.clear();
      world = createWorld(config);
    },
  );

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      config.logger.warn({ error: String(error) }, 'sandbox could not serve a request');
      if (!response.headersSent) json(response, 500, { message: 'sandbox internal error' });
      else response.destroy();
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', 'http://sandbox');
    const path = requestUrl.pathname;
    const method = request.method ?? 'GET';
    if (path.startsWith(PAY_PAGE_PREFIX) || path.startsWith(SHORT_LINK_PREFIX)) {
      await readBody(request);
      return serveCustomerPage(response, method, path);
    }
    if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
      const raw = await readBody(request);
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        return json(response, 400, { error: 'body is not JSON' });
      }
      const answer = handleAdminRequest(
        admin,
        method,
        path.slice(ADMIN_PREFIX.length) || '/',
        body,
        requestUrl.searchParams,
      );
      return json(response, answer.status, answer.body);
    }
    if (!isGatewayPath(path)) return json(response, 404, { message: `no gateway operation at ${path}` });
    if (method !== 'POST') return json(response, 405, { message: 'gateway operations are POST' });

    const raw = await readBody(request);
    unanswered.add(response);
    response.once('close', () => unanswered.delete(response));
    const reply = await handleGatewayRequest(world, handlers, path, raw);
    switch (reply.kind) {
      case 'answer':
        return json(response, reply.status, reply.body);
      case 'hang':
        // Nothing is answered; when the client gives up, the request counts as never received.
        response.once('close', reply.abandon);
        return;
      case 'drop':
        request.socket.destroy();
        return;
    }
  }

  /** The hosted page behind payUrl (and shortLink): the customer approves or declines with a button. */
  function serveCustomerPage(response: ServerResponse, method: string, path: string): void {
    if (path.startsWith(SHORT_LINK_PREFIX)) {
      const orderId = decodeURIComponent(path.slice(SHORT_LINK_PREFIX.length));
      response.writeHead(302, { location: payPagePath(orderId) }).end();
      return;
    }
    const [encodedId = '', verb] = path.slice(PAY_PAGE_PREFIX.length).split('/');
    const orderId = decodeURIComponent(encodedId);
    if (method === 'GET' && verb === undefined) {
      const order = world.customer.get(orderId);
      return order
        ? html(response, 200, orderPage(order, payPagePath(orderId)))
        : html(response, 404, notWaitingPage(orderId));
    }
    if (method === 'POST' && (verb === 'approve' || verb === 'decline')) {
      try {
        const answer = verb === 'approve' ? admin.approvePayment(orderId) : admin.declinePayment(orderId);
        if (answer.redirectUrl) {
          response.writeHead(303, { location: answer.redirectUrl }).end();
          return;
        }
        return html(response, 200, resultPage(answer));
      } catch (error) {
        if (error instanceof NotWaitingError) return html(response, 404, notWaitingPage(orderId));
        throw error;
      }
    }
    json(response, 405, { message: 'GET the page, POST …/approve or …/decline' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  config.publicUrl = url;
  config.logger.info({ url, partnerCode: config.merchant.partnerCode }, 'sandbox gateway listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    admin,
    close() {
      closing ??= new Promise<void>((resolve) => {
        world.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function resolveConfig(options: SandboxOptions): SandboxConfig {
  const initialBalances = { ...DEFAULT_BALANCES };
  for (const currency of CURRENCIES) {
    const given = options.balances?.[currency];
    if (given !== undefined) initialBalances[currency as Currency] = given;
  }
  return {
    merchant: { ...options.merchant },
    keys: { accessKey: options.merchant.accessKey, secretKey: options.merchant.secretKey },
    privateKey: toPrivateKey(options.keyPair.privateKeyPem),
    seed: options.seed ?? DEFAULT_SEED,
    timing: { ...DEFAULT_TIMING, ...options.timing },
    initialBalances,
    logger: options.logger ?? SILENT_LOGGER,
    now: options.now ?? Date.now,
    autoApprove: options.autoApprove ?? false,
    unbindUrl: options.unbindUrl,
    publicUrl: '',
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function html(response: ServerResponse, status: number, page: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=UTF-8',
    'content-length': Buffer.byteLength(page),
  });
  response.end(page);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
