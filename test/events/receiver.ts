/**
 * A merchant's webhook receiver for tests: a real node http server that verifies each request with the
 * integrators' helper, answers as told (fail the first N, or be down), and keeps what it accepted,
 * deduplicated by event id as a real receiver would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, SIGNATURE_HEADER } from '../../platform/webhook-signature';
import type { PayrunEvent } from '../../platform/event-catalogue';

export interface ReceivedRequest {
  body: string;
  signature: string | undefined;
  eventId: string | undefined;
  answered: number;
  /** The receiver's clock (ms) when it answered. */
  at: number;
}

export interface Receiver {
  url: string;
  /** The secrets the receiver verifies with (set after the endpoint is created). */
  secrets: string[];
  /** Every request, in arrival order, with what it answered. */
  requests: ReceivedRequest[];
  /** Accepted events, each id once, in the order first accepted. */
  accepted: PayrunEvent[];
  /** Answer 503 to the next `count` requests. */
  failNext(count: number): void;
  /** Answer 503 to every event of the objects with these ids (until set to none). */
  refuseObjects(objectIds: readonly string[]): void;
  /** Answer 503 to everything until `up()`. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let failures = 0;
  let isDown = false;
  let refused = new Set<string>();
  const seen = new Set<string>();
  const objectIdOf = (body: string) => {
    try {
      return (JSON.parse(body) as PayrunEvent).object.id;
    } catch {
      return undefined;
    }
  };
  const receiver = {
    secrets: [] as string[],
    requests: [] as ReceivedRequest[],
    accepted: [] as PayrunEvent[],
    failNext(count: number) {
      failures = count;
    },
    refuseObjects(objectIds: readonly string[]) {
      refused = new Set(objectIds);
    },
    down() {
      isDown = true;
    },
    up() {
      isDown = false;
    },
  } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers[SIGNATURE_HEADER] as string | undefined;
      const verdict = verifyWebhook({ body, header: signature, secrets: receiver.secrets });
      let status = 200;
      if (isDown || failures > 0) {
        failures = Math.max(0, failures - 1);
        status = 503;
      } else if (refused.size && refused.has(objectIdOf(body) ?? '')) {
        status = 503;
      } else if (!verdict.ok) {
        status = 400;
      } else {
        const event = JSON.parse(body) as PayrunEvent;
        if (!seen.has(event.id)) {
          seen.add(event.id);
          receiver.accepted.push(event);
        }
      }
      receiver.requests.push({
        body,
        signature,
        eventId: req.headers['payrun-event-id'] as string | undefined,
        answered: status,
        at: Date.now(),
      });
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payrun-events`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
