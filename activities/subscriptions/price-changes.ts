/**
 * Price-change side effects: the customer told of a new price and asked to authorize it through the
 * gateway's subscription flow, their new authorization exchanged for its token (kept sealed on the price
 * change), the token made the subscription's at the change's cycle, notices recorded, records kept.
 *
 * Re-authorization (gateway/README.md): document 2 has no call that changes an authorization's
 * recurringAmount, and a FIXED subscription is charged exactly it. A new price is a new authorization:
 * api/create requestType subscription on the order `<subscription>-p<n>` with the new recurringAmount and
 * amount 0, then subscription/create → a new token. The old authorization is cancelled at the gateway only
 * when the new token takes over, and the record's recurring_amount (the ceiling the charge activity
 * enforces) always belongs to the token stored beside it.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { decryptAesToken, isAlreadySubmitted, orderStatusEvidence, outcomeOf } from '../../gateway';
import { reserveOrderIds } from '../../db/shared/gateway-order-ids';
import {
  getSubscriptionPriceChange,
  notifySubscriber,
  updateSubscriptionPriceChange,
} from '../../db/subscriptions/price-changes';
import { requireSubscription, type SubscriptionRow } from '../../db/subscriptions/subscriptions';
import {
  cycleDate,
  firstCycleOnOrAfter,
  type PriceChangeActivities,
  type PriceChangeRecord,
} from '../../contracts/subscriptions';
import { requestIdFor } from '../../gateway/ids';
import { bindActivities } from '../shared/bind';
import { asActivityFailure, askGateway, lookupId } from '../shared/gateway-calls';
import {
  ask,
  recordSubscriptionRow,
  sealToken,
  tokenOf,
  type SubscriptionActivityDependencies as Deps,
} from './subscriptions';

const text = (value: unknown) =>
  value === undefined || value === null || value === '' ? undefined : String(value);
const nonce = () => randomBytes(4).toString('hex');

/** The first billing day on or after the change's date: the new authorization's nextPaymentDate. */
function firstPricedCycleDate(row: SubscriptionRow, effectiveDate: string): string {
  if (!row.anchor_date) return effectiveDate;
  const anchor = {
    anchorDate: row.anchor_date,
    anchorCycle: row.anchor_cycle ?? 1,
    frequency: row.frequency,
  };
  return cycleDate(anchor, firstCycleOnOrAfter(anchor, row.next_cycle ?? 1, effectiveDate));
}

export async function announcePriceChange(
  { db, gateway, subscriptionIpnUrl }: Deps,
  input: Parameters<PriceChangeActivities['announcePriceChange']>[0],
): ReturnType<PriceChangeActivities['announcePriceChange']> {
  const row = await requireSubscription(db, input.subscriptionId);
  const change = await getSubscriptionPriceChange(db, input.priceChangeId);
  const orderId = input.reauthorizationOrderId;
  // The order is the subscription's (and its notification finds it) before the gateway hears of it.
  await reserveOrderIds(db, [{ orderId, kind: 'subscription', objectId: input.subscriptionId }]).catch(
    (error: unknown) => {
      throw asActivityFailure(error);
    },
  );
  await updateSubscriptionPriceChange(db, input.priceChangeId, { reauthorization_order_id: orderId });
  const started = await ask(gateway, 'subscription.start', {
    orderId,
    requestId: requestIdFor(orderId, 'start'),
    amount: 0,
    orderInfo: `${row.name}: ${input.newAmount} VND from ${input.effectiveDate}`.slice(0, 200),
    partnerClientId: row.partner_client_id,
    ipnUrl: subscriptionIpnUrl,
    redirectUrl: subscriptionIpnUrl.replace(/\/ipn\/.*$/, '/'),
    extraData: '',
    subscriptionInfo: {
      name: row.name,
      ...(row.partner_subs_id ? { partnerSubsId: row.partner_subs_id } : {}),
      ...(row.subs_owner ? { subsOwner: row.subs_owner } : {}),
      type: row.type,
      recurringAmount: input.newAmount,
      frequency: row.frequency,
      nextPaymentDate: firstPricedCycleDate(row, input.effectiveDate),
      ...(row.expiry_date ? { expiryDate: row.expiry_date } : {}),
    },
  });
  const reminder = input.reminderDaysBefore;
  // 40/41: an earlier attempt was answered (its link recorded then, or lost): keep what was recorded.
  const again = isAlreadySubmitted(started.outcome);
  const payUrl = again ? (change?.reauthorization_pay_url ?? undefined) : text(started.body.payUrl);
  const refused = !again && outcomeOf(started.resultCode) !== 'succeeded';
  // A reminder keeps a fallback's status (it may come after the date, for a late authorization).
  await updateSubscriptionPriceChange(db, input.priceChangeId, {
    ...(reminder === undefined && { status: 'awaiting_authorization' as const }),
    status_reason: refused
      ? `The gateway refused the new authorization: ${started.resultCode} ${started.message}`
      : 'Waiting for the customer to authorize the new amount',
    ...(payUrl ? { reauthorization_pay_url: payUrl } : {}),
  });
  await notifySubscriber(db, {
    kind: reminder === undefined ? 'price_change' : 'reauthorization_reminder',
    subscriptionId: input.subscriptionId,
    key: reminder === undefined ? input.priceChangeId : `${input.priceChangeId}:${reminder}d`,
    data: {
      priceChangeId: input.priceChangeId,
      ...(reminder !== undefined && { daysBefore: reminder }),
      oldAmount: Number(row.recurring_amount),
      newAmount: input.newAmount,
      effectiveDate: input.effectiveDate,
      reauthorizationUrl: payUrl ?? null,
    },
  });
  return { resultCode: started.resultCode, message: started.message, ...(payUrl && { payUrl }) };
}

/**
 * Whether the customer authorized the `-p<n>` order (its callbackToken when they did), and whether the
 * gateway says it never will be (`orderClosed`: a decided failure of this very order, not a refused query).
 */
async function callbackTokenOf(
  deps: Deps,
  row: SubscriptionRow,
  orderId: string,
): Promise<{ callbackToken?: string; orderClosed: boolean }> {
  const checked = await askGateway(deps.gateway, 'payment.query', { orderId, requestId: lookupId(orderId) });
  if (
    !checked.accepted ||
    checked.body.orderId !== orderId ||
    outcomeOf(checked.resultCode) !== 'succeeded'
  ) {
    const evidence = orderStatusEvidence(checked.body, { orderId, amount: 0, kind: 'payment' });
    return { orderClosed: evidence.state === 'decided' && evidence.outcome !== 'succeeded' };
  }
  const found = await ask(deps.gateway, 'tokenization.cbQuery', {
    orderId,
    requestId: lookupId(orderId),
    partnerClientId: row.partner_client_id,
  });
  const callbackToken = text(found.body.callbackToken);
  return { orderClosed: false, ...(callbackToken && { callbackToken }) };
}

export async function activateReauthorization(
  deps: Deps,
  input: Parameters<PriceChangeActivities['activateReauthorization']>[0],
): ReturnType<PriceChangeActivities['activateReauthorization']> {
  const { db, gateway, secrets } = deps;
  const row = await requireSubscription(db, input.subscriptionId);
  const change = await getSubscriptionPriceChange(db, input.priceChangeId);
  if (change?.pending_token_ciphertext) return { authorized: true, message: 'Authorized already' };
  const asked = input.callbackToken ? undefined : await callbackTokenOf(deps, row, input.orderId);
  const callbackToken = input.callbackToken ?? asked?.callbackToken;
  if (!callbackToken)
    return {
      authorized: false,
      message: 'The customer has not authorized the new amount',
      orderClosed: asked?.orderClosed === true,
    };
  // The exchange creates nothing and may be repeated (as activateSubscription's).
  const created = await ask(gateway, 'subscription.create', {
    orderId: input.orderId,
    requestId: requestIdFor(input.orderId, `create${nonce()}`),
    partnerClientId: row.partner_client_id,
    callbackToken,
  });
  const aesToken = text(created.body.aesToken);
  if (outcomeOf(created.resultCode) !== 'succeeded' || !aesToken)
    return { authorized: false, message: `subscription/create: ${created.resultCode} ${created.message}` };
  const payload = decryptAesToken(aesToken, secrets.merchantSecretKey) as {
    value: string;
    initialOrderId?: string;
  };
  await updateSubscriptionPriceChange(db, input.priceChangeId, {
    status: 'authorized',
    status_reason: 'The customer authorized the new amount; it applies from its cycle',
    pending_token_ciphertext: sealToken(
      { value: payload.value, initialOrderId: payload.initialOrderId ?? input.orderId },
      secrets.keyring,
      input.subscriptionId,
    ),
  });
  return { authorized: true, message: created.message };
}

/**
 * The new token takes over: the old authorization is cancelled at the gateway first (a repeat finds it
 * cancelled, 2100), then token and recurring_amount move together. A refused cancel does not stop it: the
 * old token is dropped and never used again, and the record says so.
 */
export async function adoptReauthorization(
  deps: Deps,
  input: Parameters<PriceChangeActivities['adoptReauthorization']>[0],
): Promise<void> {
  const { db, gateway } = deps;
  const change = await getSubscriptionPriceChange(db, input.priceChangeId);
  if (!change?.pending_token_ciphertext || !change.reauthorization_order_id)
    throw ApplicationFailure.nonRetryable(
      `Price change ${input.priceChangeId} has no authorized token to adopt`,
      'price_change_not_authorized',
    );
  const { row, token: oldToken } = await tokenOf(deps, input.subscriptionId);
  if (row.token_ciphertext === change.pending_token_ciphertext) return; // adopted by an earlier attempt
  const cancelOrderId = `${change.reauthorization_order_id}-x`;
  await reserveOrderIds(db, [
    { orderId: cancelOrderId, kind: 'subscription', objectId: input.subscriptionId },
  ]).catch((error: unknown) => {
    throw asActivityFailure(error);
  });
  const cancelled = await ask(gateway, 'subscription.manage', {
    orderId: cancelOrderId,
    requestId: requestIdFor(cancelOrderId, `can${nonce()}`),
    token: { value: oldToken.value, initialOrderId: oldToken.initialOrderId },
    partnerClientId: row.partner_client_id,
    action: 'cancel',
  });
  const oldGone = ['succeeded', 'subscription_cancelled'].includes(outcomeOf(cancelled.resultCode));
  await recordSubscriptionRow(db, input.subscriptionId, {
    token_ciphertext: change.pending_token_ciphertext,
    recurring_amount: input.newAmount,
  });
  if (!oldGone)
    await updateSubscriptionPriceChange(db, input.priceChangeId, {
      status_reason: `The old authorization could not be cancelled (${cancelled.resultCode} ${cancelled.message}); it is never charged again`,
    });
}

export async function recordPriceChange({ db }: Deps, input: PriceChangeRecord): Promise<void> {
  await updateSubscriptionPriceChange(db, input.priceChangeId, {
    ...(input.status !== undefined && { status: input.status }),
    ...(input.statusReason !== undefined && { status_reason: input.statusReason }),
  });
  if (input.priceFlag !== undefined)
    await recordSubscriptionRow(db, input.subscriptionId, { price_flag: input.priceFlag });
}

export const createPriceChangeActivities = (deps: Deps): PriceChangeActivities =>
  bindActivities(deps, {
    announcePriceChange,
    activateReauthorization,
    adoptReauthorization,
    recordPriceChange,
  });
