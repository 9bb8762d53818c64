/**
 * Webhook deliveries under chaos: a merchant receiver (a real HTTP server in the harness process, which
 * no fault kills) subscribed to every event type, refusing a seeded share of requests with 503 so that
 * retries happen too. At the end every event payrun recorded after the endpoint was created must have
 * reached it, each with a valid signature; copies are allowed (delivery is at least once) and counted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../../db/shared/knex';
import { EVENT_TYPES } from '../../platform/event-catalogue';
import { SIGNATURE_HEADER, verifyWebhook } from '../../platform/webhook-signature';
import type { Random } from '../../sandbox/random';
import type { ChaosApi } from './api-client';

export interface WebhookCheck {
  /** Events payrun recorded while the endpoint existed: each must be delivered. */
  recorded: number;
  delivered: number;
  /** Recorded but never accepted by the receiver (must be none): each event id with its delivery attempts. */
  lost: string[];
  /** Requests past the first accepted copy of an event (at-least-once delivery). */
  extraCopies: number;
  /** Requests the receiver refused on purpose (503), each retried by payrun. */
  refusedOnPurpose: number;
  badSignatures: number;
  /** Seconds from the end of the workload until the last recorded event was delivered. */
  drainSeconds?: number;
}

export interface WebhookWitness {
  register(api: ChaosApi, adminKey: string): Promise<void>;
  /** Waits (until `deadline`) for every event recorded since registration to be delivered, then reports. */
  check(db: Db, deadline: number): Promise<WebhookCheck>;
  close(): Promise<void>;
}

/** The share of requests the receiver answers 503 (retried by payrun after 10 s, doubling). */
const REFUSED_SHARE = 0.05;

export async function startWebhookWitness(random: Random): Promise<WebhookWitness> {
  const secrets: string[] = [];
  const accepted = new Set<string>();
  let extraCopies = 0;
  let refusedOnPurpose = 0;
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = req.headers[SIGNATURE_HEADER] as string | undefined;
      if (!verifyWebhook({ body, header, secrets }).ok) {
        badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      if (random.next() < REFUSED_SHARE) {
        refusedOnPurpose += 1;
        res.writeHead(503).end();
        return;
      }
      const { id } = JSON.parse(body) as { id: string };
      if (accepted.has(id)) extraCopies += 1;
      accepted.add(id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payrun-events`;
  let endpointId: string | undefined;

  return {
    async register(api, adminKey) {
      const answer = await api.call(adminKey, 'POST', '/v1/webhook-endpoints', {
        body: { url, eventTypes: EVENT_TYPES, description: 'chaos witness' },
      });
      if (answer.status !== 201)
        throw new Error(`registering the webhook witness: ${answer.status} ${JSON.stringify(answer.body)}`);
      endpointId = answer.body.endpointId as string;
      secrets.push(answer.body.secret as string);
    },
    async check(db, deadline) {
      if (!endpointId) throw new Error('the webhook witness was never registered');
      const waitStarted = Date.now();
      const since = db('webhook_endpoints').where({ endpoint_id: endpointId }).select('created_at');
      const recordedIds = async () =>
        (await db('events').where('created_at', '>=', since).select('event_id')).map(
          (row: { event_id: string }) => row.event_id,
        );
      let recorded = await recordedIds();
      let drainSeconds: number | undefined;
      for (;;) {
        const missing = recorded.filter((id) => !accepted.has(id));
        if (missing.length === 0) {
          drainSeconds = Math.round((Date.now() - waitStarted) / 1000);
          break;
        }
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        recorded = await recordedIds();
      }
      const lost = await Promise.all(
        recorded.filter((id) => !accepted.has(id)).map((id) => describeAttempts(db, endpointId!, id)),
      );
      return {
        recorded: recorded.length,
        delivered: recorded.length - lost.length,
        lost,
        extraCopies,
        refusedOnPurpose,
        badSignatures,
        drainSeconds,
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An undelivered event with what payrun's delivery log says of it, so a report tells late from lost. */
async function describeAttempts(db: Db, endpointId: string, eventId: string): Promise<string> {
  const attempts: Array<{
    attempt: number;
    status_code: number | null;
    error: string | null;
    attempted_at: Date;
  }> = await db('webhook_deliveries')
    .where({ endpoint_id: endpointId, event_id: eventId })
    .orderBy('delivery_id')
    .select('attempt', 'status_code', 'error', 'attempted_at');
  const last = attempts.at(-1);
  return last
    ? `${eventId}: ${attempts.length} attempts, the last at ${last.attempted_at.toISOString()} (${last.status_code ?? last.error ?? 'no answer'})`
    : `${eventId}: never attempted`;
}
