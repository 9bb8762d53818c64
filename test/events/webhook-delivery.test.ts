/**
 * Webhook delivery end to end: payout runs driven through the API, their events delivered by the
 * endpoint's workflow to a real HTTP receiver, on the time-skipping server against the sandbox.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../platform/webhook-signature';
import { type WebhookTiming, webhookEndpointWorkflowId } from '../../contracts/events';
import { callApi } from '../support/api';
import { captureHistory } from '../support/history-capture';
import { payoutFile, uploadAndApprove, waitForRunStatus, type PayoutStack } from '../support/payout-stack';
import { useStack } from '../support/stack';
import { createTimeSkippingEnv, testCodecKeyring } from '../support/temporal';
import { eventually } from '../support/wait';
import { startReceiver, type Receiver } from './receiver';
import { freshId } from '../support/ids';

const taskQueue = `webhooks-${randomUUID()}`;
/**
 * Quick first retries (so five failures take seconds), the production window and ceiling. A long idle
 * look: while an object is retried the workflow looks at the feed again after at most idlePoll of workflow
 * time, and the server skips the 3-day window in few such steps (a look finds new events within 250 ms
 * however long it may wait).
 */
const timing: WebhookTiming = {
  firstRetry: '200 milliseconds',
  maxRetryInterval: '1 hour',
  retryWindow: '3 days',
  requestTimeout: '5 seconds',
  idlePoll: '1 hour',
};
const t = useStack(createTimeSkippingEnv, {
  taskQueue,
  sandbox: {
    timing: { batchValidationMs: 20, batchPaymentMs: 20 },
    balances: { VND: 100_000_000_000 },
  },
  keys: {
    adminKey: { name: 'admin', roles: ['admin'] },
    makerKey: { name: 'maker', roles: ['payouts-maker'] },
    approverKey: { name: 'approver', roles: ['payouts-approver'] },
  },
  app: { webhooks: { taskQueue, timing, keyring: testCodecKeyring, allowLoopbackHttp: true } },
  activities: { webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: true } },
});

const RUN_EVENTS = ['payout_run.awaiting_approval', 'payout_run.reconciled'];
const receivers: Receiver[] = [];
beforeAll(async () => {
  receivers.push(await startReceiver(), await startReceiver());
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const admin = (method: string, path: string, body?: unknown) =>
  callApi(t.api, t.adminKey, method, path, body);

async function createEndpoint(receiver: Receiver, eventTypes = RUN_EVENTS) {
  const created = await admin('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_/);
  receiver.secrets = [created.body.secret];
  return created.body as { endpointId: string; secret: string };
}

async function paidRun(prefix: string) {
  const runId = await uploadAndApprove(t as unknown as PayoutStack, payoutFile(freshId(`${prefix}-`, 6), 3));
  await waitForRunStatus(t.db, runId, ['reconciled']);
  return runId;
}

const eventIdsOf = async (runIds: string[]) =>
  (await t.db('events').whereIn('object_id', runIds).orderBy('position').select('event_id')).map(
    (row: { event_id: string }) => row.event_id,
  );

let first: { endpointId: string; secret: string };
let firstRuns: string[] = [];

describe('webhook delivery', () => {
  it('a receiver that fails 5 times then succeeds gets every event once, each object in order', async () => {
    const receiver = receivers[0]!;
    receiver.failNext(5);
    first = await createEndpoint(receiver);
    firstRuns = [await paidRun('wh-a'), await paidRun('wh-b')];
    const expected = await eventIdsOf(firstRuns);
    expect(expected).toHaveLength(4);

    const accepted = await eventually(() => {
      const mine = receiver.accepted.filter((event) => firstRuns.includes(event.object.id));
      expect(mine).toHaveLength(4);
      return mine;
    });
    expect(accepted.map((event) => event.id).sort()).toEqual([...expected].sort());
    for (const runId of firstRuns) {
      expect(accepted.filter((event) => event.object.id === runId).map((event) => event.type)).toEqual(
        RUN_EVENTS,
      );
    }
    expect(accepted[0]).toMatchObject({
      apiVersion: 1,
      object: { type: 'payout_run' },
      data: { rowCount: 3 },
    });
    expect(receiver.requests.filter((request) => request.answered === 503)).toHaveLength(5);

    const deliveries = await admin('GET', `/v1/webhook-endpoints/${first.endpointId}/deliveries`);
    expect(deliveries.status).toBe(200);
    const attempts = deliveries.body.deliveries as Array<{
      eventId: string;
      succeeded: boolean;
      statusCode: number;
    }>;
    expect(attempts.filter((attempt) => !attempt.succeeded)).toHaveLength(5);
    expect(
      attempts.filter((attempt) => !attempt.succeeded).every((attempt) => attempt.statusCode === 503),
    ).toBe(true);
    for (const eventId of expected)
      expect(attempts.some((attempt) => attempt.eventId === eventId && attempt.succeeded)).toBe(true);
  });

  it('signs each request so that the helper accepts it as sent and detects any alteration', async () => {
    const request = receivers[0]!.requests.find((entry) => entry.answered === 200)!;
    const now = Number(/t=(\d+)/.exec(request.signature!)![1]) * 1000;
    const check = (overrides: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({
        body: request.body,
        header: request.signature,
        secrets: first.secret,
        now,
        ...overrides,
      });
    expect(check({})).toMatchObject({ ok: true });
    // Any event may have been the first answered: alter its id, which every event has.
    const altered = request.body.replace(/"id":"([^"]+)"/, '"id":"$1x"');
    expect(altered).not.toBe(request.body);
    expect(check({ body: altered })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(check({ secrets: 'whsec_someone-else' })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(check({ now: now + 301_000 })).toEqual({ ok: false, reason: 'outside_replay_window' });
    expect(check({ header: request.signature!.replace(/v1=[0-9a-f]+/, 'v1=zz') })).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('rotates the secret with an overlap: both sign until it ends, then only the new one', async () => {
    const receiver = receivers[0]!;
    const rotated = await admin('POST', `/v1/webhook-endpoints/${first.endpointId}/rotate-secret`, {
      overlapHours: 1,
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.secret).not.toBe(first.secret);
    receiver.secrets = [rotated.body.secret];
    const runId = await paidRun('wh-rot');
    const request = await eventually(() => {
      const found = receiver.requests.find((entry) => entry.answered === 200 && entry.body.includes(runId));
      expect(found).toBeDefined();
      return found!;
    });
    expect(request.signature!.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook({ body: request.body, header: request.signature, secrets: first.secret }).ok).toBe(
      true,
    );
    expect(
      verifyWebhook({ body: request.body, header: request.signature, secrets: rotated.body.secret }).ok,
    ).toBe(true);

    const again = await admin('POST', `/v1/webhook-endpoints/${first.endpointId}/rotate-secret`, {
      overlapHours: 0,
    });
    receiver.secrets = [again.body.secret];
    const nextRun = await paidRun('wh-rot2');
    const next = await eventually(() => {
      const found = receiver.requests.find((entry) => entry.answered === 200 && entry.body.includes(nextRun));
      expect(found).toBeDefined();
      return found!;
    });
    expect(next.signature!.match(/v1=/g)).toHaveLength(1);
    expect(verifyWebhook({ body: next.body, header: next.signature, secrets: rotated.body.secret }).ok).toBe(
      false,
    );
  });

  it('re-sends an event on request, and lists the attempt as a re-send', async () => {
    const [eventId] = await eventIdsOf([firstRuns[0]!]);
    const acceptedCount = () =>
      receivers[0]!.requests.filter((entry) => entry.eventId === eventId && entry.answered === 200).length;
    expect(acceptedCount()).toBe(1);
    const resent = await admin('POST', `/v1/webhook-endpoints/${first.endpointId}/resend`, { eventId });
    expect(resent.status, JSON.stringify(resent.body)).toBe(202);
    await eventually(() => expect(acceptedCount()).toBe(2));
    const listed = await admin(
      'GET',
      `/v1/webhook-endpoints/${first.endpointId}/deliveries?eventId=${eventId}`,
    );
    expect(listed.body.deliveries[0]).toMatchObject({ eventId, trigger: 'resend', succeeded: true });
    await captureHistory(t.env.client, resent.body.workflowId, 'resent');
  });

  it('disables an endpoint whose receiver stays down longer than the retry window, and resumes on enable', async () => {
    const receiver = receivers[1]!;
    receiver.down();
    const endpoint = await createEndpoint(receiver);
    const runId = await paidRun('wh-down');
    await eventually(() => expect(receiver.requests.length).toBeGreaterThan(0));
    // The time-skipping server does not move its clock while an activity runs, and an idle endpoint's
    // workflow always has one (its look at the feed): the endpoint of the tests above goes first.
    expect((await admin('DELETE', `/v1/webhook-endpoints/${first.endpointId}`)).status).toBe(204);
    const firstWorkflow = t.env.client.workflow.getHandle(webhookEndpointWorkflowId(first.endpointId));
    await eventually(async () => expect((await firstWorkflow.describe()).status.name).toBe('COMPLETED'));
    await captureHistory(t.env.client, firstWorkflow.workflowId, 'delivered-resent-deleted', {
      everyRun: true,
    });
    // The same story with objects delivered independently (kept beside the batch-at-a-time histories above).
    await captureHistory(t.env.client, firstWorkflow.workflowId, 'objects-independent-delivered-deleted', {
      everyRun: true,
    });
    await t.env.sleep('3 days');
    const disabled = await eventually(
      async () => {
        const view = await admin('GET', `/v1/webhook-endpoints/${endpoint.endpointId}`);
        expect(view.body.status).toBe('disabled');
        return view.body;
      },
      { between: () => t.env.sleep('1 hour') },
    );
    expect(disabled.disabledReason).toContain('HTTP 503');
    expect(disabled.disabledReason).toContain('3 days');
    expect(receiver.accepted).toHaveLength(0);
    await captureHistory(t.env.client, webhookEndpointWorkflowId(endpoint.endpointId), 'disabled', {
      everyRun: true,
    });
    await captureHistory(
      t.env.client,
      webhookEndpointWorkflowId(endpoint.endpointId),
      'objects-independent-disabled',
      { everyRun: true },
    );

    receiver.up();
    const enabled = await admin('POST', `/v1/webhook-endpoints/${endpoint.endpointId}/enable`, {});
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    await eventually(() =>
      expect(
        receiver.accepted.filter((event) => event.object.id === runId).map((event) => event.type),
      ).toEqual(RUN_EVENTS),
    );
  });

  it('refuses a URL that is not https to a public host, and an unknown event type, naming the field', async () => {
    for (const url of ['http://example.com/hook', 'ftp://example.com', 'nonsense']) {
      const refused = await admin('POST', '/v1/webhook-endpoints', { url, eventTypes: RUN_EVENTS });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.problems[0].field).toBe('body.url');
    }
    // Written as the document allows, but to a private address: a rule the document cannot state, 422.
    const internal = await admin('POST', '/v1/webhook-endpoints', {
      url: 'https://192.168.1.10/hook',
      eventTypes: RUN_EVENTS,
    });
    expect(internal.status).toBe(422);
    expect(internal.body.error.problems[0]).toMatchObject({ field: 'body.url', rule: 'public_host' });
    const unknown = await admin('POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/hook',
      eventTypes: ['payout_run.exploded'],
    });
    expect(unknown.body.error.problems[0].field).toBe('body.eventTypes.0');
  });

  it('deletes an endpoint: its workflow ends and it is gone from the list', async () => {
    const endpoint = await createEndpoint(receivers[1]!);
    expect((await admin('DELETE', `/v1/webhook-endpoints/${endpoint.endpointId}`)).status).toBe(204);
    expect(
      await t.env.client.workflow.getHandle(webhookEndpointWorkflowId(endpoint.endpointId)).result(),
    ).toBe('deleted');
    await captureHistory(t.env.client, webhookEndpointWorkflowId(endpoint.endpointId), 'deleted-idle');
    expect((await admin('GET', `/v1/webhook-endpoints/${endpoint.endpointId}`)).status).toBe(404);
    const listed = await admin('GET', '/v1/webhook-endpoints');
    expect(listed.body.endpoints.map((entry: { endpointId: string }) => entry.endpointId)).not.toContain(
      endpoint.endpointId,
    );
  });
});
