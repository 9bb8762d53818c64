/**
 * Every event type of the catalogue, produced by driving each capability through payrun's API (against
 * the sandbox, on one time-skipping server), and delivered by a webhook endpoint to a real HTTP receiver.
 * The endpoint's delivery workflow runs on the run's dev server, in real time: it reads the same events
 * table, wherever the changes came from (and an idle endpoint would hold the time-skipping clock).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PayrunWorker as Worker } from '../../workers/worker';
import { createWebhookActivities } from '../../activities/events/webhooks';
import { createApp } from '../../api/app';
import { defaultSavedMethodSettings } from '../../api/saved-methods/saved-methods';
import type { Db } from '../../db/shared/knex';
import { createGatewayClient } from '../../gateway';
import { isSensitiveField } from '../../gateway/sensitive-fields';
import { EVENT_TYPES, type PayrunEvent } from '../../platform/event-catalogue';
import { createLogger } from '../../platform/logger';
import { generateSandboxKeyPair } from '../../sandbox';
import { addDays, dayOfGmt7, instantOf, DEFAULT_SUBSCRIPTION_TIMING } from '../../contracts/subscriptions';
import { DEFAULT_WEBHOOK_TIMING } from '../../contracts/events';
import { testPaymentSettings, TEST_HOLD } from '../payments/payment-stack';
import { callApi, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { payoutFile, startPayoutStack, uploadAndApprove, waitForRunStatus } from '../support/payout-stack';
import {
  bankRemittance,
  startRemittanceStack,
  waitForRemittance,
  walletRemittance,
  type RemittanceStack,
} from '../support/remittance-stack';
import { testApiSettings, testMerchant } from '../support/settings';
import { startStack, type Stack } from '../support/stack';
import {
  connectDevServer,
  createTestWorker,
  createTimeSkippingEnv,
  testCodecKeyring,
} from '../support/temporal';
import { eventually } from '../support/wait';
import { durationMs } from '../../contracts/shared';
import { startReceiver, type Receiver } from './receiver';
import { freshId } from '../support/ids';
import { approvalStateQuery, DEFAULT_APPROVAL_POLICY } from '../../contracts/approvals';

let env: TestWorkflowEnvironment;
let devEnv: TestWorkflowEnvironment;
let db: Db;
let receiver: Receiver;
let webhookApi: RunningApi;
let webhookWorker: { worker: Worker; running: Promise<void> };
let payouts: Awaited<ReturnType<typeof startPayoutStack>>;
let remittances: RemittanceStack;
let payments: Stack<'key'>;
let tokens: Stack<'key'>;
let subscriptions: Stack<'key' | 'viewerKey'>;

/** The objects this file drove, by type: only their events are asserted (other files share the database). */
const objectIds = new Set<string>();
const mine = (id: string) => {
  objectIds.add(id);
  return id;
};

beforeAll(async () => {
  db = connectTestDatabase();
  receiver = await startReceiver();
  // Webhook delivery on the dev server, in real time.
  devEnv = await connectDevServer();
  const webhookQueue = `catalogue-webhooks-${randomUUID()}`;
  const timing = { ...DEFAULT_WEBHOOK_TIMING, firstRetry: '200 milliseconds', idlePoll: '5 seconds' };
  const created = await createTestWorker(
    devEnv,
    createWebhookActivities({ db, webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: true } }),
    webhookQueue,
  );
  webhookWorker = { worker: created.worker, running: created.worker.run() };
  webhookApi = await listen(
    createApp({
      db,
      temporal: devEnv.client,
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings(webhookQueue),
      webhooks: { taskQueue: webhookQueue, timing, keyring: testCodecKeyring, allowLoopbackHttp: true },
    }),
  );
  const admin = await newKey(db, ['admin']);
  const endpoint = await callApi(webhookApi, admin, 'POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    eventTypes: EVENT_TYPES,
    description: 'every event type',
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  receiver.secrets = [endpoint.body.secret];

  // The capabilities, each with its sandbox, API and worker, on one time-skipping server.
  env = await createTimeSkippingEnv();
  payouts = await startPayoutStack(env, db);
  remittances = await startRemittanceStack(env, db);
  const paymentQueue = `catalogue-payments-${randomUUID()}`;
  payments = await startStack(env, db, {
    taskQueue: paymentQueue,
    sandbox: { timing: { authorizationHoldMs: durationMs(TEST_HOLD) } },
    app: {
      payments: testPaymentSettings(paymentQueue),
      // Refunds wait for approvers from 10 million VND and expire after 36 s: approval.expired.
      approvals: { policy: { ...DEFAULT_APPROVAL_POLICY, expiresAfterHours: 0.01 } },
    },
    keys: { key: { name: 'payments', roles: ['payments'] } },
  });
  const tokenQueue = `catalogue-tokens-${randomUUID()}`;
  const tokenKeyring = { currentKeyId: 'tok', keys: new Map([['tok', randomBytes(32)]]) };
  tokens = await startStack(env, db, {
    taskQueue: tokenQueue,
    clock: 'movable',
    sandbox: { timing: { pendingSettleMs: 60_000, customerDelayMs: 10 } },
    plainApiClient: true,
    unbindToApi: true,
    app: { savedMethods: defaultSavedMethodSettings(tokenQueue, '3 seconds') },
    activities: { merchantSecrets: { merchantSecretKey: testMerchant.secretKey, keyring: tokenKeyring } },
    keys: { key: { name: 'payments', roles: ['payments'] } },
  });
  const subscriptionQueue = `catalogue-subscriptions-${randomUUID()}`;
  subscriptions = await startStack(env, db, {
    taskQueue: subscriptionQueue,
    clock: 'server',
    app: {
      subscriptions: {
        taskQueue: subscriptionQueue,
        linksWaitMs: 10_000,
        timing: {
          ...DEFAULT_SUBSCRIPTION_TIMING,
          insufficientFundsRetryDelay: '1 day',
          authorizationIpnWait: '10 minutes',
          gatewayAttemptTimeout: '3 seconds',
          pendingCheckInterval: '1 minute',
        },
      },
    },
    activities: {
      merchantSecrets: {
        merchantSecretKey: testMerchant.secretKey,
        keyring: { currentKeyId: 'sub', keys: new Map([['sub', randomBytes(32)]]) },
      },
    },
    keys: { key: { name: 'billing', roles: ['billing'] }, viewerKey: { name: 'viewer', roles: ['viewer'] } },
    workerTuning: { maxCachedWorkflows: 0 },
  });
}, 180_000);

afterAll(async () => {
  for (const stack of [subscriptions, tokens, payments, remittances, payouts]) await stack?.close();
  await env?.teardown();
  webhookWorker?.worker.shutdown();
  await webhookWorker?.running;
  await webhookApi?.close();
  await receiver?.close();
  await devEnv?.teardown();
  await db?.destroy();
});

/** What the events table holds for one object, oldest first. */
const typesOf = async (objectId: string) =>
  (await db('events').where({ object_id: objectId }).orderBy('position').select('type')).map(
    (row: { type: string }) => row.type,
  );

describe('payout runs and disbursements', () => {
  it('awaiting_approval, awaiting_funds and reconciled; needs_attention when the gateway refuses a batch', async () => {
    const clean = mine(await uploadAndApprove(payouts, payoutFile(freshId('cat-ok-', 6), 2)));
    await waitForRunStatus(db, clean, ['reconciled']);
    expect(await typesOf(clean)).toEqual(['payout_run.awaiting_approval', 'payout_run.reconciled']);

    // Each row's outcome is an event about the row (its payout id): one paid, one refused (1008).
    const rowsPrefix = freshId('cat-row-', 6);
    const rows = mine(
      await uploadAndApprove(
        payouts,
        payoutFile(rowsPrefix, 2, (index) => (index === 0 ? '0900001008' : '0912345678')),
      ),
    );
    await waitForRunStatus(db, rows, ['reconciled']);
    expect(await typesOf(mine(`${rowsPrefix}-1`))).toEqual(['payout_item.failed']);
    expect(await typesOf(mine(`${rowsPrefix}-2`))).toEqual(['payout_item.succeeded']);

    payouts.sandbox.admin.setBalance('VND', 5_000);
    const short = mine(await uploadAndApprove(payouts, payoutFile(freshId('cat-short-', 6), 2)));
    await waitForRunStatus(db, short, ['awaiting_funds']);
    payouts.sandbox.admin.setBalance('VND', 100_000_000);
    const resumed = await callApi(
      payouts.api,
      payouts.approverKey,
      'POST',
      `/v1/payout-runs/${short}/resume`,
      {},
    );
    expect(resumed.status).toBe(200);
    await waitForRunStatus(db, short, ['reconciled']);
    expect(await typesOf(short)).toEqual([
      'payout_run.awaiting_approval',
      'payout_run.awaiting_funds',
      'payout_run.reconciled',
    ]);

    // The gateway refuses the batch (its total changed while init was in flight: 20), so nobody is paid.
    payouts.sandbox.admin.setFaults({ operation: 'batch.init', latencyMs: 500, times: 1 });
    const pending = mine(await uploadAndApprove(payouts, payoutFile(freshId('cat-ref-', 6), 2)));
    await eventually(async () =>
      expect((await db('payout_batches').where({ run_id: pending }).first()).status).toBe('initiating'),
    );
    await db('payout_items').where({ run_id: pending }).orderBy('row_number').limit(1).increment('amount', 1);
    await waitForRunStatus(db, pending, ['needs_attention']);
    expect(await typesOf(pending)).toEqual(['payout_run.awaiting_approval', 'payout_run.needs_attention']);
  });

  it('disbursement.succeeded and disbursement.failed', async () => {
    const disburse = async (walletId: string) => {
      const disbursementId = mine(`cat-d_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
      const created = await callApi(payouts.api, payouts.makerKey, 'POST', '/v1/disbursements', {
        disbursementId,
        amount: 250_000,
        wallet: { walletId, walletName: 'Nguyen Van B', personalId: '079123456789' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return disbursementId;
    };
    const paid = await disburse('0912345678');
    const refused = await disburse('0900001007');
    await eventually(async () => {
      expect(await typesOf(paid)).toEqual(['disbursement.succeeded']);
      expect(await typesOf(refused)).toEqual(['disbursement.failed']);
    });
  });
});

describe('approvals', () => {
  const waitsForApprovers = (workflowId: string) =>
    eventually(async () => {
      const state = await env.client.workflow.getHandle(workflowId).query(approvalStateQuery);
      expect(state.status).toBe('requested');
    });

  it('approval.requested, approval.approved and approval.rejected', async () => {
    // 12 million VND: one approver besides the maker under the default policy.
    const disburse = async () => {
      const disbursementId = mine(freshId('cat-apv-', 8));
      const created = await callApi(payouts.api, payouts.makerKey, 'POST', '/v1/disbursements', {
        disbursementId,
        amount: 12_000_000,
        wallet: { walletId: '0912345678', walletName: 'Nguyen Van B', personalId: '079123456789' },
      });
      expect(created.body.status, JSON.stringify(created.body)).toBe('awaiting_approval');
      await waitsForApprovers(created.body.workflowId);
      return disbursementId;
    };
    const approved = await disburse();
    const rejected = await disburse();
    for (const [id, decision] of [
      [approved, 'approve'],
      [rejected, 'reject'],
    ] as const) {
      const decided = await callApi(
        payouts.api,
        payouts.approverKey,
        'POST',
        `/v1/approvals/disbursement/${id}/${decision}`,
        {},
      );
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    }
    await eventually(async () => {
      expect(await typesOf(approved)).toEqual(['disbursement.succeeded']);
      expect(await typesOf(mine(`disbursement:${approved}`))).toEqual([
        'approval.requested',
        'approval.approved',
      ]);
      expect(await typesOf(mine(`disbursement:${rejected}`))).toEqual([
        'approval.requested',
        'approval.rejected',
      ]);
    });
    expect(await typesOf(rejected)).toEqual([]);
  });

  it('approval.expired', async () => {
    const paymentId = mine(freshId('p_cat_apv_', 8));
    const created = await callApi(payments.api, payments.key, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount: 12_000_000,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    payments.sandbox.admin.approvePayment(paymentId);
    await eventually(async () => {
      const view = await callApi(payments.api, payments.key, 'GET', `/v1/payments/${paymentId}`);
      expect(view.body.status).toBe('succeeded');
    });
    const refund = await callApi(payments.api, payments.key, 'POST', `/v1/payments/${paymentId}/refunds`, {
      amount: 12_000_000,
    });
    expect(refund.body.status, JSON.stringify(refund.body)).toBe('awaiting_approval');
    const approvalId = mine(`refund:${refund.body.refundId}`);
    await env.sleep('1 minute');
    await eventually(async () => {
      expect(await typesOf(approvalId)).toEqual(['approval.requested', 'approval.expired']);
    });
    expect(await typesOf(mine(refund.body.refundId))).toEqual([]);
  });
});

describe('remittances', () => {
  it('remittance.succeeded, and remittance.needs_attention when the create is refused after the buy', async () => {
    const create = async (body: unknown) => {
      const created = await callApi(
        remittances.api,
        remittances.operatorKey,
        'POST',
        '/v1/remittances',
        body,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return mine(created.body.remittanceId as string);
    };
    const delivered = await create(walletRemittance('0912345678'));
    const stuck = await create(bankRemittance('0123451507'));
    await waitForRemittance(db, delivered, ['succeeded'], { whileWaiting: () => env.sleep('5 seconds') });
    await waitForRemittance(db, stuck, ['needs_attention'], { whileWaiting: () => env.sleep('5 seconds') });
    expect(await typesOf(delivered)).toEqual(['remittance.succeeded']);
    expect(await typesOf(stuck)).toEqual(['remittance.needs_attention']);
  });
});

describe('payments and refunds', () => {
  const pay = async (body: Record<string, unknown>) => {
    const paymentId = mine(`catp${randomUUID().replaceAll('-', '').slice(0, 16)}`);
    const created = await callApi(payments.api, payments.key, 'POST', '/v1/payments', { paymentId, ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return paymentId;
  };
  const statusOf = (paymentId: string, status: string) =>
    eventually(async () => {
      const view = await callApi(payments.api, payments.key, 'GET', `/v1/payments/${paymentId}`);
      expect(view.body.status).toBe(status);
    });

  it('payment.succeeded, payment.failed, refund.succeeded and refund.failed', async () => {
    const paid = await pay({ requestType: 'captureWallet', amount: 50_000 });
    payments.sandbox.admin.approvePayment(paid);
    await statusOf(paid, 'succeeded');
    const declined = await pay({ requestType: 'captureWallet', amount: 80_000 });
    payments.sandbox.admin.declinePayment(declined);
    await statusOf(declined, 'failed');
    expect(await typesOf(paid)).toEqual(['payment.succeeded']);
    expect(await typesOf(declined)).toEqual(['payment.failed']);

    const refunded = await callApi(payments.api, payments.key, 'POST', `/v1/payments/${paid}/refunds`, {
      amount: 50_000,
    });
    expect(refunded.body.status).toBe('succeeded');
    expect(await typesOf(mine(refunded.body.refundId))).toEqual(['refund.succeeded']);

    // A terminal settled on the device itself, unknown to payrun: the gateway refuses the refund (1002).
    const serialNumber = freshId('SN-', 8);
    const card = await pay({
      requestType: 'payWithEdc',
      amount: 300_000,
      storeId: 'store-c',
      serialNumber,
      instrumentType: 'CARD',
    });
    payments.sandbox.admin.approvePayment(card);
    await statusOf(card, 'succeeded');
    const terminal = createGatewayClient({
      baseUrl: payments.sandbox.url,
      ...testMerchant,
      gatewayPublicKey: generateSandboxKeyPair().publicKeyPem,
    });
    await terminal.call('card.settle', {
      storeId: 'store-c',
      serialNumber,
      requestId: `settle-${serialNumber}`,
    });
    const refused = await callApi(payments.api, payments.key, 'POST', `/v1/payments/${card}/refunds`, {
      amount: 100_000,
    });
    expect(refused.body).toMatchObject({ status: 'failed', resultCode: 1002 });
    expect(await typesOf(mine(refused.body.refundId))).toEqual(['refund.failed']);
  });
});

describe('saved methods and saved-method payments', () => {
  const savedMethod = async (kind: 'wallet' | 'domestic', partnerClientId: string) => {
    const created = await callApi(tokens.api, tokens.key, 'POST', '/v1/saved-method-bindings', {
      kind,
      partnerClientId,
      ...(kind === 'domestic' ? { userInfo: { email: 'an@example.com', name: 'Nguyen Van An' } } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    tokens.sandbox.admin.approvePayment(created.body.orderId);
    return eventually(async () => {
      const binding = await callApi(
        tokens.api,
        tokens.key,
        'GET',
        `/v1/saved-method-bindings/${created.body.bindingId}`,
      );
      expect(binding.body.status).toBe('active');
      return mine(binding.body.methodId as string);
    });
  };
  const payWith = async (methodId: string) => {
    const paymentId = mine(`cat-tp_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
    const created = await callApi(tokens.api, tokens.key, 'POST', '/v1/saved-method-payments', {
      paymentId,
      methodId,
      amount: 18_200,
      description: 'Order',
    });
    expect(created.body).toMatchObject({ state: 'awaiting_otp' });
    return paymentId;
  };
  const stateOf = (paymentId: string, state: string) =>
    eventually(async () => {
      const view = await callApi(tokens.api, tokens.key, 'GET', `/v1/saved-method-payments/${paymentId}`);
      expect(view.body.state).toBe(state);
    });

  it('token_payment.otp_required, .succeeded and .failed; saved_method.revoked', async () => {
    const customer = freshId('cat', 8);
    const methodId = await savedMethod('wallet', customer);
    const confirmed = await payWith(methodId);
    await tokens.advance('4 seconds');
    const code = tokens.sandbox.admin
      .otpInbox()
      .filter((message) => message.orderId === confirmed)
      .at(-1)!.code;
    const verified = await callApi(
      tokens.api,
      tokens.key,
      'POST',
      `/v1/saved-method-payments/${confirmed}/otp`,
      {
        code,
      },
    );
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    await stateOf(confirmed, 'succeeded');
    expect(await typesOf(confirmed)).toEqual(['token_payment.otp_required', 'token_payment.succeeded']);

    const other = await savedMethod('wallet', freshId('cat', 8));
    const lapsed = await payWith(other);
    await tokens.advance('6 minutes');
    await stateOf(lapsed, 'failed');
    expect(await typesOf(lapsed)).toEqual(['token_payment.otp_required', 'token_payment.failed']);

    // The customer removes a saved card in the app (wallet links have no unbind call).
    const cardOwner = freshId('cat', 8);
    const card = await savedMethod('domestic', cardOwner);
    expect(tokens.sandbox.admin.revokeToken(cardOwner).notified).toBe(1);
    await eventually(async () => expect(await typesOf(card)).toEqual(['saved_method.revoked']));
  });
});

describe('subscriptions', () => {
  const subscribe = async (amount: number, info: Record<string, unknown>) => {
    const subscriptionId = mine(freshId('cat', 10));
    const partnerClientId = freshId('member', 6);
    const created = await callApi(subscriptions.api, subscriptions.key, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId,
      orderInfo: 'Gym membership',
      amount,
      subscriptionInfo: { name: 'Gym', subsOwner: '0912345678', partnerSubsId: 'GYM-1', ...info },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    subscriptions.sandbox.admin.approvePayment(subscriptionId);
    await statusOf(subscriptionId, 'active');
    return { subscriptionId, partnerClientId };
  };
  const statusOf = (subscriptionId: string, status: string) =>
    eventually(async () => {
      const view = await callApi(
        subscriptions.api,
        subscriptions.viewerKey,
        'GET',
        `/v1/subscriptions/${subscriptionId}`,
      );
      expect(view.body.status).toBe(status);
    });
  const skipTo = async (date: string) => {
    const ms = instantOf(date, 10) - (await env.currentTimeMs());
    if (ms > 0) await env.sleep(ms);
  };

  it('authorized, charged, cancelled; charge_failed twice, then paused', async () => {
    const daily = await subscribe(20_000, { type: 'FIXED', recurringAmount: 20_000, frequency: 'DAILY' });
    const cancelled = await callApi(
      subscriptions.api,
      subscriptions.key,
      'POST',
      `/v1/subscriptions/${daily.subscriptionId}/cancel`,
      { reason: 'moved away' },
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await eventually(async () =>
      // The first charge is the payment the customer authorized with: recorded just before the status.
      expect(await typesOf(daily.subscriptionId)).toEqual([
        'subscription.charged',
        'subscription.authorized',
        'subscription.cancelled',
      ]),
    );

    const start = dayOfGmt7(await env.currentTimeMs());
    const monthly = await subscribe(0, {
      type: 'FIXED',
      recurringAmount: 30_000,
      frequency: 'MONTHLY',
      nextPaymentDate: addDays(start, 2),
    });
    subscriptions.sandbox.admin.setCustomerFunds(monthly.partnerClientId, 10_000);
    await skipTo(addDays(start, 2));
    await statusOf(monthly.subscriptionId, 'retrying');
    await skipTo(addDays(start, 4));
    await statusOf(monthly.subscriptionId, 'paused');
    expect(await typesOf(monthly.subscriptionId)).toEqual([
      'subscription.authorized',
      'subscription.charge_failed',
      'subscription.charge_failed',
      'subscription.paused',
    ]);
  });
});

describe('the catalogue at the receiver', () => {
  it('every event type arrived, each of our events once, in order per object, with public fields only', async () => {
    const ours = (await db('events')
      .whereIn('object_id', [...objectIds])
      .orderBy('position')
      .select('event_id', 'type', 'object_id')) as Array<{
      event_id: string;
      type: string;
      object_id: string;
    }>;
    // Hold and policy events are asserted by test/holds and test/approvals on databases of their own: a hold
    // or a new approval policy in this shared database would change what every other file's payments do.
    // Balance events too (test/payouts/balance-watch.test.ts): a threshold here would warn on every file's batches.
    // Scheduled-run events need days of skipped time; test/payouts/scheduled-runs.test.ts drives them.
    const scheduledRunEvents = new Set([
      'payout_run.scheduled',
      'payout_run.cancelled',
      'payout_run.funds_short',
      'payout_run.scheduled_check_failed',
      // A schedule's occurrence over a daily cap: test/payouts/recurring-runs.test.ts drives it.
      'payout_run.refused',
    ]);
    expect(new Set(ours.map((row) => row.type))).toEqual(
      new Set(
        EVENT_TYPES.filter(
          (type) =>
            !type.startsWith('hold.') &&
            !type.startsWith('approval_policy.') &&
            !type.startsWith('balance.') &&
            !scheduledRunEvents.has(type) &&
            // Notices need a subscriber's address and a mail server: test/subscriptions/notices.test.ts,
            // dunning.test.ts and plans.test.ts assert them.
            !type.startsWith('subscription.notice_'),
        ),
      ),
    );

    const accepted = await eventually(() => {
      const arrived = receiver.accepted.filter((event) => objectIds.has(event.object.id));
      expect(arrived.map((event) => event.id).sort()).toEqual(ours.map((row) => row.event_id).sort());
      return arrived;
    });
    for (const objectId of objectIds) {
      expect(
        accepted.filter((event) => event.object.id === objectId).map((event) => event.id),
        objectId,
      ).toEqual(ours.filter((row) => row.object_id === objectId).map((row) => row.event_id));
    }
    for (const event of accepted) expectPublicOnly(event);
  });
});

/** No field the logs would redact, and none of the personal values the tests sent, in any snapshot. */
function expectPublicOnly(event: PayrunEvent) {
  const walk = (value: unknown, path: string) => {
    if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        expect(isSensitiveField(key), `${event.type} ${path}.${key}`).toBe(false);
        walk(inner, `${path}.${key}`);
      }
    }
  };
  walk(event.data, 'data');
  const text = JSON.stringify(event);
  for (const personal of [
    '0912345678',
    '0900001007',
    '079123456789',
    '012345678901',
    '0123451507',
    'Tran Thi B',
    'Nguyen Van B',
  ])
    expect(text, `${event.type} carries ${personal}`).not.toContain(personal);
}
