/**
 * One object's refusals hold back only that object (issue 36): a receiver refuses every event of one
 * disbursement while 1,000 events of 250 other objects are written, and each of those reaches it within
 * seconds of being written, in order per object. The refused run's events follow, in order, once the
 * receiver takes them. Real time, against the dev server, through the API and the endpoint's workflow.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordEvent } from '../../db/events/events';
import { type WebhookTiming, webhookEndpointWorkflowId } from '../../contracts/events';
import { callApi } from '../support/api';
import { freshId } from '../support/ids';
import { useStack } from '../support/stack';
import { connectDevServer, testCodecKeyring } from '../support/temporal';
import { eventually } from '../support/wait';
import { startReceiver, type Receiver } from './receiver';

const taskQueue = `webhooks-isolation-${randomUUID()}`;
/** Retries come quickly (at most 2 s apart) so the refused object's events follow soon after it is taken. */
const timing: WebhookTiming = {
  firstRetry: '200 milliseconds',
  maxRetryInterval: '2 seconds',
  retryWindow: '3 days',
  requestTimeout: '5 seconds',
  idlePoll: '1 minute',
};
const t = useStack(connectDevServer, {
  taskQueue,
  keys: { adminKey: { name: 'admin', roles: ['admin'] } },
  app: { webhooks: { taskQueue, timing, keyring: testCodecKeyring, allowLoopbackHttp: true } },
  activities: { webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: true } },
});

/** How long after it was written each event of a healthy object reaches the receiver, at most. */
const WITHIN_MS = 5_000;
const ROUNDS = 20;
const PER_ROUND = 50;
const OBJECTS = 250;
const POISONED_EVENTS = 5;
const EVENT_TYPE = 'disbursement.succeeded';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

interface Written {
  eventId: string;
  objectId: string;
}

/** The events' ids, each object's in the order they were written. */
const byObject = (events: readonly Written[]) => {
  const grouped = new Map<string, string[]>();
  for (const event of events)
    grouped.set(event.objectId, [...(grouped.get(event.objectId) ?? []), event.eventId]);
  return grouped;
};

it('a receiver refusing one object: 1,000 events of others each arrive within seconds, in order per object; the refused object’s follow in order once taken', async () => {
  const created = await callApi(t.api, t.adminKey, 'POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    // A type no other file's endpoint asks for alone (the catalogue's takes all, scoped to its objects):
    // 1,000 payout-run events would reach webhook-delivery.test.ts's receivers when the files run together.
    eventTypes: [EVENT_TYPE],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  receiver.secrets = [created.body.secret];
  const endpointId = created.body.endpointId as string;

  const poisoned = freshId('wh-poison-');
  receiver.refuseObjects([poisoned]);
  const objects = Array.from({ length: OBJECTS }, () => freshId('wh-obj-'));
  const others: Written[] = [];
  const refused: Written[] = [];
  const accepted = () => new Set(receiver.accepted.map((event) => event.id));

  for (let round = 0; round < ROUNDS; round++) {
    const written: Written[] = [];
    await t.db.transaction(async (trx) => {
      const write = async (objectId: string) => {
        written.push({ eventId: await recordEvent(trx, EVENT_TYPE, objectId, {} as never), objectId });
      };
      // The refused object's event first, in the same page as its neighbours'.
      if (round < POISONED_EVENTS) await write(poisoned);
      for (let i = 0; i < PER_ROUND; i++) await write(objects[(round * PER_ROUND + i) % OBJECTS]!);
    });
    refused.push(...written.filter((event) => event.objectId === poisoned));
    const healthy = written.filter((event) => event.objectId !== poisoned);
    others.push(...healthy);
    // The next round is written once this one's healthy events arrived: a held-back event stops the test here.
    await eventually(() => {
      const now = accepted();
      expect(healthy.filter((event) => !now.has(event.eventId))).toEqual([]);
    });
  }
  expect(others).toHaveLength(ROUNDS * PER_ROUND);

  // Each healthy event within seconds of being written, by the receiver's own clock.
  const writtenAt = new Map<string, number>(
    (
      (await t
        .db('events')
        .whereIn(
          'event_id',
          others.map((event) => event.eventId),
        )
        .select('event_id', 'created_at')) as Array<{ event_id: string; created_at: Date }>
    ).map((row) => [row.event_id, row.created_at.getTime()]),
  );
  const arrivedAt = new Map<string, number>();
  for (const request of receiver.requests)
    if (request.answered === 200 && request.eventId && !arrivedAt.has(request.eventId))
      arrivedAt.set(request.eventId, request.at);
  const late = others
    .map((event) => ({ ...event, ms: arrivedAt.get(event.eventId)! - writtenAt.get(event.eventId)! }))
    .filter((event) => !(event.ms <= WITHIN_MS));
  expect(late).toEqual([]);

  // In order per object: each object's events in the order they were written.
  const order = receiver.accepted.map((event) => event.id);
  for (const [objectId, eventIds] of byObject(others))
    expect(
      order.filter((eventId) => eventIds.includes(eventId)),
      objectId,
    ).toEqual(eventIds);

  // The refused object was tried meanwhile, and nothing of it went through.
  const refusedIds = refused.map((event) => event.eventId);
  expect(
    receiver.requests.some((request) => request.eventId === refusedIds[0] && request.answered === 503),
  ).toBe(true);
  expect(order.filter((eventId) => refusedIds.includes(eventId))).toEqual([]);

  receiver.refuseObjects([]);
  await eventually(() =>
    expect(
      receiver.accepted.map((event) => event.id).filter((eventId) => refusedIds.includes(eventId)),
    ).toEqual(refusedIds),
  );

  // What one delivery costs in the endpoint workflow's history (its current run): printed, as benchmarks do.
  const history = await t.env.client.workflow.getHandle(webhookEndpointWorkflowId(endpointId)).fetchHistory();
  const deliveries = (history.events ?? []).filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhookEvent',
  ).length;
  console.log(
    `webhook isolation: ${history.events?.length ?? 0} history events for ${deliveries} deliveries in the current run ` +
      `(${((history.events?.length ?? 0) / Math.max(1, deliveries)).toFixed(2)} per delivery)`,
  );
}, 120_000);
