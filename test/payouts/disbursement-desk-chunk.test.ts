/**
 * The desk's chunk (`payDeskChunk`) against the sandbox and a database of this file's own (a hold stops every
 * payout of its kind in a database, so it must not reach other files' rows). What matters is the attempt that
 * runs again after its worker was lost: it takes back what it had claimed, pays nothing twice, and a payout it
 * must not make now (held) goes to a workflow of its own without a gateway call.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createDisbursementDeskActivities } from '../../activities/payouts/disbursement-desk';
import {
  deskChunkId,
  disbursementWorkflowId,
  type DeskChunk,
  type DeskChunkOutcome,
  type DisbursementReceiver,
} from '../../contracts/payouts';
import { handOverDeskDisbursement, sealDeskReceiver } from '../../db/payouts/disbursement-desk';
import { requestIdFor } from '../../gateway/ids';
import { useScratchDatabase } from '../support/database';
import { connectDevServer, testCodecKeyring } from '../support/temporal';
import { useTestGateway, wallet } from '../sandbox/support';
import { disbursementNotifications } from '../../api/payouts/notifications';
import { createNotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { loadConfig } from '../../platform/config';
import { freeNotificationsOf, storeNotification } from '../../db/shared/ipn-notifications';
import { createLogger } from '../../platform/logger';
import { signalRecorder } from '../support/notifications';
import type { CodecKeyring } from '../../platform/payload-codec';

const scratch = useScratchDatabase('desk_chunk');
const { gw, ipn } = useTestGateway({ balances: { VND: 1_000_000_000 } });
let temporal: TestWorkflowEnvironment;
beforeAll(async () => {
  temporal = await connectDevServer();
});
afterAll(() => temporal?.teardown());

const deskWorkflowId = `disbursement-desk/chunk-test-${randomUUID()}`;
const taskQueue = `desk-chunk-${randomUUID()}`;
const receiver: DisbursementReceiver = { kind: 'wallet', ...wallet('5678'), personalId: null };
const bankReceiver: DisbursementReceiver = {
  kind: 'bank',
  bankAccountNo: '0123456789',
  bankAccountHolderName: 'TRAN THI C',
  bankCode: 'VCB',
};

const activities = () =>
  createDisbursementDeskActivities({
    db: scratch.db,
    gateway: gw.client,
    disbursementIpnUrl: ipn.url('/disbursement'),
    keyring: testCodecKeyring,
  });

const chunkOf = (chunk: number): DeskChunk => ({
  deskWorkflowId,
  chunk,
  timing: { gatewayAttemptTimeout: '10 seconds', resultWait: '1 day', ipnTimeout: '1 minute' },
  concurrency: 4,
  // Only what an earlier attempt left: the chunk claims nothing new once its time is up.
  chunkMs: 0,
});

/** A desk payout as the API queues it, optionally already claimed by `chunk` and moved to `status`. */
async function queued(
  options: {
    chunk?: number;
    status?: string;
    receiver?: DisbursementReceiver;
    keyring?: CodecKeyring;
    /** When its record was last written (the claim, or a step). */
    touchedAt?: Date;
  } = {},
) {
  const id = `dc_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await scratch.db('disbursements').insert({
    disbursement_id: id,
    order_id: id,
    workflow_id: disbursementWorkflowId(id),
    desk_id: deskWorkflowId,
    desk_receiver: sealDeskReceiver(options.receiver ?? receiver, options.keyring ?? testCodecKeyring, id),
    ...(options.chunk !== undefined && { desk_chunk: deskChunkId(deskWorkflowId, options.chunk) }),
    request_type: 'disburseToWallet',
    amount: 250_000,
    receiver_label: 'wallet ****5678',
    description: 'payout',
    status: options.status ?? 'queued',
    created_by_key: 'test',
    created_by: 'test',
    ...(options.touchedAt && { created_at: options.touchedAt, updated_at: options.touchedAt }),
  });
  return id;
}

/** Runs the chunk as attempt `attempt` of its activity, with a Temporal client for its hand-overs. */
const runChunk = (chunk: DeskChunk, attempt: number): Promise<DeskChunkOutcome> =>
  new MockActivityEnvironment({ attempt, taskQueue }, { client: temporal.client }).run(
    activities().payDeskChunk,
    chunk,
  );

/** The gateway's paid result of a desk payout, as the receiver stores it for the relay. */
const storeResult = (id: string, transId: number) =>
  storeNotification(scratch.db, {
    kind: 'disbursement.result',
    orderId: id,
    dedupeKey: `desk-test-${id}`,
    resultCode: 0,
    signedFields: { orderId: id, resultCode: 0, message: 'Successful.', transId, amount: 250_000 },
    unverifiedFields: {},
    workflowId: disbursementWorkflowId(id),
    normalisedFields: [],
  });

const recordOf = (id: string) =>
  scratch
    .db('disbursements')
    .where({ disbursement_id: id })
    .first('status', 'desk_id', 'desk_chunk', 'trans_id', 'desk_receiver');
const paidTo = (orderId: string) =>
  gw.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId && entry.outcome === 'succeeded');

describe("the desk's chunk", () => {
  // First: each worker reads the holds at most every few seconds, and this one has not read them yet.
  it('hands a payout of a held kind to a workflow of its own without calling the gateway', async () => {
    const id = await queued({ chunk: 4, receiver: bankReceiver });
    await scratch.db('holds').insert({
      hold_id: `hold-${randomUUID()}`,
      kind: 'bank_disbursement',
      status: 'held',
      reason: 'test',
      proposed_by_key: 'a',
      proposed_by: 'a',
    });
    const calls = gw.sandbox.admin.ledger().length;
    const outcome = await runChunk(chunkOf(4), 2);
    expect(outcome.handedOver).toEqual([id]);
    expect(gw.sandbox.admin.ledger()).toHaveLength(calls);
    expect(await recordOf(id)).toMatchObject({ status: 'queued', desk_id: null });
    const own = temporal.client.workflow.getHandle(disbursementWorkflowId(id));
    expect((await own.describe()).status.name).toBe('RUNNING');
    await own.terminate('test over: no worker polls its queue');
  });
  it('a retried attempt settles a payout whose pay was sent before the crash, paying it once', async () => {
    const id = await queued({ chunk: 1, status: 'paying' });
    // The attempt before the crash: pay sent with the payout's own ids, its answer lost.
    const sent = await gw.client.call('disbursement.pay', {
      orderId: id,
      requestId: requestIdFor(id, 'pay'),
      amount: 250_000,
      requestType: 'disburseToWallet',
      disbursementMethod: {
        walletId: receiver.kind === 'wallet' ? receiver.walletId : '',
        walletName: 'x',
        personalId: null,
      },
      orderInfo: 'payout',
      ipnUrl: ipn.url('/disbursement'),
      extraData: '',
    });
    expect(sent.resultCode).toBe(0);

    const outcome = await runChunk(chunkOf(1), 2);
    expect(outcome.succeeded).toEqual([id]);
    // Settled: the sealed receiver is no longer kept.
    expect(await recordOf(id)).toMatchObject({
      status: 'succeeded',
      desk_id: deskWorkflowId,
      desk_receiver: null,
    });
    expect(paidTo(id)).toHaveLength(1);
  });

  it('hands a payout claimed long ago by a chunk nothing retries to its own workflow, sending nothing itself', async () => {
    const id = await queued({ chunk: 90, status: 'paying', touchedAt: new Date(Date.now() - 15 * 60_000) });
    const recent = await queued({ chunk: 91, status: 'paying' });
    const calls = gw.sandbox.admin.requests().length;
    const outcome = await runChunk(chunkOf(8), 1);
    expect(outcome.handedOver).toEqual([id]);
    expect(gw.sandbox.admin.requests()).toHaveLength(calls);
    expect(await recordOf(id)).toMatchObject({ status: 'paying', desk_id: null });
    // A claim written lately belongs to a chunk at work (or one about to be retried): left alone.
    expect(await recordOf(recent)).toMatchObject({ desk_id: deskWorkflowId });
    const own = temporal.client.workflow.getHandle(disbursementWorkflowId(id));
    expect((await own.describe()).status.name).toBe('RUNNING');
    await own.terminate('test over: no worker polls its queue');
    await scratch.db('disbursements').where({ disbursement_id: recent }).update({ status: 'failed' });
  });

  it("a retried attempt pays what it had claimed and not yet paid, and leaves other chunks' payouts alone", async () => {
    const mine = await queued({ chunk: 2 });
    const anothers = await queued({ chunk: 3 });
    const outcome = await runChunk(chunkOf(2), 2);
    expect(outcome.succeeded).toEqual([mine]);
    expect(paidTo(mine)).toHaveLength(1);
    expect(paidTo(anothers)).toEqual([]);
    expect(await recordOf(anothers)).toMatchObject({ status: 'queued' });
  });

  it('keeps a notification in the inbox while the desk holds its payout, and signals it as soon as it is handed over', async () => {
    const id = await queued({ chunk: 5, status: 'paying' });
    await storeResult(id, 4242);
    const { temporal, signalled } = signalRecorder();
    // A long interval: a row put off waits for it unless the hand-over frees it.
    const settings = apiSettingsFrom(
      loadConfig({
        CUSTOMER_KEY_SECRET: 'a'.repeat(32),
        DECISION_SIGNING_KEY: 'd'.repeat(32),
        IPN_RELAY_INTERVAL_SECONDS: '120',
      }),
    ).notifications;
    const relay = createNotificationRelay({
      db: scratch.db,
      temporal,
      logger: createLogger('silent'),
      channels: [disbursementNotifications],
      settings,
    });

    expect(await relay.sweep()).toMatchObject({ waiting: 1, signalled: 0, failed: 0 });
    expect(signalled).toEqual([]);
    expect(await relay.sweep()).toMatchObject({ waiting: 0, signalled: 0 });

    await handOverDeskDisbursement(scratch.db, id);
    await freeNotificationsOf(scratch.db, id);
    expect(await relay.sweep()).toMatchObject({ signalled: 1, waiting: 0 });
    expect(signalled).toEqual([disbursementWorkflowId(id)]);

    // A payout the desk settled keeps its desk_id: its notification is delivered to the record, no signal.
    const settled = await queued({ chunk: 5, status: 'succeeded' });
    await storeResult(settled, 4343);
    expect(await relay.sweep()).toMatchObject({ workflow_gone: 1, waiting: 0, signalled: 0 });
    expect(signalled).toEqual([disbursementWorkflowId(id)]);
  });

  it('leaves a payout whose receiver its keyring cannot open queued for a later chunk, and pays the others', async () => {
    const removedKey: CodecKeyring = {
      currentKeyId: 'removed',
      keys: new Map([['removed', randomBytes(32)]]),
    };
    const unreadable = await queued({ chunk: 6, keyring: removedKey });
    const readable = await queued({ chunk: 6 });
    const outcome = await runChunk(chunkOf(6), 2);
    expect(outcome.notOpened).toEqual([unreadable]);
    expect(outcome.succeeded).toEqual([readable]);
    expect(await recordOf(unreadable)).toMatchObject({
      status: 'queued',
      desk_id: deskWorkflowId,
      desk_chunk: null,
    });
    expect(paidTo(unreadable)).toEqual([]);
  });
});
