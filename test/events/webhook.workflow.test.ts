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
import { gate, ok, useWorkflowHarness, type AnswerOf, type Fakes } from '../support/workflow-harness';

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
/**
 * The feed hands over `pages`, then nothing new (at the last page's cursor) while `busy()`, then says
 * the endpoint was deleted: the workflow ends once what it read went out.
 */
const pagesThenDeleted = (busy: () => boolean, ...pages: Feed[]) => {
  let next = 0;
  return async (): Promise<Feed> => {
    if (next < pages.length) return pages[next++]!;
    return busy() ? { events: [], cursor: pages.at(-1)!.cursor } : deleted;
  };
};
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
    const delivered = new Set<string>();
    const { run, endpointId } = await endpoint({
      nextWebhookEvents: pagesThenDeleted(
        () => delivered.size < 3,
        batch(3, ['e1', 'pay/1'], ['e2', 'pay/1'], ['e3', 'pay/2']),
      ),
      deliverWebhookEvent: async ({ eventId }) => {
        if (eventId === 'e1') await first.opened;
        delivered.add(eventId);
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
    const looks = run.inputs('nextWebhookEvents');
    expect(looks[0]).toEqual({
      endpointId,
      after: undefined,
      deliveredUpTo: null,
      limit: WEBHOOK_BATCH_SIZE,
      waitMs: 60 * SECOND,
    });
    // Once all three went out the stored cursor moves to the page's end, and the look waits for more.
    expect(looks.at(-1)).toEqual({
      endpointId,
      after: at(3),
      deliveredUpTo: at(3),
      limit: WEBHOOK_BATCH_SIZE,
      waitMs: 60 * SECOND,
    });
    expect(run.calls('disableWebhookEndpoint')).toEqual([]);
  });

  it('a refused delivery is retried with growing waits (same event) until accepted', async () => {
    let refusals = 3;
    // The server's clock at each attempt (an activity's scheduled time does not count the retry's wait).
    const attemptedAt: number[] = [];
    const { run } = await endpoint({
      nextWebhookEvents: pagesThenDeleted(() => refusals >= 0, batch(1, ['e1', 'pay/1'])),
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
      nextWebhookEvents: pagesThenDeleted(() => true, batch(1, ['e1', 'pay/1'], ['e2', 'pay/1'])),
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
    // The feed was looked at on meanwhile, but the stored cursor never moved past the event not delivered.
    expect(run.calls('nextWebhookEvents').length).toBeGreaterThan(1);
    expect(run.inputs('nextWebhookEvents').every((input) => input.deliveredUpTo === null)).toBe(true);
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

  it('an object that is refused holds back only its own later events; the stored cursor stays before it', async () => {
    let accepting = false;
    const sent: string[] = [];
    const feed = pagesThenDeleted(
      () => !sent.includes('p2'),
      batch(2, ['p1', 'pay/1'], ['a1', 'pay/2']),
      batch(4, ['a2', 'pay/3'], ['p2', 'pay/1']),
    );
    /** What each look asked to store while p1 was not delivered. */
    const storedWhileP1Waits: unknown[] = [];
    const { run } = await endpoint({
      nextWebhookEvents: async (input) => {
        if (!sent.includes('p1')) storedWhileP1Waits.push(input.deliveredUpTo);
        return feed();
      },
      deliverWebhookEvent: async ({ eventId }) => {
        if (eventId === 'p1' && !accepting) throw refused();
        sent.push(eventId);
        return { delivered: true };
      },
    });
    // a2 was read after p1 was refused, and went out without waiting for it; p2 waits behind p1.
    await eventually(() => expect(sent).toEqual(['a1', 'a2']));
    accepting = true;
    expect(await run.result()).toBe('deleted');
    expect(sent).toEqual(['a1', 'a2', 'p1', 'p2']);
    const stored = run.inputs('nextWebhookEvents').map((input) => input.deliveredUpTo);
    // Never past p1 while it waited (null: where the run started, the stored cursor), though a2 after it went out.
    expect(storedWhileP1Waits.length).toBeGreaterThan(2);
    expect(storedWhileP1Waits.every((place) => place === null)).toBe(true);
    expect(stored.at(-1)).toEqual(at(4));
  });

  it('an object still refused at continue-as-new: its events go to the next run and out in order there', async () => {
    let looks = 0;
    const sent: Array<{ eventId: string }> = [];
    const others = WEBHOOK_BATCHES_PER_RUN + 5;
    const { run } = await endpoint({
      nextWebhookEvents: async () => {
        looks++;
        if (looks === 1) return batch(1, ['p1', 'pay/1'], ['p2', 'pay/1']);
        // One event of another object per look: the run reads on and continues as new with p1 still refused.
        if (looks <= others) return batch(looks, [`a${looks}`, `other/${looks}`]);
        return sent.some((entry) => entry.eventId === 'p2') ? deleted : batch(looks);
      },
      deliverWebhookEvent: async ({ eventId }) => {
        if (eventId === 'p1' && looks <= WEBHOOK_BATCHES_PER_RUN) throw refused();
        sent.push({ eventId });
        return { delivered: true };
      },
    });
    expect(await run.result()).toBe('deleted');
    const order = sent.map((entry) => entry.eventId);
    expect(order.filter((eventId) => eventId.startsWith('a'))).toHaveLength(others - 1);
    expect(order.indexOf('p1')).toBeLessThan(order.indexOf('p2'));
    const p1Attempts = run
      .calls('deliverWebhookEvent')
      .filter((call) => (call.input as { eventId: string }).eventId === 'p1');
    const runs = [...new Set(run.calls('nextWebhookEvents').map((call) => call.runId))];
    expect(runs.length).toBeGreaterThanOrEqual(2);
    // Refused in the first run, accepted in a later one: carried over, not lost, not reordered.
    expect(p1Attempts[0]!.runId).toBe(runs[0]);
    expect(p1Attempts.at(-1)!.runId).not.toBe(runs[0]);
    const p2Attempts = run
      .calls('deliverWebhookEvent')
      .filter((call) => (call.input as { eventId: string }).eventId === 'p2');
    expect(p2Attempts.every((call) => call.runId !== runs[0])).toBe(true);
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
      deliveredUpTo: at(WEBHOOK_BATCHES_PER_RUN),
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
