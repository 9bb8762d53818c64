/**
 * Saved payment methods and saved-method payments: the gateway calls of document 2 and their records. The
 * recurring token is decrypted here (aesToken), sealed with AES-256-GCM before it is stored, and only
 * opened again inside the activity that sends it RSA-encrypted; workflows only see ids.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import {
  codeOf,
  decryptAesToken,
  isAlreadySubmitted,
  orderStatusEvidence,
  isPending,
  isUndecided,
  outcomeOf,
  type ResultOutcome,
  type GatewayClient,
  type OperationName,
  type RequestFields,
} from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  findBindingApproval,
  findSavedMethodIdOfBinding,
  getBinding,
  getSavedMethod,
  getSavedMethodPayment,
  insertSavedMethod,
  recentOtpAttempts,
  recordBindingStatus,
  recordOtpAttempt,
  recordSavedMethodPaymentLinks,
  recordSavedMethodStatus,
  updateSavedMethodPayment,
  type BindingRow,
  type NewSavedMethod,
  type SavedMethodPaymentRow,
  type SavedMethodRow,
} from '../../db/saved-methods/saved-methods';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret, sealSecret } from '../../platform/sealed-secrets';
import {
  canMoveBinding,
  canMoveSavedMethodPayment,
  type BindingCallbackAnswer,
  type BindingCreation,
  type BindingLinks,
  type BindingRecord,
  type BindingTokenExchange,
  type OtpAttempt,
  type OtpAttemptOutcome,
  type OtpVerification,
  type SavedMethodActivities,
  type SavedMethodDeletionResult,
  type SavedMethodKind,
  type TokenPaymentAnswer,
  type TokenPaymentQueryAnswer,
  type TokenPaymentRecord,
} from '../../contracts/saved-methods';
import { requestIdFor } from '../../gateway/ids';
import { bindActivities } from '../shared/bind';
import { stopIfHeld } from '../holds/holds';
import { askForEvidence, askGateway, lookupId } from '../shared/gateway-calls';

export interface TokenKeys {
  /** The merchant secret key: aesToken is AES-encrypted with it (document 1, security 6). */
  merchantSecretKey: string;
  /** Keys sealing tokens at rest (the payload codec keyring: same rotation, same configuration). */
  keyring: CodecKeyring;
}

export interface SavedMethodActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  savedMethodIpnUrl: string;
  /** Required: without them no method can be bound or charged. */
  tokens: TokenKeys;
}
type Deps = SavedMethodActivityDependencies;

/** Authenticated context of a saved-method token: it opens only as one. */
const TOKEN_CONTEXT = 'payrun:saved-method-token';

const BINDING_OPERATION = {
  card: 'binding.payWithCC',
  domestic: 'binding.payWithATM',
  wallet: 'binding.linkWallet',
} as const satisfies Record<SavedMethodKind, OperationName>;

/** The user behind a gateway client id (wallet links are n<NNN>_<user>). */
const userOfClientId = (gatewayClientId: string) => gatewayClientId.replace(/^n\d{3}_/, '');

const OTP_ATTEMPT_OUTCOMES: Partial<Record<ResultOutcome, OtpAttemptOutcome>> = {
  otp_wrong: 'wrong',
  otp_expired: 'expired',
  otp_locked: 'locked',
  otp_too_soon: 'too_soon',
  otp_sms_limit: 'sms_limit',
};
/**
 * What one tokenization/verify did: accepted (paid or pending), or why the code was refused. 40/41 (this
 * verify was read before: its answer was lost) counts as accepted, and the payment's outcome is asked.
 */
const otpAttemptOutcomeOf = (outcome: ResultOutcome): OtpAttemptOutcome =>
  outcome === 'succeeded' || isPending(outcome) || isAlreadySubmitted(outcome)
    ? 'accepted'
    : (OTP_ATTEMPT_OUTCOMES[outcome] ?? 'error');

/** A requestId part of its own, for calls that create nothing and may be repeated (bind, delete). */
const nonce = () => randomBytes(4).toString('hex');

/**
 * What tokenization/cbQuery says about a binding, as evidence: the customer approved (a callbackToken for
 * this order), declined or let the link lapse; anything else (a refused query, 40, 42, 99) tells nothing.
 */
const BINDING_DECIDED: ReadonlySet<ResultOutcome> = new Set(['declined', 'link_expired']);

const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

// ---- bindings

/** The binding link; a refusal comes back as a value (the workflow records it), the links are stored. */
export async function createBinding(
  { db, gateway, savedMethodIpnUrl }: Deps,
  { bindingId }: { bindingId: string },
): Promise<BindingCreation> {
  const row = await bindingOf(db, bindingId);
  const operation = BINDING_OPERATION[row.kind];
  const userInfo = row.user_info;
  const answer = await askGateway(gateway, operation, {
    orderId: row.order_id,
    requestId: requestIdFor(row.order_id, 'create'),
    amount: Number(row.amount),
    orderInfo: row.order_info,
    partnerClientId: row.gateway_client_id,
    requestType: row.request_type,
    redirectUrl: row.redirect_url ?? '',
    ipnUrl: savedMethodIpnUrl,
    extraData: '',
    lang: 'en',
    ...(Object.keys(userInfo).length ? { userInfo } : {}),
  } as RequestFields<typeof operation>);
  if (!answer.accepted) return { ok: false, resultCode: answer.resultCode, message: answer.message };
  const created = outcomeOf(answer.resultCode);
  // Already submitted (a retry after a lost answer): the link stands; its outcome comes by IPN or query.
  if (created !== 'succeeded' && !isAlreadySubmitted(created))
    return { ok: false, resultCode: answer.resultCode, message: answer.message };
  const links: BindingLinks = {
    payUrl: text(answer.body.payUrl),
    deeplink: text(answer.body.deeplink),
    qrCodeUrl: text(answer.body.qrCodeUrl),
    deeplinkMiniApp: text(answer.body.deeplinkMiniApp),
  };
  await recordBindingStatus(db, { bindingId, status: 'awaiting_customer', links }, canMoveBinding);
  return { ok: true, links };
}

/**
 * tokenization/cbQuery without handing the callbackToken to the workflow. `known: false` when the answer
 * proves nothing about this binding (a refused query, another order's answer): the workflow waits on.
 */
export async function queryBindingCallback(
  { db, gateway }: Deps,
  { bindingId }: { bindingId: string; attempt: number },
): Promise<BindingCallbackAnswer> {
  const row = await bindingOf(db, bindingId);
  const answer = await askGateway(gateway, 'tokenization.cbQuery', {
    orderId: row.order_id,
    requestId: lookupId(row.order_id),
    partnerClientId: row.gateway_client_id,
    lang: 'en',
  });
  const named = answer.body.orderId === row.order_id;
  const approved = answer.outcome === 'succeeded' && named && text(answer.body.callbackToken) !== undefined;
  const known = approved || (named && (isUndecided(answer.outcome) || BINDING_DECIDED.has(answer.outcome)));
  return {
    resultCode: answer.resultCode,
    message: answer.message,
    ...(known ? {} : { known: false as const }),
  };
}

/** tokenization/bind → decrypt aesToken → store it sealed with its display fields. Idempotent. */
export async function exchangeBindingToken(
  deps: Deps,
  { bindingId }: { bindingId: string },
): Promise<BindingTokenExchange> {
  const { db, gateway, tokens } = deps;
  const row = await bindingOf(db, bindingId);
  const existing = await findSavedMethodIdOfBinding(db, bindingId);
  if (existing) return { ok: true, methodId: existing };
  const callbackToken = await callbackTokenOf(deps, row.order_id, row.gateway_client_id);
  if (!callbackToken)
    return { ok: false, resultCode: codeOf('token_invalid'), message: 'No callbackToken for this binding.' };
  // A bind creates nothing and may be repeated: a requestId of its own on every attempt.
  const answer = await askGateway(gateway, 'tokenization.bind', {
    orderId: row.order_id,
    requestId: requestIdFor(row.order_id, `bind${nonce()}`),
    callbackToken,
    partnerClientId: row.gateway_client_id,
    lang: 'en',
  });
  if (!answer.accepted || answer.body.aesToken === undefined)
    return { ok: false, resultCode: answer.resultCode, message: answer.message };
  const payload = decryptAesToken(String(answer.body.aesToken), tokens.merchantSecretKey) as Record<
    string,
    unknown
  >;
  const value = text(payload.value);
  if (!value)
    return {
      ok: false,
      resultCode: codeOf('token_invalid'),
      message: 'The recurring token carries no value.',
    };
  const methodId = await insertSavedMethod(
    db,
    savedMethodOf(row, payload, sealSecret(value, tokens.keyring, TOKEN_CONTEXT)),
  );
  return { ok: true, methodId };
}

/** The method a binding produced: its display fields from the token's payload, the token sealed. */
const savedMethodOf = (
  row: BindingRow,
  payload: Record<string, unknown>,
  sealedToken: string,
): NewSavedMethod => ({
  method_id: `pm-${randomUUID()}`,
  binding_id: row.binding_id,
  initial_order_id: row.order_id,
  partner_client_id: row.partner_client_id,
  gateway_client_id: row.gateway_client_id,
  kind: row.kind,
  card_last4: row.kind === 'wallet' ? null : (text(payload.cardNumber)?.slice(-4) ?? null),
  card_type: text(payload.cardType) ?? null,
  bank_code: text(payload.bankCode) ?? null,
  wallet_alias: text(payload.userAlias) ?? null,
  token_ciphertext: sealedToken,
});

export async function recordBinding({ db }: Deps, input: BindingRecord): Promise<void> {
  await recordBindingStatus(db, input, canMoveBinding);
}

/** The binding's record, or a failure that no retry mends. */
async function bindingOf(db: Db, bindingId: string) {
  const row = await getBinding(db, bindingId);
  if (!row) throw ApplicationFailure.nonRetryable(`Binding ${bindingId} has no record`, 'unknown_record');
  return row;
}

/** The callbackToken of a binding: from the stored IPN (list B, result 0), else tokenization/cbQuery. */
async function callbackTokenOf(
  { db, gateway }: Deps,
  orderId: string,
  gatewayClientId: string,
): Promise<string | undefined> {
  // callbackToken is among the signed fields (list B).
  const approval = await findBindingApproval(db, orderId);
  const fromIpn = approval ? text(approval.callbackToken) : undefined;
  if (fromIpn) return fromIpn;
  const asked = await askGateway(gateway, 'tokenization.cbQuery', {
    orderId,
    requestId: lookupId(orderId),
    partnerClientId: gatewayClientId,
    lang: 'en',
  });
  const token = asked.accepted ? text(asked.body.callbackToken) : undefined;
  // Asked only once the customer approved (the workflow heard it): a cbQuery that does not hand the token
  // over is a refusal of the query (20, 40, 42, 99 …), not the customer's answer. Ask again.
  if (!token)
    throw new Error(
      `tokenization/cbQuery for ${orderId} answered ${asked.resultCode} without the callbackToken of an ` +
        'approved binding; asking again',
    );
  return token;
}

// ---- deletion

/** tokenization/delete; a token the gateway no longer knows (token_invalid) is deleted all the same. */
export async function deleteSavedMethodAtGateway(
  { db, gateway, tokens }: Deps,
  { methodId }: { methodId: string },
): Promise<SavedMethodDeletionResult> {
  const method = await getSavedMethod(db, methodId);
  if (!method)
    throw ApplicationFailure.nonRetryable(`Saved method ${methodId} has no record`, 'unknown_record');
  if (method.status !== 'deleting') return { status: 'deleted', resultCode: 0, message: 'Already removed' };
  // Ids of its own on every attempt: a deletion whose answer was lost is sent again, and the gateway
  // answers 2001 (token_invalid) for a token it already deleted, which counts as deleted.
  const id = lookupId(`${method.initial_order_id}-del`);
  const answer = await askGateway(gateway, 'tokenization.delete', {
    orderId: id,
    requestId: id,
    partnerClientId: method.gateway_client_id,
    token: tokenOf(tokens.keyring, method),
    lang: 'en',
  });
  const { resultCode, message } = answer;
  const deleted = outcomeOf(resultCode);
  if (deleted !== 'succeeded' && deleted !== 'token_invalid') {
    await recordSavedMethodStatus(db, methodId, 'active');
    throw ApplicationFailure.nonRetryable(`The gateway refused the deletion: ${message}`, 'delete_refused', {
      resultCode,
    });
  }
  await recordSavedMethodStatus(db, methodId, 'deleted');
  return { status: 'deleted', resultCode, message };
}

// ---- payments

/** tokenization/pay. orderId = the payment's; requestId per payment: a retry re-sends the same order. */
export async function payWithToken(
  deps: Deps,
  { paymentId, at, releasedHold }: { paymentId: string; at: number; releasedHold?: string },
): Promise<TokenPaymentAnswer> {
  const { db } = deps;
  const { payment, method } = await paymentWithToken(db, paymentId);
  // A saved-method payment is a charge: a first attempt sends nothing while charges are held.
  await stopIfHeld(db, 'charge', releasedHold, Number(payment.amount));
  if (method.status !== 'active') {
    return {
      outcome: 'failed',
      resultCode: codeOf('token_invalid'),
      message: `The saved method is ${method.status}; it is never used again.`,
    };
  }
  const answer = await sendTokenPayment(deps, payment, method);
  const transId = answer.accepted ? text(answer.body.transId) : undefined;
  const base = { resultCode: answer.resultCode, message: answer.message, transId };
  if (!answer.accepted) return { outcome: 'failed', ...base };
  if (isAlreadySubmitted(answer.outcome)) return askAfterLostAnswer(deps, payment, { at, base });
  const paid = answer.outcome;
  if (paid === 'succeeded') return { outcome: 'succeeded', ...base };
  if (paid === 'otp_required') {
    await recordCodeSent(db, payment, { resultCode: answer.resultCode, at });
    return { outcome: 'otp', ...base };
  }
  if (paid === 'redirect_customer') {
    await recordSavedMethodPaymentLinks(db, paymentId, {
      payUrl: text(answer.body.payUrl),
      deeplink: text(answer.body.deeplink),
    });
    return { outcome: 'redirect', ...base };
  }
  // Pending, or already submitted: the IPN or api/query tells the outcome.
  return { outcome: 'pending', ...base };
}

/** tokenization/pay: orderId = the payment's, one requestId per payment (a retry re-sends the same order). */
const sendTokenPayment = (
  { gateway, savedMethodIpnUrl, tokens }: Deps,
  payment: SavedMethodPaymentRow,
  method: SavedMethodRow,
) =>
  askGateway(
    gateway,
    'tokenization.pay',
    {
      orderId: payment.order_id,
      requestId: requestIdFor(payment.order_id, 'pay'),
      amount: Number(payment.amount),
      token: tokenOf(tokens.keyring, method),
      partnerClientId: payment.gateway_client_id,
      orderInfo: payment.description,
      redirectUrl: '',
      ipnUrl: savedMethodIpnUrl,
      extraData: '',
      lang: 'en',
    },
    { context: { tokenKind: method.kind } },
  );

/**
 * Already submitted (40: this attempt's first answer was lost; 41): ask now. An answer with evidence
 * decides; anything else is pending, and the workflow waits for the notification and asks again.
 */
async function askAfterLostAnswer(
  { db, gateway }: Deps,
  payment: SavedMethodPaymentRow,
  { at, base }: { at: number; base: Omit<TokenPaymentAnswer, 'outcome'> },
): Promise<TokenPaymentAnswer> {
  const asked = await paymentEvidence(gateway, payment.order_id, Number(payment.amount));
  if (asked.state === 'decided')
    return {
      outcome: asked.outcome === 'succeeded' ? 'succeeded' : 'failed',
      resultCode: asked.resultCode,
      message: asked.message,
      transId: asked.transId,
    };
  // The first answer asked for the customer's code (8200), and the SMS went out: the payment waits for
  // the code like any other (the customer has it), never for a result no code will bring.
  if (asked.state === 'undecided' && asked.outcome === 'otp_required') {
    await recordCodeSent(db, payment, { resultCode: asked.resultCode, at });
    return { outcome: 'otp', resultCode: asked.resultCode, message: asked.message, transId: base.transId };
  }
  return { outcome: 'pending', ...base };
}

/** The gateway sent the customer a code: it counts toward the user's daily limit. */
const recordCodeSent = (
  db: Db,
  payment: SavedMethodPaymentRow,
  { resultCode, at }: { resultCode: number; at: number },
) =>
  recordOtpAttempt(db, {
    paymentId: payment.payment_id,
    partnerClientId: userOfClientId(payment.gateway_client_id),
    kind: 'sms',
    outcome: 'sent',
    resultCode,
    at,
  });

/** tokenization/verify with the customer's code; records the attempt (never the code). */
export async function verifyTokenPayment(
  { db, gateway, tokens }: Deps,
  { paymentId, code, attempt, at }: { paymentId: string; code: string; attempt: number; at: number },
): Promise<OtpVerification> {
  const { payment, method } = await paymentWithToken(db, paymentId);
  const answer = await askGateway(
    gateway,
    'tokenization.verify',
    {
      orderId: payment.order_id,
      requestId: requestIdFor(payment.order_id, `v${attempt}`),
      securityCode: code,
      token: tokenOf(tokens.keyring, method),
      lang: 'en',
    },
    { answerAlso: (outcome) => outcome === 'otp_too_soon' },
  );
  const attemptOutcome = otpAttemptOutcomeOf(answer.outcome);
  await recordOtpAttempt(db, {
    paymentId,
    partnerClientId: userOfClientId(payment.gateway_client_id),
    kind: 'verify',
    outcome: attemptOutcome,
    resultCode: answer.resultCode,
    at,
  });
  return {
    attemptOutcome,
    resultCode: answer.resultCode,
    message: answer.message,
    transId: answer.accepted ? text(answer.body.transId) : undefined,
  };
}

/**
 * api/query for a saved-method payment; `final` only with evidence (gateway/evidence.ts): an answer
 * naming this payment with its amount and transaction. A refused query never decides it.
 */
export async function queryTokenPayment(
  { db, gateway }: Deps,
  { paymentId }: { paymentId: string; attempt: number },
): Promise<TokenPaymentQueryAnswer> {
  const payment = await paymentOf(db, paymentId);
  const evidence = await paymentEvidence(gateway, payment.order_id, Number(payment.amount));
  if (evidence.state === 'unknown')
    return { final: false, resultCode: evidence.resultCode ?? -1, message: evidence.reason };
  return {
    final: evidence.state === 'decided',
    resultCode: evidence.resultCode,
    message: evidence.message,
    transId: evidence.state === 'decided' ? evidence.transId : undefined,
  };
}

export async function recordTokenPayment({ db }: Deps, input: TokenPaymentRecord): Promise<void> {
  await updateSavedMethodPayment(db, input, canMoveSavedMethodPayment);
}

export async function otpAttemptsToday(
  { db }: Deps,
  { partnerClientId, now }: { partnerClientId: string; now: number },
): Promise<OtpAttempt[]> {
  return recentOtpAttempts(db, partnerClientId, now);
}

async function paymentOf(db: Db, paymentId: string) {
  const payment = await getSavedMethodPayment(db, paymentId);
  if (!payment)
    throw ApplicationFailure.nonRetryable(
      `Saved-method payment ${paymentId} has no record`,
      'unknown_record',
    );
  return payment;
}

/** The payment and its method — or a clear failure before any call. */
async function paymentWithToken(db: Db, paymentId: string) {
  const payment = await paymentOf(db, paymentId);
  const method = (await getSavedMethod(db, payment.method_id)) as SavedMethodRow;
  return { payment, method };
}

/** The method's token, opened only to be sent. */
const tokenOf = (keyring: CodecKeyring, method: SavedMethodRow) => ({
  value: openSecret(method.token_ciphertext, keyring, TOKEN_CONTEXT),
  requireSecurityCode: false,
});

/** What api/query proves about a saved-method payment (gateway/evidence.ts). */
const paymentEvidence = (gateway: GatewayClient, orderId: string, amount: number) =>
  askForEvidence(gateway, 'payment.query', { orderId, requestId: lookupId(orderId), lang: 'en' }, (body) =>
    orderStatusEvidence(body, { orderId, amount, kind: 'payment' }),
  );

/** The saved-method activities, bound to their dependencies for the worker. */
export const createSavedMethodActivities = (deps: Deps): SavedMethodActivities =>
  bindActivities(deps, {
    createBinding,
    queryBindingCallback,
    exchangeBindingToken,
    recordBinding,
    deleteSavedMethodAtGateway,
    payWithToken,
    verifyTokenPayment,
    queryTokenPayment,
    recordTokenPayment,
    otpAttemptsToday,
  });
