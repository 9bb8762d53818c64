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
  getBinding,
  getSavedMethod,
  getSavedMethodPayment,
  recentOtpAttempts,
  updateSavedMethodPayment,
  recordOtpAttempt,
  type SavedMethodRow,
} from '../../db/saved-methods/saved-methods';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret, sealSecret } from '../../platform/sealed-secrets';
import {
  type BindingLinks,
  type BindingStatus,
  type SavedMethodKind,
  type OtpAttemptOutcome,
  canMove,
  type SavedMethodPaymentState,
} from '../../contracts/saved-methods';
import { requestIdFor } from '../../contracts/shared';
import { askForEvidence, askGateway, lookupId, type AskOptions } from '../shared/gateway-calls';

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

/** Authenticated context of a saved-method token: it opens only as one. */
const TOKEN_CONTEXT = 'payrun:saved-method-token';

const BINDING_OPERATION = {
  card: 'binding.payWithCC',
  domestic: 'binding.payWithATM',
  wallet: 'binding.linkWallet',
} as const satisfies Record<SavedMethodKind, OperationName>;

/** The user behind a gateway client id (wallet links are n<NNN>_<user>). */
export const userOfClientId = (gatewayClientId: string) => gatewayClientId.replace(/^n\d{3}_/, '');

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

export function createSavedMethodActivities({
  db,
  gateway,
  savedMethodIpnUrl,
  tokens,
}: SavedMethodActivityDependencies) {
  /** Final answers come back as values; transport trouble and "retry later" are retried by Temporal. */
  const ask = <Op extends OperationName>(operation: Op, fields: RequestFields<Op>, options?: AskOptions) =>
    askGateway(gateway, operation, fields, options);

  const bindingOf = async (bindingId: string) => {
    const row = await getBinding(db, bindingId);
    if (!row) throw ApplicationFailure.nonRetryable(`Binding ${bindingId} has no record`, 'UnknownBinding');
    return row;
  };

  /** The payment, its method, and the method's token opened — or a clear failure before any call. */
  const paymentWithToken = async (paymentId: string) => {
    const payment = await getSavedMethodPayment(db, paymentId);
    if (!payment)
      throw ApplicationFailure.nonRetryable(
        `Saved-method payment ${paymentId} has no record`,
        'UnknownPayment',
      );
    const method = (await getSavedMethod(db, payment.method_id)) as SavedMethodRow;
    return { payment, method };
  };
  const tokenOf = (method: SavedMethodRow) => ({
    value: openSecret(method.token_ciphertext, tokens.keyring, TOKEN_CONTEXT),
    requireSecurityCode: false,
  });

  /** What api/query proves about a saved-method payment (gateway/evidence.ts). */
  const paymentEvidence = (orderId: string, amount: number) =>
    askForEvidence(gateway, 'payment.query', { orderId, requestId: lookupId(orderId), lang: 'en' }, (body) =>
      orderStatusEvidence(body, { orderId, amount, kind: 'payment' }),
    );

  /** The callbackToken of a binding: from the stored IPN (list B, result 0), else tokenization/cbQuery. */
  const callbackTokenOf = async (orderId: string, gatewayClientId: string): Promise<string | undefined> => {
    const stored = await db('ipn_notifications')
      .where({ order_id: orderId, kind: 'payment.resultB', result_code: 0 })
      .orderBy('id', 'desc')
      .first('signed_fields', 'raw_body');
    // callbackToken is signed (list B); rows stored before migration 0011 have only their raw body.
    const fields = (stored?.signed_fields ?? (stored?.raw_body ? JSON.parse(stored.raw_body) : {})) as Record<
      string,
      unknown
    >;
    const fromIpn = stored ? text(fields.callbackToken) : undefined;
    if (fromIpn) return fromIpn;
    const asked = await ask('tokenization.cbQuery', {
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
  };

  return {
    async createBinding({
      bindingId,
    }: {
      bindingId: string;
    }): Promise<{ ok: true; links: BindingLinks } | { ok: false; resultCode: number; message: string }> {
      const row = await bindingOf(bindingId);
      const operation = BINDING_OPERATION[row.kind];
      const userInfo = row.user_info;
      const answer = await ask(operation, {
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
      if (!answer.accepted)
        return { ok: false as const, resultCode: answer.resultCode, message: answer.message };
      const created = outcomeOf(answer.resultCode);
      // Already submitted (a retry after a lost answer): the link stands; its outcome comes by IPN or query.
      if (created !== 'succeeded' && !isAlreadySubmitted(created)) {
        return { ok: false, resultCode: answer.resultCode, message: answer.message };
      }
      const links: BindingLinks = {
        payUrl: text(answer.body.payUrl),
        deeplink: text(answer.body.deeplink),
        qrCodeUrl: text(answer.body.qrCodeUrl),
        deeplinkMiniApp: text(answer.body.deeplinkMiniApp),
      };
      await db('saved_method_bindings')
        .where({ binding_id: bindingId })
        .update({
          status: 'awaiting_customer',
          pay_url: links.payUrl ?? null,
          deeplink: links.deeplink ?? null,
          qr_code_url: links.qrCodeUrl ?? null,
          updated_at: db.fn.now(),
        });
      return { ok: true, links };
    },

    /**
     * tokenization/cbQuery without handing the callbackToken to the workflow. `known: false` when the answer
     * proves nothing about this binding (a refused query, another order's answer): the workflow waits on.
     */
    async queryBindingCallback({ bindingId }: { bindingId: string; attempt: number }) {
      const row = await bindingOf(bindingId);
      const answer = await ask('tokenization.cbQuery', {
        orderId: row.order_id,
        requestId: lookupId(row.order_id),
        partnerClientId: row.gateway_client_id,
        lang: 'en',
      });
      const named = answer.body.orderId === row.order_id;
      const approved =
        answer.outcome === 'succeeded' && named && text(answer.body.callbackToken) !== undefined;
      const known =
        approved || (named && (isUndecided(answer.outcome) || BINDING_DECIDED.has(answer.outcome)));
      return {
        resultCode: answer.resultCode,
        message: answer.message,
        ...(known ? {} : { known: false as const }),
      };
    },

    /** tokenization/bind → decrypt aesToken → store it sealed with its display fields. Idempotent. */
    async exchangeBindingToken({
      bindingId,
    }: {
      bindingId: string;
    }): Promise<{ ok: true; methodId: string } | { ok: false; resultCode: number; message: string }> {
      const row = await bindingOf(bindingId);
      const existing = await db('saved_methods').where({ binding_id: bindingId }).first('method_id');
      if (existing) return { ok: true, methodId: existing.method_id };
      const callbackToken = await callbackTokenOf(row.order_id, row.gateway_client_id);
      if (!callbackToken)
        return {
          ok: false,
          resultCode: codeOf('token_invalid'),
          message: 'No callbackToken for this binding.',
        };
      // A bind creates nothing and may be repeated: a requestId of its own on every attempt.
      const answer = await ask('tokenization.bind', {
        orderId: row.order_id,
        requestId: requestIdFor(row.order_id, `bind${nonce()}`),
        callbackToken,
        partnerClientId: row.gateway_client_id,
        lang: 'en',
      });
      if (!answer.accepted || answer.body.aesToken === undefined)
        return { ok: false as const, resultCode: answer.resultCode, message: answer.message };
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
      const methodId = `pm-${randomUUID()}`;
      await db.transaction(async (trx) => {
        await trx('saved_methods')
          .insert({
            method_id: methodId,
            binding_id: bindingId,
            initial_order_id: row.order_id,
            partner_client_id: row.partner_client_id,
            gateway_client_id: row.gateway_client_id,
            kind: row.kind,
            card_last4: row.kind === 'wallet' ? null : (text(payload.cardNumber)?.slice(-4) ?? null),
            card_type: text(payload.cardType) ?? null,
            bank_code: text(payload.bankCode) ?? null,
            wallet_alias: text(payload.userAlias) ?? null,
            token_ciphertext: sealSecret(value, tokens.keyring, TOKEN_CONTEXT),
            status: 'active',
          })
          .onConflict('binding_id')
          .ignore();
        await trx('saved_method_bindings')
          .where({ binding_id: bindingId })
          .update({
            method_id: trx('saved_methods').where({ binding_id: bindingId }).select('method_id'),
            updated_at: trx.fn.now(),
          });
      });
      const saved = await db('saved_methods').where({ binding_id: bindingId }).first('method_id');
      return { ok: true, methodId: saved.method_id as string };
    },

    async recordBinding(input: {
      bindingId: string;
      status: BindingStatus;
      resultCode?: number;
      message?: string;
    }) {
      await db('saved_method_bindings')
        .where({ binding_id: input.bindingId })
        .update({
          status: input.status,
          ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
          ...(input.message !== undefined ? { message: input.message } : {}),
          updated_at: db.fn.now(),
        });
    },

    /** tokenization/delete; a token the gateway no longer knows (token_invalid) is deleted all the same. */
    async deleteSavedMethodAtGateway({ methodId }: { methodId: string }) {
      const method = await getSavedMethod(db, methodId);
      if (!method)
        throw ApplicationFailure.nonRetryable(`Saved method ${methodId} has no record`, 'UnknownMethod');
      let resultCode = 0;
      let message = 'Already removed';
      if (method.status === 'deleting') {
        // Ids of its own on every attempt: a deletion whose answer was lost is sent again, and the gateway
        // answers 2001 (token_invalid) for a token it already deleted, which counts as deleted.
        const id = lookupId(`${method.initial_order_id}-del`);
        const answer = await ask('tokenization.delete', {
          orderId: id,
          requestId: id,
          partnerClientId: method.gateway_client_id,
          token: tokenOf(method),
          lang: 'en',
        });
        resultCode = answer.resultCode;
        message = answer.message;
        const deleted = outcomeOf(answer.resultCode);
        if (deleted !== 'succeeded' && deleted !== 'token_invalid') {
          await db('saved_methods')
            .where({ method_id: methodId })
            .update({ status: 'active', updated_at: db.fn.now() });
          throw ApplicationFailure.nonRetryable(
            `The gateway refused the deletion: ${message}`,
            'DeleteRefused',
            {
              resultCode,
            },
          );
        }
        await db('saved_methods')
          .where({ method_id: methodId, status: 'deleting' })
          .update({ status: 'deleted', deleted_at: db.fn.now(), updated_at: db.fn.now() });
      }
      return { status: 'deleted' as const, resultCode, message };
    },

    /** tokenization/pay. orderId = the payment's; requestId per payment: a retry re-sends the same order. */
    async payWithToken({ paymentId, at }: { paymentId: string; at: number }) {
      const { payment, method } = await paymentWithToken(paymentId);
      if (method.status !== 'active') {
        return {
          outcome: 'failed' as const,
          resultCode: codeOf('token_invalid'),
          message: `The saved method is ${method.status}; it is never used again.`,
        };
      }
      const answer = await ask(
        'tokenization.pay',
        {
          orderId: payment.order_id,
          requestId: requestIdFor(payment.order_id, 'pay'),
          amount: Number(payment.amount),
          token: tokenOf(method),
          partnerClientId: payment.gateway_client_id,
          orderInfo: payment.description,
          redirectUrl: '',
          ipnUrl: savedMethodIpnUrl,
          extraData: '',
          lang: 'en',
        },
        { context: { tokenKind: method.kind } },
      );
      const transId = answer.accepted ? text(answer.body.transId) : undefined;
      const base = { resultCode: answer.resultCode, message: answer.message, transId };
      if (!answer.accepted) return { outcome: 'failed' as const, ...base };
      // Already submitted (40: this attempt's first answer was lost; 41): ask now. An answer with evidence
      // decides; anything else is pending, and the workflow waits for the notification and asks again.
      if (isAlreadySubmitted(answer.outcome)) {
        const asked = await paymentEvidence(payment.order_id, Number(payment.amount));
        if (asked.state === 'decided')
          return {
            outcome: asked.outcome === 'succeeded' ? ('succeeded' as const) : ('failed' as const),
            resultCode: asked.resultCode,
            message: asked.message,
            transId: asked.transId,
          };
        // The first answer asked for the customer's code (8200), and the SMS went out: the payment waits for
        // the code like any other (the customer has it), never for a result no code will bring.
        if (asked.state === 'undecided' && asked.outcome === 'otp_required') {
          await recordOtpAttempt(db, {
            paymentId,
            partnerClientId: userOfClientId(payment.gateway_client_id),
            kind: 'sms',
            outcome: 'sent',
            resultCode: asked.resultCode,
            at,
          });
          return { outcome: 'otp' as const, resultCode: asked.resultCode, message: asked.message, transId };
        }
        return { outcome: 'pending' as const, ...base };
      }
      const paid = answer.outcome;
      if (paid === 'succeeded') return { outcome: 'succeeded' as const, ...base };
      if (paid === 'otp_required') {
        await recordOtpAttempt(db, {
          paymentId,
          partnerClientId: userOfClientId(payment.gateway_client_id),
          kind: 'sms',
          outcome: 'sent',
          resultCode: answer.resultCode,
          at,
        });
        return { outcome: 'otp' as const, ...base };
      }
      if (paid === 'redirect_customer') {
        await db('saved_method_payments')
          .where({ payment_id: paymentId })
          .update({
            pay_url: text(answer.body.payUrl) ?? null,
            deeplink: text(answer.body.deeplink) ?? null,
          });
        return { outcome: 'redirect' as const, ...base };
      }
      // Pending, or already submitted: the IPN or api/query tells the outcome.
      return { outcome: 'pending' as const, ...base };
    },

    /** tokenization/verify with the customer's code; records the attempt (never the code). */
    async verifyTokenPayment({
      paymentId,
      code,
      attempt,
      at,
    }: {
      paymentId: string;
      code: string;
      attempt: number;
      at: number;
    }): Promise<{
      attemptOutcome: OtpAttemptOutcome;
      resultCode: number;
      message: string;
      transId?: string;
    }> {
      const { payment, method } = await paymentWithToken(paymentId);
      const answer = await ask(
        'tokenization.verify',
        {
          orderId: payment.order_id,
          requestId: requestIdFor(payment.order_id, `v${attempt}`),
          securityCode: code,
          token: tokenOf(method),
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
    },

    /**
     * api/query for a saved-method payment; `final` only with evidence (gateway/evidence.ts): an answer
     * naming this payment with its amount and transaction. A refused query never decides it.
     */
    async queryTokenPayment({ paymentId }: { paymentId: string; attempt: number }) {
      const payment = await getSavedMethodPayment(db, paymentId);
      if (!payment)
        throw ApplicationFailure.nonRetryable(
          `Saved-method payment ${paymentId} has no record`,
          'UnknownPayment',
        );
      const evidence = await paymentEvidence(payment.order_id, Number(payment.amount));
      if (evidence.state === 'unknown')
        return { final: false, resultCode: evidence.resultCode ?? -1, message: evidence.reason };
      return {
        final: evidence.state === 'decided',
        resultCode: evidence.resultCode,
        message: evidence.message,
        transId: evidence.state === 'decided' ? evidence.transId : undefined,
      };
    },

    async recordTokenPayment(input: {
      paymentId: string;
      state: SavedMethodPaymentState;
      resultCode?: number;
      message?: string;
      transId?: string;
    }) {
      await updateSavedMethodPayment(db, input, canMove);
    },

    async otpAttemptsToday({ partnerClientId, now }: { partnerClientId: string; now: number }) {
      return recentOtpAttempts(db, partnerClientId, now);
    },
  };
}

export type SavedMethodActivities = ReturnType<typeof createSavedMethodActivities>;
