/**
 * webhookEndpoint and webhookResend with fake activities: the feed's stops, each object's events in
 * order and objects side by side, refusals retried with growing waits, a retry window that runs out or
 * a refused URL disabling the endpoint, the cursor carried to the next look and across continue-as-new.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/activity';
import { webhookEndpoint, webhookResend } from '../../workflows/events/webhook-endpoint';
import {
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_BATCHES_PER_RUN,
  WEBHOOK_REFUSED,
  WEBHOOK_URL_REFUSED,
  webhookEndpointWorkflowId,
  webhookResendWorkflowId,
  type WebhookCursor,
  type WebhookTiming,
} from '../../contracts/events';
import { eventually } from '../support/wait';
import { gate, inTurn, ok, useWorkflowHarness, type AnswerOf, type Fakes } from '../support/workflow-harness';

const h = useWorkflowHarness();

const SECOND = 1000;
const timing: WebhookTiming = {
  firstRetry: '10 seconds',
  maxRetryInterval: '40 seconds',
  retryWindow: '5 minutes',
  requestTimeout: '10 seconds',
  idlePoll: '1 minute',
};
type Feed = AnswerOf<'nextWebhookEvents'>;
const at = (position: number): WebhookCursor => ({ txid: '1', position: String(position) });
const batch = (position: number, ...events: Array<[eventId: string, objectKey: string]>): Feed => ({
  events: events.map(([eventId, objectKey]) => ({ eventId, objectKey })),
  cursor: at(position),
});
const deleted: Feed = { stop: 'deleted', events: [], cursor: at(0) };
/** What the receiver answers when it refuses: retryable, as the real activity throws it. */
const refused = () =>
  ApplicationFailure.retryable('The receiver answered HTTP 500', WEBHOOK_REFUSED, { statusCode: 500 });

async function endpoint(fakes: Fakes) {
  const endpointId = h.id('we');
  const run = await h.start(webhookEndpoint, {
    workflowId: webhookEndpointWorkflowId(endpointId),
    args: [{ endpointId, timing }],
    fakes: { disableWebhookEndpoint: ok, ...fakes },
  });
  return { run, endpointId };
}

describe('webhookEndpoint', () => {
  it('the feed says the endpoint was deleted (or disabled): the workflow ends so, nothing delivered', async () => {
    const { run } = await endpoint({ nextWebhookEvents: async () => deleted });
    expect(await run.result()).toBe('deleted');
    const disabled = await endpoint({ nextWebhookEvents: async () => ({ ...deleted, stop: 'disabled' }) });
    expect(await disabled.run.result()).toBe('disabled');
    expect([...run.names(), ...disabled.run.names()]).toEqual(['nextWebhookEvents', 'nextWebhookEvents']);
  });

  it('one object’s events in order, other objects side by side; the next look starts at the cursor', async () => {
    const first = gate();
    const { run, endpointId } = await endpoint({
      nextWebhookEvents: inTurn(batch(3, ['e1', 'pay/1'], ['e2', 'pay/1'], ['e3', 'pay/2']), deleted),
      deliverWebhookEvent: async ({ eventId }) => {
        if (eventId === 'e1') await first.opened;
        return { delivered: true };
      },
    });
    // e1 is out: e3 (another object) goes meanwhile, e2 (same object) waits for it.
    // Both go out in one workflow task: the worker may start either first.
    await eventually(() =>
      expect(
        run
          .inputs('deliverWebhookEvent')
          .map((input) => input.eventId)
          .sort(),
      ).toEqual(['e1', 'e3']),
    );
    expect(run.inputs('deliverWebhookEvent').find((input) => input.eventId === 'e1')).toEqual({
      endpointId,
      eventId: 'e1',
      trigger: 'automatic',
      requestTimeoutMs: 10 * SECOND,
    });
    first.open();
    expect(await run.result()).toBe('deleted');
    expect(run.inputs('deliverWebhookEvent').map((input) => input.eventId)[2]).toBe('e2');
    expect(run.inputs('nextWebhookEvents')).toEqual([
      { endpointId, after: undefined, limit: WEBHOOK_BATCH_SIZE, waitMs: 60 * SECOND },
      { endpointId, after: at(3), limit: WEBHOOK_BATCH_SIZE, waitMs: 60 * SECOND },
    ]);
    expect(run.calls('disableWebhookEndpoint')).toEqual([]);
  });

  it('a refused delivery is retried with growing waits (same event) until accepted', async () => {
    let refusals = 3;
    // The server's clock at each attempt (an activity's scheduled time does not count the retry's wait).
    const attemptedAt: number[] = [];
    const { run } = await endpoint({
      nextWebhookEvents: inTurn(batch(1, ['e1', 'pay/1']), deleted),
      deliverWebhookEvent: async () => {
        attemptedAt.push(await h.now());
        if (refusals-- > 0) throw refused();
        return { delivered: true };
      },
    });
    expect(await run.result()).toBe('deleted');
    const attempts = run.calls('deliverWebhookEvent');
    expect(attempts.map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
    expect(new Set(attempts.map((call) => JSON.stringify(call.input))).size).toBe(1);
    const gaps = attemptedAt.slice(1).map((time, i) => time - attemptedAt[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(10 * SECOND);
    expect(gaps[1]).toBeGreaterThanOrEqual(20 * SECOND);
    // Doubling stops at maxRetryInterval.
    expect(gaps[2]).toBeGreaterThanOrEqual(40 * SECOND);
    expect(gaps[2]).toBeLessThan(80 * SECOND);
    expect(run.calls('disableWebhookEndpoint')).toEqual([]);
  });

  it('still refused when the retry window ends: the endpoint is disabled with the event and why', async () => {
    const { run, endpointId } = await endpoint({
      nextWebhookEvents: async () => batch(1, ['e1', 'pay/1'], ['e2', 'pay/1']),
      deliverWebhookEvent: async () => {
        throw refused();
      },
    });
    expect(await run.result()).toBe('disabled');
    expect(run.inputs('disableWebhookEndpoint')).toEqual([
      { endpointId, eventId: 'e1', why: expect.stringContaining('its retry window (5 minutes) ran out') },
    ]);
    // The object's next event is never sent before its predecessor was accepted.
    expect(new Set(run.inputs('deliverWebhookEvent').map((input) => input.eventId))).toEqual(new Set(['e1']));
    expect(run.calls('nextWebhookEvents')).toHaveLength(1);
  });

  it('a URL the policy refuses: disabled at once, after one attempt, with the reason', async () => {
    const { run, endpointId } = await endpoint({
      nextWebhookEvents: async () => batch(1, ['e1', 'pay/1']),
      deliverWebhookEvent: async () => {
        throw ApplicationFailure.nonRetryable(
          'The endpoint’s URL is not allowed here: loopback',
          WEBHOOK_URL_REFUSED,
        );
      },
    });
    expect(await run.result()).toBe('disabled');
    expect(run.calls('deliverWebhookEvent')).toHaveLength(1);
    expect(run.inputs('disableWebhookEndpoint')).toEqual([
      { endpointId, eventId: 'e1', why: 'The endpoint’s URL is not allowed here: loopback' },
    ]);
  });

  it(`after ${WEBHOOK_BATCHES_PER_RUN} looks it continues as new from the cursor it reached`, async () => {
    let looks = 0;
    const { run, endpointId } = await endpoint({
      nextWebhookEvents: async () => (++looks > WEBHOOK_BATCHES_PER_RUN ? deleted : batch(looks)),
    });
    expect(await run.result()).toBe('deleted');
    const calls = run.calls('nextWebhookEvents');
    expect(new Set(calls.map((call) => call.runId)).size).toBe(2);
    expect(calls.at(-1)!.input).toEqual({
      endpointId,
      after: at(WEBHOOK_BATCHES_PER_RUN),
      limit: WEBHOOK_BATCH_SIZE,
      waitMs: 60 * SECOND,
    });
  });
});

describe('webhookResend', () => {
  const resend = (fakes: Fakes) => {
    const endpointId = h.id('we');
    return h.start(webhookResend, {
      workflowId: webhookResendWorkflowId(endpointId, 'e1', h.id('rs')),
      args: [{ endpointId, eventId: 'e1', timing }],
      fakes,
    });
  };

  it('delivered, as a resend, after the receiver’s refusals', async () => {
    let refusals = 1;
    const run = await resend({
      deliverWebhookEvent: async () => {
        if (refusals-- > 0) throw refused();
        return { delivered: true };
      },
    });
    expect(await run.result()).toBe('delivered');
    expect(run.inputs('deliverWebhookEvent')).toEqual([
      expect.objectContaining({ eventId: 'e1', trigger: 'resend' }),
      expect.objectContaining({ eventId: 'e1', trigger: 'resend' }),
    ]);
  });

  it('the endpoint is no longer active: skipped', async () => {
    const run = await resend({ deliverWebhookEvent: async () => ({ delivered: false }) });
    expect(await run.result()).toBe('skipped');
  });

  it('still refused when the retry window ends: the resend fails with the receiver’s refusal', async () => {
    const run = await resend({
      deliverWebhookEvent: async () => {
        throw refused();
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe(WEBHOOK_REFUSED);
    expect(run.calls('deliverWebhookEvent').length).toBeGreaterThan(1);
  });
});
