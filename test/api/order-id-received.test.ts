/**
 * The property test issue 31 asks for: every create route is driven with the longest and oddest ids it
 * accepts (the kind's maximum length, digits only, every run of separators, ends that nearly match a derived
 * id's), the flows run against the in-process sandbox (charges, a pause and a reactivation, refunds, a
 * deletion, a payout run's batches), and then every id the sandbox *received* is checked: requestIds fit 50 characters of
 * `[0-9A-Za-z._-]`, orderIds match the spec's pattern and their operation's limit (a subscription's 50
 * for all of its orderIds), each orderId belongs to exactly one object, a requestId names one order, and
 * every orderId was reserved in the namespace before it was sent.
 *
 * The test checks what reached the gateway: a flow an activity stops before the gateway (a requestId it
 * derives too long, refused by payrun's own client) sends nothing, and is listed in the log line
 * `stopped before the gateway`, not failed here.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { operationSpec, ORDER_ID_PATTERN, type OperationName } from '../../gateway';
import type { ReceivedRequest } from '../../sandbox/request-log';
import { dayOfGmt7, instantOf } from '../../contracts/subscriptions';
import {
  LOOKUP_ENDING,
  maxUserIdLength,
  ORDER_ID_FAMILIES,
  REQUEST_ID_MAX_LENGTH,
  USER_ID_KINDS,
  userIdProblem,
  type IdKind,
  type UserIdKind,
} from '../../gateway/ids';
import { PAYOUT_HEADER } from '../support/payout-stack';
import { walletRemittance } from '../support/remittance-stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import {
  call,
  disbursementBody,
  paymentBody,
  subscriptionBody,
  useOrderIdStack,
  type OrderIdFixture,
} from '../support/order-id-stack';

// The sandbox's clock follows the time-skipping server's, so the subscriptions' first charges come due when
// the test skips to them; the API's own waits do not skip time.
const t: OrderIdFixture = useOrderIdStack(createTimeSkippingEnv, { clock: 'server', plainApiClient: true });

const tag = randomUUID().replaceAll('-', '').slice(0, 6);
const digitsTag = String(Number.parseInt(tag, 16)).padStart(8, '0');
const SEPARATOR_RUNS = ['-', '_', '.', '--', '-_', '_.', '.-', '-.-', '_-_', '...', '-_.', '.-_-'];
const NEAR_ENDINGS = ['-c', '-verif', '-q0123456789a', '-B001', '-del1', '-c1x', '-chk2'];

/** The longest and oddest ids of a kind the API takes, unique to this run and this kind. */
function oddIds(kind: UserIdKind, letter: string, digit: string): string[] {
  const max = maxUserIdLength(kind);
  const start = `${letter}${tag}`;
  let separated = start;
  for (let i = 0; separated.length < max; i += 1)
    separated += `${SEPARATOR_RUNS[i % SEPARATOR_RUNS.length]}${'abcXYZ019'[i % 9]}`;
  separated = separated.slice(0, max).replace(/[-_.]+$/, '');
  const near = (ending: string) => `${start}${'y'.repeat(max - start.length - ending.length)}${ending}`;
  const ids = [
    `${start}${'z'.repeat(max - start.length)}`,
    `${digit}${digitsTag}`.padEnd(max, '7'),
    separated,
    near(NEAR_ENDINGS[0]!),
    near(NEAR_ENDINGS[1]!),
    near(NEAR_ENDINGS[2]!),
    `${start}q`,
    ...(kind === 'disbursement' ? [`${start}-`.padEnd(39, 'k')] : []),
    ...(kind === 'payment' ? [near(NEAR_ENDINGS[3]!), `${start}-`.padEnd(44, 'r')] : []),
  ];
  return ids;
}

interface Created {
  kind: IdKind;
  id: string;
}
const created: Created[] = [];
const enc = encodeURIComponent;

/** The orderId limit an operation's table entry states (undefined: none). */
function orderIdLimit(operation: OperationName): number | undefined {
  const field = operationSpec(operation).request.orderId;
  return field?.kind === 'string' ? field.maxLength : undefined;
}

/** Whether `orderId` is `id` itself or an id derived from it by one of its kind's families. */
function belongsTo(orderId: string, object: Created): boolean {
  if (object.kind !== 'payout_run' && orderId === object.id) return true;
  if (!orderId.startsWith(object.id)) return false;
  const rest = orderId.slice(object.id.length);
  return ORDER_ID_FAMILIES.some(
    (family) => family.base === object.kind && new RegExp(`^${family.ending.source}`).test(rest),
  );
}

/** A lookup's orderId: fresh each time, it names no object (lookupIdFor, or today's balance lookups). */
const isLookup = (request: ReceivedRequest) =>
  request.operation === 'disbursement.balance' || LOOKUP_ENDING.test(request.orderId ?? '');

const statusOf = async (path: string) => (await call(t, 'GET', path)).body as Record<string, unknown>;

/**
 * Waits until the record at `path` is `done`, or its workflow has closed without getting it there (an
 * activity that stopped it before the gateway): the flow has settled one way or the other.
 */
async function settle(path: string, done: (body: Record<string, unknown>) => boolean) {
  return eventually(async () => {
    const body = await statusOf(path);
    if (done(body)) return body;
    const workflowId = typeof body.workflowId === 'string' ? body.workflowId : undefined;
    if (workflowId) {
      const { status } = await t.env.client.workflow.getHandle(workflowId).describe();
      if (status.name !== 'RUNNING') return { ...body, workflowClosed: status.name };
    }
    throw new Error(`${path} is still ${JSON.stringify(body.status ?? body.state ?? body)}`);
  });
}

/** The API took the id (no 400 or 409): what the flow then does is the gateway's and the activities' business. */
const answers: string[] = [];
function accepted(what: string, answer: { status: number; body: unknown }) {
  expect([400, 409, 422], `${what}: ${JSON.stringify(answer.body)}`).not.toContain(answer.status);
  if (answer.status >= 300) answers.push(`${what} answered ${answer.status}`);
}

async function uploadPayoutRun(): Promise<string> {
  const rows = [1, 2].map((n) => `po-${tag}-${n},0912345678,Receiver ${n},,${10_000 + n},Payout ${n},`);
  const response = await fetch(`${t.api.baseUrl}/v1/payout-runs?fileName=ids.csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.makerKey}`, 'content-type': 'text/csv' },
    body: [PAYOUT_HEADER, ...rows].join('\n') + '\n',
  });
  const body = (await response.json()) as { runId: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  const approved = await fetch(`${t.api.baseUrl}/v1/payout-runs/${body.runId}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.approverKey}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(approved.status).toBe(200);
  return body.runId;
}

describe('every id the gateway receives, from the longest and oddest ids each create route takes', () => {
  it('drives payments, disbursements, subscriptions, remittances, saved methods and a payout run', async () => {
    const ids = {
      payment: oddIds('payment', 'P', '1'),
      disbursement: oddIds('disbursement', 'D', '2'),
      subscription: oddIds('subscription', 'S', '3'),
      saved_method_payment: oddIds('saved_method_payment', 'T', '4'),
    };
    for (const kind of USER_ID_KINDS)
      expect(ids[kind].filter((id) => userIdProblem(kind, id) !== undefined)).toEqual([]);
    expect(ids.payment.some((id) => id.length === maxUserIdLength('payment'))).toBe(true);

    // Payments: each waits for its customer, who pays; then a refund (`-r1`).
    for (const id of ids.payment) {
      accepted(`payment ${id}`, await call(t, 'POST', '/v1/payments', paymentBody(id)));
      created.push({ kind: 'payment', id });
    }
    // Disbursements to a wallet: check (`-chk`), balance, pay.
    for (const id of ids.disbursement) {
      accepted(`disbursement ${id}`, await call(t, 'POST', '/v1/disbursements', disbursementBody(id)));
      created.push({ kind: 'disbursement', id });
    }
    // Subscriptions: the customer authorizes, the first cycle is charged tomorrow (`-c1`), then a pause (`-m1`).
    const tomorrow = dayOfGmt7((await t.env.currentTimeMs()) + 24 * 3600_000);
    for (const id of ids.subscription) {
      accepted(
        `subscription ${id}`,
        await call(t, 'POST', '/v1/subscriptions', subscriptionBody(id, tomorrow)),
      );
      created.push({ kind: 'subscription', id });
    }
    // Remittances (ids payrun draws): quote, buy (`-buy`), wallet check (`-verify`), balance, create.
    for (let i = 0; i < 2; i += 1) {
      const answer = await call(t, 'POST', '/v1/remittances', walletRemittance());
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      created.push({ kind: 'remittance', id: answer.body.remittanceId });
    }
    // A saved card (a binding payrun names), paid with by every odd saved-method payment id, then deleted (`-del`).
    const binding = await call(t, 'POST', '/v1/saved-method-bindings', {
      kind: 'card',
      partnerClientId: `card-${tag}`,
      userInfo: { email: 'an@example.com', name: 'Nguyen Van An' },
    });
    expect(binding.status, JSON.stringify(binding.body)).toBe(201);
    created.push({ kind: 'saved_method_binding', id: binding.body.bindingId });
    const runId = await uploadPayoutRun();
    created.push({ kind: 'payout_run', id: runId });

    await eventually(() => t.sandbox.admin.approvePayment(binding.body.orderId));
    const bound = await settle(`/v1/saved-method-bindings/${binding.body.bindingId}`, (body) =>
      ['active', 'failed', 'expired'].includes(String(body.status)),
    );
    expect(bound.status).toBe('active');
    for (const id of ids.saved_method_payment) {
      const answer = await call(t, 'POST', '/v1/saved-method-payments', {
        paymentId: id,
        methodId: bound.methodId,
        amount: 20_000,
      });
      accepted(`saved-method payment ${id}`, answer);
      created.push({ kind: 'saved_method_payment', id });
    }

    // Customers approve what waits for them; every flow settles one way or the other.
    for (const id of [...ids.payment, ...ids.subscription]) {
      const path = ids.payment.includes(id) ? `/v1/payments/${enc(id)}` : `/v1/subscriptions/${enc(id)}`;
      const body = await settle(path, (row) => row.status !== 'created');
      if (body.status === 'awaiting_customer' || body.status === 'authorizing') {
        await eventually(() => t.sandbox.admin.approvePayment(id));
        // One customer at a time: the time-skipping server has dropped a workflow task ("invalid history
        // builder state for action") when several workflows' notifications landed at once, leaving a paid
        // payment awaiting its customer for good.
        await settle(path, (row) => !['awaiting_customer', 'authorizing'].includes(String(row.status)));
      }
    }
    const paid = [];
    for (const id of ids.payment) {
      const body = await settle(`/v1/payments/${enc(id)}`, (row) =>
        ['succeeded', 'failed', 'cancelled'].includes(String(row.status)),
      );
      if (body.status === 'succeeded') paid.push(id);
    }
    for (const id of paid) {
      const refund = await call(t, 'POST', `/v1/payments/${enc(id)}/refunds`, {
        amount: 50_000,
        description: 'x',
      });
      accepted(`refund of ${id}`, refund);
    }
    for (const id of ids.disbursement)
      await settle(`/v1/disbursements/${enc(id)}`, (row) =>
        ['succeeded', 'failed', 'needs_attention'].includes(String(row.status)),
      );

    const active = [];
    for (const id of ids.subscription) {
      const body = await settle(`/v1/subscriptions/${enc(id)}`, (row) => row.status !== 'authorizing');
      if (body.status === 'active') active.push(id);
    }
    // To the first charge's day, until every active subscription has its first charge's answer.
    const chargeDay = instantOf(tomorrow, 12);
    const now = await t.env.currentTimeMs();
    if (chargeDay > now) await t.env.sleep(chargeDay - now);
    for (const id of active)
      await eventually(
        async () => {
          const body = await statusOf(`/v1/subscriptions/${enc(id)}`);
          const charges = (body.charges as Array<{ cycle: number; status: string }>).filter(
            (c) => c.cycle === 1,
          );
          if (!charges.some((charge) => ['succeeded', 'failed'].includes(charge.status)))
            throw new Error(`${id}: cycle 1 not charged yet (${JSON.stringify(body.charges)})`);
        },
        { between: () => t.env.sleep('10 minutes') },
      );
    for (const id of active) {
      const paused = await call(t, 'POST', `/v1/subscriptions/${enc(id)}/pause`, { reason: 'ids' });
      if (paused.status !== 200) answers.push(`pause of ${id} answered ${paused.status}`);
      // The longest manage step: `-m2-reactivate`.
      const reactivated = await call(t, 'POST', `/v1/subscriptions/${enc(id)}/reactivate`, { reason: 'ids' });
      if (reactivated.status !== 200) answers.push(`reactivation of ${id} answered ${reactivated.status}`);
    }

    for (const object of created.filter((entry) => entry.kind === 'remittance'))
      await settle(`/v1/remittances/${object.id}`, (row) =>
        ['succeeded', 'failed', 'needs_attention'].includes(String(row.status)),
      );
    await settle(`/v1/payout-runs/${runId}`, (row) =>
      ['reconciled', 'needs_attention'].includes(String(row.status)),
    );
    const deleted = await call(t, 'DELETE', `/v1/saved-methods/${enc(String(bound.methodId))}`);
    if (deleted.status !== 200) answers.push(`deletion answered ${deleted.status}`);

    // ---- what the gateway received
    const requests = t.sandbox.admin.requests();
    const subscriptionLimit = orderIdLimit('subscription.start')!;
    const problems: string[] = [];
    for (const request of requests) {
      const { operation, orderId, requestId } = request;
      const what = `${operation} ${JSON.stringify({ orderId, requestId })}`;
      if (requestId === undefined) problems.push(`${what}: no requestId`);
      else if (requestId.length > REQUEST_ID_MAX_LENGTH || !/^[0-9A-Za-z._-]+$/.test(requestId))
        problems.push(`${what}: requestId breaks String(${REQUEST_ID_MAX_LENGTH}) or its alphabet`);
      if (orderId === undefined) continue;
      if (!ORDER_ID_PATTERN.test(orderId)) problems.push(`${what}: orderId breaks the pattern`);
      if (orderId.length > (orderIdLimit(operation) ?? Infinity)) problems.push(`${what}: orderId too long`);
      if (isLookup(request)) continue;
      const owners = created.filter((object) => belongsTo(orderId, object));
      if (owners.length !== 1)
        problems.push(`${what}: orderId belongs to ${owners.length} objects ${JSON.stringify(owners)}`);
      if (owners[0]?.kind === 'subscription' && orderId.length > subscriptionLimit)
        problems.push(`${what}: a subscription orderId longer than ${subscriptionLimit}`);
    }
    // A requestId names one request: one operation on one order.
    const byRequestId = new Map<string, Set<string>>();
    for (const { operation, orderId, requestId } of requests)
      if (requestId !== undefined)
        byRequestId.set(requestId, (byRequestId.get(requestId) ?? new Set()).add(`${operation} ${orderId}`));
    for (const [requestId, orders] of byRequestId)
      if (orders.size > 1) problems.push(`requestId ${requestId} names ${[...orders].join(' and ')}`);
    // Every orderId was the namespace's before the gateway heard of it (manage calls: reserveManageOrderId).
    const sent = [
      ...new Set(
        requests
          .filter((request) => request.orderId && !isLookup(request))
          .map((request) => request.orderId!),
      ),
    ];
    const reserved = new Set(
      (await t.db('gateway_order_ids').whereIn('order_id', sent).select('order_id')).map(
        (row: { order_id: string }) => row.order_id,
      ),
    );
    for (const orderId of sent) if (!reserved.has(orderId)) problems.push(`${orderId} was sent unreserved`);
    expect(problems).toEqual([]);

    // The flows reached every family of derived orderIds (the test drove them, it did not pass by silence).
    const received = new Set(requests.map((request) => `${request.operation} ${request.orderId ?? ''}`));
    const reached = (operation: OperationName, ending: RegExp) =>
      [...received].some((entry) => entry.startsWith(`${operation} `) && ending.test(entry));
    expect({
      payment: reached('payment.captureWallet', new RegExp(`${tag}`)),
      refund: reached('refund.create', /-r1$/),
      // Checks and deletions create nothing: lookup ids, fresh on every attempt.
      check: reached('disbursement.verify', LOOKUP_ENDING),
      disbursement: reached('disbursement.pay', new RegExp(`${tag}`)),
      subscription: reached('subscription.start', new RegExp(`${tag}`)),
      charge: reached('subscription.pay', /-c1$/),
      manage: reached('subscription.manage', /-m1$/),
      reactivation: reached('subscription.manage', /-m2$/),
      buy: reached('remittance.buy', /-buy$/),
      verify: reached('remittance.verify', LOOKUP_ENDING),
      remittance: reached('remittance.create', /^remittance\.create rmt-/),
      binding: reached('binding.payWithCC', /bnd-/),
      tokenPayment: reached('tokenization.pay', new RegExp(`${tag}`)),
      deletion: reached('tokenization.delete', LOOKUP_ENDING),
      batch: reached('batch.create', /-b001$/),
    }).toEqual({
      payment: true,
      refund: true,
      check: true,
      disbursement: true,
      subscription: true,
      charge: true,
      manage: true,
      reactivation: true,
      buy: true,
      verify: true,
      remittance: true,
      binding: true,
      tokenPayment: true,
      deletion: true,
      batch: true,
    });

    // What never reached the gateway: stopped by an activity (a derived requestId payrun's client refuses).
    const silent = created.filter(
      (object) => !requests.some((request) => request.orderId && belongsTo(request.orderId, object)),
    );
    console.info(
      `order ids: ${requests.length} requests received for ${created.length} objects; stopped before the gateway: ` +
        (silent.map((object) => `${object.kind} ${object.id} (${object.id.length})`).join(', ') || 'none') +
        `; answers: ${answers.join(', ') || 'all 2xx'}`,
    );
  }, 600_000);
});
