/**
 * Subscription side effects: the gateway calls of document 2 (subscription start, cbQuery,
 * subscription/create, subscription/pay, subscription/manage, api/query) and the records. The
 * recurring token is decrypted here, stored only as AES-256-GCM ciphertext, and loaded again here
 * for each charge: the workflow (and so its history) only ever sees the subscription id.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import {
  decryptAesToken,
  isAlreadySubmitted,
  isPending,
  orderStatusEvidence,
  outcomeOf,
  type GatewayClient,
  type OperationName,
  type RequestFields,
} from '../../gateway';
import { reserveManageOrderId } from '../../db/shared/gateway-order-ids';
import type { Db } from '../../db/shared/knex';
import {
  getCharge,
  recordCharge,
  requireSubscription,
  updateSubscription,
  upsertCharge,
  type SubscriptionChargeRow,
  type SubscriptionRow,
  type SubscriptionUpdate,
} from '../../db/subscriptions/subscriptions';
import {
  gatewayNextPaymentDate,
  canTransition,
  chargeOrderId,
  manageOrderId,
  type AuthorizationCheck,
  type AuthorizationStart,
  type ChargeAttempt,
  type ChargeCheck,
  type ChargeRecord,
  type CycleCharge,
  type CycleChargeResult,
  type ManageRequestSent,
  type PriceChangeActivities,
  type BillingRunActivities,
  type NoticeRequest,
  type SubscriptionActivities,
  type SubscriptionGatewayAnswer,
  type SubscriptionRecord,
  type SubscriptionStatus,
} from '../../contracts/subscriptions';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret, sealSecret } from '../../platform/sealed-secrets';
import { requestIdFor } from '../../gateway/ids';
import { bindActivities } from '../shared/bind';
import { stopIfHeld } from '../holds/holds';
import { sendSubscriptionNotice } from './notices';
import { unconfiguredNoticeChannel, type NoticeChannel } from '../../platform/notice-channel';
import {
  asActivityFailure,
  askForEvidence,
  askGateway,
  lookupId,
  type AskOptions,
} from '../shared/gateway-calls';

/** The failure type of a charge refused for being above the authorized recurringAmount. */
export const CHARGE_ABOVE_AUTHORIZED = 'charge_above_authorized';

/** A requestId part of its own for calls that create nothing and may be repeated. */
const nonce = () => randomBytes(4).toString('hex');

/** Answers that refuse the query itself: never the state of the order asked about. */
const QUERY_REFUSED = new Set(['duplicate_request', 'duplicate_order', 'invalid_request', 'retry_later']);

export interface SubscriptionSecrets {
  /** The merchant secret key: aesToken is AES-encrypted with it (gateway/README assumption 7). */
  merchantSecretKey: string;
  /** Seals the recurring token at rest (the payload codec keyring: same keys, same rotation). */
  keyring: CodecKeyring;
}

export interface SubscriptionActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  subscriptionIpnUrl: string;
  /** Required: without them a subscription can be neither activated nor charged. */
  secrets: SubscriptionSecrets;
  /**
   * Where notices to subscribers go (SMTP_URL). Absent: every notice is recorded failed, naming the
   * missing setting, so billing never depends on mail.
   */
  notices?: NoticeChannel;
  /**
   * BILLING_RUN_SIGNALS_SUCCESS, for the benchmark's comparison only: the run signals a success at once, as
   * before each workflow read it at the end of its grace.
   */
  billingRunSignalsSuccess?: boolean;
  /** BILLING_RUN_PARALLEL_CHUNKS: the chunks each billing run this worker starts charges side by side. */
  billingRunParallelChunks?: number;
  /**
   * The workers' `subscription.pay` limit (GATEWAY_RATE_LIMITS), calls per second: the billing run's chunks
   * call the gateway from their own activity, outside that operation's rate-limited queue, so they space
   * their charges at it themselves. Unset: no limit.
   */
  subscriptionPayPerSecond?: number;
}
type Deps = SubscriptionActivityDependencies;

interface StoredToken {
  value: string;
  initialOrderId: string;
}

// The token at rest: sealed with the codec keyring, the subscription id as authenticated context (a row's
// ciphertext opens only for it).
export const sealToken = (token: StoredToken, keyring: CodecKeyring, subscriptionId: string) =>
  sealSecret(JSON.stringify(token), keyring, subscriptionId);
const openToken = (sealed: string, keyring: CodecKeyring, subscriptionId: string) =>
  JSON.parse(openSecret(sealed, keyring, subscriptionId)) as StoredToken;

const text = (value: unknown) =>
  value === undefined || value === null || value === '' ? undefined : String(value);

/** Final answers come back as values (a refusal's body is not read); the rest is retried or typed. */
export async function ask<Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
  options?: AskOptions,
) {
  const answer = await askGateway(gateway, operation, fields, options);
  return answer.accepted ? answer : { ...answer, body: {} as Record<string, unknown> };
}

/** The subscription's record and its token, opened only to be sent. */
export async function tokenOf(deps: Deps, subscriptionId: string) {
  const row = await requireSubscription(deps.db, subscriptionId);
  return { row, token: tokenFrom(deps, row) };
}

function tokenFrom({ secrets }: Deps, row: SubscriptionRow): StoredToken {
  if (!row.token_ciphertext)
    throw ApplicationFailure.nonRetryable(
      `Subscription ${row.subscription_id} has no token`,
      'subscription_without_token',
    );
  return openToken(row.token_ciphertext, secrets.keyring, row.subscription_id);
}

/** Writes the subscription's record forward only (its transition table). */
export const recordSubscriptionRow = (db: Db, subscriptionId: string, update: SubscriptionUpdate) =>
  updateSubscription(db, subscriptionId, update, (from, to) =>
    canTransition(from as SubscriptionStatus, to as SubscriptionStatus),
  );

/** What api/query proves about one charge (gateway/evidence.ts). */
const chargeEvidence = (gateway: GatewayClient, orderId: string, amount: number) =>
  askForEvidence(gateway, 'payment.query', { orderId, requestId: lookupId(orderId) }, (body) =>
    orderStatusEvidence(body, { orderId, amount, kind: 'payment' }),
  );
/** api/create, requestType subscription: the customer's links are stored for the API to answer with. */
export async function startSubscriptionAuthorization(
  { db, gateway, subscriptionIpnUrl }: Deps,
  { subscriptionId }: { subscriptionId: string },
  /** The record as the subscription desk claimed it (one read fewer); read here otherwise. */
  claimed?: SubscriptionRow,
): Promise<AuthorizationStart> {
  const row = claimed ?? (await requireSubscription(db, subscriptionId));
  const info = {
    name: row.name,
    ...(row.partner_subs_id ? { partnerSubsId: row.partner_subs_id } : {}),
    ...(row.subs_owner ? { subsOwner: row.subs_owner } : {}),
    type: row.type,
    recurringAmount: Number(row.recurring_amount),
    frequency: row.frequency,
    ...(row.requested_next_payment_date ? { nextPaymentDate: row.requested_next_payment_date } : {}),
    ...(row.expiry_date ? { expiryDate: row.expiry_date } : {}),
  };
  const answer = await ask(gateway, 'subscription.start', {
    orderId: subscriptionId,
    requestId: requestIdFor(subscriptionId, 'start'),
    amount: Number(row.initial_amount),
    orderInfo: row.order_info || row.name,
    partnerClientId: row.partner_client_id,
    ipnUrl: subscriptionIpnUrl,
    redirectUrl: subscriptionIpnUrl.replace(/\/ipn\/.*$/, '/'),
    extraData: '',
    subscriptionInfo: info,
  });
  const lost = isAlreadySubmitted(answer.outcome);
  await recordSubscriptionRow(db, subscriptionId, {
    start_result_code: answer.resultCode,
    start_message: lost
      ? 'The gateway had already read this subscription (40/41): the first answer, with the ' +
        "customer's link, was lost and cannot be read again. The customer can authorize only with that " +
        'link; create a new subscription if they have none.'
      : answer.message,
    pay_url: text(answer.body.payUrl) ?? null,
    deeplink: text(answer.body.deeplink) ?? null,
    qr_code_url: text(answer.body.qrCodeUrl) ?? null,
  });
  // 40/41: the order was read before (the first answer, with its links, was lost): the customer may
  // still authorize, and the notification or the query tells.
  return lost
    ? { resultCode: answer.resultCode, message: answer.message, alreadySubmitted: true as const }
    : { resultCode: answer.resultCode, message: answer.message };
}

/**
 * When the authorization IPN is late: api/query on the initial orderId (7000 = customer not done yet).
 * `known: false` when the answer is no word about this authorization (a refused query, another order's
 * answer, 99 without a transaction): the customer may still authorize.
 */
export async function checkSubscriptionAuthorization(
  { db, gateway }: Deps,
  { subscriptionId }: { subscriptionId: string },
): Promise<AuthorizationCheck> {
  const answer = await askGateway(gateway, 'payment.query', {
    orderId: subscriptionId,
    requestId: lookupId(subscriptionId),
  });
  const body = answer.body;
  const row = await requireSubscription(db, subscriptionId);
  // The authorization's own order: its orderId, and its amount (initialAmount) once paid or authorized.
  const named =
    body.orderId === subscriptionId &&
    (body.amount === undefined || Number(body.amount) === Number(row.initial_amount));
  const refused =
    QUERY_REFUSED.has(answer.outcome) || (answer.outcome === 'failed' && text(body.transId) === undefined);
  return {
    resultCode: answer.resultCode,
    message: answer.message,
    transId: text(body.transId),
    ...((named || answer.outcome === 'not_found') && !refused ? {} : { known: false as const }),
  };
}

/**
 * callbackToken (from the IPN, or tokenization/cbQuery) → subscription/create → aesToken, decrypted
 * here with the merchant secret and sealed at rest. Returns nothing secret.
 */
export async function activateSubscription(
  { db, gateway, secrets }: Deps,
  input: { subscriptionId: string; callbackToken?: string },
): Promise<SubscriptionGatewayAnswer> {
  const keys = secrets;
  const row = await requireSubscription(db, input.subscriptionId);
  let callbackToken = input.callbackToken;
  if (!callbackToken) {
    const found = await ask(gateway, 'tokenization.cbQuery', {
      orderId: input.subscriptionId,
      requestId: lookupId(input.subscriptionId),
      partnerClientId: row.partner_client_id,
    });
    callbackToken = text(found.body.callbackToken);
    // The customer authorized (the notification or the query said so): the token exists. A cbQuery that
    // does not hand it over (a refusal: 20, 40, 42, 99 …) is no answer about the customer; ask again.
    if (!callbackToken)
      throw new Error(
        `tokenization/cbQuery for ${input.subscriptionId} answered ${found.resultCode} without the ` +
          'callbackToken of an authorized subscription; asking again',
      );
  }
  // The exchange creates nothing and may be repeated: a requestId of its own on every attempt.
  const created = await ask(gateway, 'subscription.create', {
    orderId: input.subscriptionId,
    requestId: requestIdFor(input.subscriptionId, `create${nonce()}`),
    partnerClientId: row.partner_client_id,
    callbackToken: callbackToken!,
  });
  const aesToken = text(created.body.aesToken);
  if (outcomeOf(created.resultCode) !== 'succeeded' || !aesToken)
    return { resultCode: created.resultCode, message: created.message };
  const payload = decryptAesToken(aesToken, keys.merchantSecretKey) as {
    value: string;
    initialOrderId?: string;
    userAlias?: string;
  };
  await recordSubscriptionRow(db, input.subscriptionId, {
    token_ciphertext: sealToken(
      { value: payload.value, initialOrderId: payload.initialOrderId ?? input.subscriptionId },
      keys.keyring,
      input.subscriptionId,
    ),
    user_alias: payload.userAlias ?? null,
  });
  return { resultCode: created.resultCode, message: created.message };
}

/**
 * subscription/pay for one attempt of one cycle. orderId `<id>-c<cycle>` (`-r1` for the retry after
 * insufficient funds) and its requestId never change: a retried activity or a replayed workflow
 * re-sends the same order, and the gateway answers 40/41 instead of charging twice.
 */
export async function chargeSubscriptionCycle(deps: Deps, input: CycleCharge): Promise<CycleChargeResult> {
  const { db } = deps;
  const charge = newChargeOf(input);
  // An attempt that runs again after an earlier one recorded the gateway's answer returns that answer:
  // records move forward only, and the charge is never sent twice.
  const recorded = await getCharge(db, charge.order_id);
  if (recorded && recorded.status !== 'submitted') return recordedAnswer(recorded);
  // Only a charge never submitted stops for a hold: a `submitted` one may have been sent already.
  if (!recorded) await stopIfHeld(db, 'charge', input.releasedHold);
  const row = await requireSubscription(db, input.subscriptionId);
  const token = authorizedToken(deps, row, input);
  // The charge's orderId is reserved here, with its record: one another object owns stops it, unsent.
  await upsertCharge(db, { ...charge, status: 'submitted' }).catch((error: unknown) => {
    throw asActivityFailure(error);
  });
  return (await sendCharge(deps, row, token, charge, input)).result;
}

/**
 * A cycle a billing run has just claimed (its charge recorded `submitted` under the row's lock, from
 * `row` as locked): sent and answered as chargeSubscriptionCycle would, without reading again what the
 * claim read. `handedNext`: the success also handed the next cycle over to the billing run.
 */
export async function chargeClaimedCycle(
  deps: Deps,
  row: SubscriptionRow,
  input: CycleCharge,
): Promise<{ result: CycleChargeResult; handedNext: boolean }> {
  return sendCharge(deps, row, authorizedToken(deps, row, input), newChargeOf(input), input);
}

const newChargeOf = (input: CycleCharge): NewCharge => {
  const orderId = chargeOrderId(input.subscriptionId, input.cycle, input.attempt);
  return {
    order_id: orderId,
    subscription_id: input.subscriptionId,
    cycle: input.cycle,
    attempt: input.attempt,
    due_date: input.dueDate,
    amount: input.amount,
    request_id: requestIdFor(orderId, 'pay'),
    next_payment_date_sent: input.nextPaymentDate,
  };
};

/**
 * Never more than the customer authorized: the gateway's ceiling (document 2) is the recurringAmount of
 * the authorization behind the stored token, which the record keeps. Refused here, before anything is
 * sent, whatever the workflow asked (a price change, a bug, a replayed old amount).
 */
function authorizedToken(deps: Deps, row: SubscriptionRow, input: CycleCharge): StoredToken {
  if (input.amount > Number(row.recurring_amount))
    throw ApplicationFailure.nonRetryable(
      `Cycle ${input.cycle} of ${input.subscriptionId}: ${input.amount} VND is above the ${row.recurring_amount} ` +
        'VND the customer authorized; nothing was sent',
      CHARGE_ABOVE_AUTHORIZED,
    );
  return tokenFrom(deps, row);
}

/** subscription/pay for a charge recorded `submitted`, and its answer recorded. */
async function sendCharge(
  { db, gateway }: Deps,
  row: SubscriptionRow,
  token: StoredToken,
  charge: NewCharge,
  input: CycleCharge,
): Promise<{ result: CycleChargeResult; handedNext: boolean }> {
  const answer = await ask(
    gateway,
    'subscription.pay',
    {
      orderId: charge.order_id,
      requestId: charge.request_id!,
      amount: input.amount,
      token: { value: token.value, initialOrderId: token.initialOrderId },
      partnerClientId: row.partner_client_id,
      orderInfo: `${row.name} cycle ${input.cycle}`.slice(0, 200),
      extraData: '',
      nextPaymentDate: input.nextPaymentDate,
    },
    { context: { recurringAmount: Number(row.recurring_amount) } },
  );
  const settled = await settleChargeAnswer(gateway, charge.order_id, input.amount, answer);
  return recordChargeAnswer(db, charge, settled, input);
}

type NewCharge = Omit<Parameters<typeof upsertCharge>[1], 'status'>;
type ChargeAnswer = Omit<CycleChargeResult, 'billed'>;

/** What an earlier attempt recorded, answered again. */
const recordedAnswer = (recorded: SubscriptionChargeRow): ChargeAnswer => ({
  outcome: recorded.status === 'succeeded' || recorded.status === 'failed' ? recorded.status : 'pending',
  resultCode: recorded.result_code ?? -1,
  message: recorded.message ?? '',
  transId: recorded.trans_id ?? undefined,
});

/**
 * The charge's outcome from subscription/pay's answer. Already submitted (40: this attempt's first answer
 * was lost; 41): ask now. The charge is answered at once at the gateway, so the query knows; what it
 * cannot prove stays pending for the checks.
 */
async function settleChargeAnswer(
  gateway: GatewayClient,
  orderId: string,
  amount: number,
  answer: { resultCode: number; message: string; body: Record<string, unknown> },
): Promise<ChargeAnswer> {
  let transId = text(answer.body.transId);
  let answered = outcomeOf(answer.resultCode);
  let settledBy = { resultCode: answer.resultCode, message: answer.message };
  if (isAlreadySubmitted(answered)) {
    const evidence = await chargeEvidence(gateway, orderId, amount);
    if (evidence.state === 'decided') {
      answered = evidence.outcome;
      transId = evidence.transId;
      settledBy = { resultCode: evidence.resultCode, message: evidence.message };
    }
  }
  const outcome =
    answered === 'succeeded'
      ? 'succeeded'
      : isPending(answered) || isAlreadySubmitted(answered)
        ? 'pending'
        : 'failed';
  return { outcome, ...settledBy, transId };
}

/**
 * The charge's answer recorded, and on success on an active subscription its next cycle in the charge's
 * own transaction: no wider gap between the gateway's answer and this activity's completion than the
 * charge write alone. A retry of the attempt writes the same.
 */
async function recordChargeAnswer(
  db: Db,
  charge: NewCharge,
  settled: ChargeAnswer,
  input: CycleCharge,
): Promise<{ result: CycleChargeResult; handedNext: boolean }> {
  const { outcome } = settled;
  const nextCycle =
    outcome === 'succeeded' && input.nextCycleOnSuccess !== undefined
      ? { next_cycle: input.nextCycleOnSuccess, next_payment_date: input.nextPaymentDate }
      : undefined;
  const { billed, handedNext } = await recordCharge(
    db,
    {
      ...charge,
      status: outcome,
      result_code: settled.resultCode,
      message: settled.message,
      trans_id: settled.transId ?? null,
      gateway_next_payment_date:
        outcome === 'succeeded'
          ? gatewayNextPaymentDate(input.chargedOn, input.frequency, input.nextPaymentDate)
          : null,
    },
    nextCycle,
  );
  const result = {
    ...settled,
    ...(billed &&
      nextCycle && {
        billed: { nextCycle: nextCycle.next_cycle, nextPaymentDate: nextCycle.next_payment_date },
      }),
  };
  return { result, handedNext };
}

/**
 * api/query on a charge's orderId: the outcome of a pending or already-submitted (40/41) charge. Only
 * evidence decides (gateway/evidence.ts); `known: false` when the answer proves nothing (a refused
 * query, another order's answer), and the charge stays unsettled.
 */
export async function querySubscriptionCharge(
  { gateway }: Deps,
  input: ChargeAttempt & { check: number },
): Promise<ChargeCheck> {
  const orderId = chargeOrderId(input.subscriptionId, input.cycle, input.attempt);
  const evidence = await chargeEvidence(gateway, orderId, input.amount);
  if (evidence.state === 'unknown')
    return { resultCode: evidence.resultCode ?? -1, message: evidence.reason, known: false as const };
  return {
    resultCode: evidence.resultCode,
    message: evidence.message,
    transId: evidence.state === 'decided' ? evidence.transId : undefined,
  };
}

/** subscription/manage. Reactivate answers 8000 with the customer's confirmation link. */
export async function manageSubscription(
  deps: Deps,
  input: { subscriptionId: string; action: 'pause' | 'cancel' | 'reactivate'; seq: number },
): Promise<ManageRequestSent> {
  const { db, gateway, subscriptionIpnUrl } = deps;
  const { row, token } = await tokenOf(deps, input.subscriptionId);
  const orderId = manageOrderId(input.subscriptionId, input.seq);
  // A requestId of its own on every attempt: a repeated pause or cancel is answered 2101 or 2100 (the
  // subscription is in that state already), a repeated reactivate with a new confirmation link.
  // The manage call's orderId is the subscription's before the gateway hears of it (OrderIdTaken: another's).
  await reserveManageOrderId(db, { subscriptionId: input.subscriptionId, orderId }).catch(
    (error: unknown) => {
      throw asActivityFailure(error);
    },
  );
  const answer = await ask(gateway, 'subscription.manage', {
    orderId,
    requestId: requestIdFor(orderId, `${input.action.slice(0, 3)}${nonce()}`),
    token: { value: token.value, initialOrderId: token.initialOrderId },
    partnerClientId: row.partner_client_id,
    action: input.action,
    ...(input.action === 'reactivate' ? { ipnUrl: subscriptionIpnUrl } : {}),
  });
  const payUrl = text(answer.body.payUrl);
  if (input.action === 'reactivate' && outcomeOf(answer.resultCode) === 'redirect_customer') {
    await recordSubscriptionRow(db, input.subscriptionId, {
      reactivation_order_id: orderId,
      reactivation_pay_url: payUrl ?? null,
    });
  }
  return {
    orderId,
    resultCode: answer.resultCode,
    message: answer.message,
    payUrl,
    deeplink: text(answer.body.deeplink),
  };
}

export async function recordSubscription({ db }: Deps, input: SubscriptionRecord): Promise<void> {
  const update: SubscriptionUpdate = {};
  if (input.status !== undefined) update.status = input.status;
  if (input.statusReason !== undefined) update.status_reason = input.statusReason;
  if (input.nextCycle !== undefined) update.next_cycle = input.nextCycle;
  if (input.nextPaymentDate !== undefined) update.next_payment_date = input.nextPaymentDate;
  if (input.failures !== undefined) update.failures = input.failures;
  if (input.anchorDate !== undefined) update.anchor_date = input.anchorDate;
  if (input.anchorCycle !== undefined) update.anchor_cycle = input.anchorCycle;
  if (input.reportedAmounts !== undefined) update.reported_amounts = input.reportedAmounts;
  await recordSubscriptionRow(db, input.subscriptionId, update);
}

/** A charge outcome learnt later (query, IPN), a skipped cycle, or the authorization charge (cycle 0). */
export async function recordSubscriptionCharge({ db }: Deps, input: ChargeRecord): Promise<void> {
  await upsertCharge(db, {
    order_id: input.orderId ?? chargeOrderId(input.subscriptionId, input.cycle, input.attempt),
    subscription_id: input.subscriptionId,
    cycle: input.cycle,
    attempt: input.attempt,
    due_date: input.dueDate,
    amount: input.amount,
    status: input.status,
    ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
    ...(input.message !== undefined ? { message: input.message } : {}),
    ...(input.transId !== undefined ? { trans_id: input.transId } : {}),
  });
}

/** The subscription activities, bound to their dependencies for the worker. */
export const createSubscriptionActivities = (
  deps: Deps,
): Omit<
  SubscriptionActivities,
  keyof PriceChangeActivities | keyof BillingRunActivities | 'activateAndRecord'
> =>
  bindActivities(deps, {
    startSubscriptionAuthorization,
    checkSubscriptionAuthorization,
    activateSubscription,
    chargeSubscriptionCycle,
    querySubscriptionCharge,
    manageSubscription,
    recordSubscription,
    recordSubscriptionCharge,
    sendSubscriptionNotice: (d: Deps, request: NoticeRequest) =>
      sendSubscriptionNotice({ db: d.db, notices: d.notices ?? unconfiguredNoticeChannel }, request),
  });
