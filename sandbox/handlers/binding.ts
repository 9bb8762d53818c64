import { createHash } from 'node:crypto';
import { encryptAesToken } from '../../gateway';
import { CODE } from '../codes';
import { paymentScenario, userOf } from '../customer-scenarios';
import { outcome, type GatewayRequest, type HandlerOutcome, type HandlerTable } from '../handler';
import { customerLinks, type LinkKind } from '../links';
import {
  answerOf,
  declinePayment,
  expirePayment,
  newPayment,
  resolvePayment,
  withFunds,
} from '../payment-flow';
import type { Authorization, AuthorizationKind, SavedToken, TokenFlow } from '../state';
import type { SandboxWorld } from '../world';

/**
 * Document 2, saving a card or binding a wallet: create → the customer approves within the link's
 * validity → list-B IPN with a callbackToken (or tokenization/cbQuery) → tokenization/bind hands out
 * the AES-encrypted token → tokenization/delete (merchant) or a customer-side revoke (unbind call).
 */

type BindingOperation = 'binding.payWithCC' | 'binding.payWithATM' | 'binding.linkWallet';

const BINDINGS: Readonly<
  Record<BindingOperation, { flow: TokenFlow; payType: string; links: readonly LinkKind[] }>
> = {
  'binding.payWithCC': { flow: 'card', payType: 'credit', links: ['payUrl'] },
  'binding.payWithATM': { flow: 'domestic', payType: 'domestic', links: ['payUrl'] },
  'binding.linkWallet': {
    flow: 'wallet',
    payType: 'webApp',
    links: ['payUrl', 'deeplink', 'qrCodeUrl', 'deeplinkMiniApp'],
  },
};

const METHOD_OF_FLOW = { card: 'credit', domestic: 'domestic', wallet: 'wallet' } as const;
const CARD_NETWORKS = ['VISA', 'MASTERCARD', 'JCB'] as const;
const DOMESTIC_BANK = { bankCode: '970436', bankLogoUrl: 'https://sandbox.invalid/bank-logos/970436.png' };

/** The wallet the customer binds: the phone in userInfo, else one derived from the user and link number. */
export function walletOf(
  partnerClientId: string,
  phoneNumber?: string,
): { userAlias: string; profileId: string } {
  const { user, linkNumber } = userOf(partnerClientId);
  const walletId =
    phoneNumber && /\d{4}$/.test(phoneNumber)
      ? phoneNumber
      : `09${(parseInt(createHash('sha256').update(user).digest('hex').slice(0, 8), 16) % 100_000_000).toString().padStart(8, '0')}`;
  return {
    userAlias: `******${walletId.slice(-4)}`,
    profileId: createHash('sha256').update(`${walletId}#${linkNumber}`).digest('hex').slice(0, 32),
  };
}

function tokenPayload(
  world: SandboxWorld,
  flow: TokenFlow,
  value: string,
  fields: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const last4 = String(world.random.int(0, 9999)).padStart(4, '0');
  if (flow === 'card')
    return {
      value,
      cardNumber: last4,
      cardType: CARD_NETWORKS[world.random.int(0, CARD_NETWORKS.length - 1)]!,
    };
  if (flow === 'domestic') return { value, cardNumber: last4, ...DOMESTIC_BANK, cardType: 'domestic' };
  const userInfo = (fields.userInfo ?? {}) as { phoneNumber?: string };
  return { value, ...walletOf(String(fields.partnerClientId), userInfo.phoneNumber) };
}

function bindingCreate(operation: BindingOperation) {
  const binding = BINDINGS[operation];
  return {
    createsOrder: true,
    handle(request: GatewayRequest, world: SandboxWorld): HandlerOutcome {
      const partnerClientId = String(request.fields.partnerClientId);
      const payment = newPayment(world, request, {
        notification: 'payment.resultB',
        method: METHOD_OF_FLOW[binding.flow],
        payType: binding.payType,
        partnerClientId,
      });
      const authorization = newAuthorization(world, request, binding.flow);
      world.customer.wait({
        orderId: payment.orderId,
        step: 'binding',
        amount: payment.amount,
        description: payment.orderInfo,
        partnerClientId,
        createdAt: payment.createdAt,
        expiresAt: payment.createdAt + world.config.timing.linkValidityMs,
        approve() {
          const result =
            payment.amount > 0
              ? withFunds(world, payment, paymentScenario(payment.amount))
              : { kind: 'success' as const };
          if (result.kind === 'refuse') authorization.status = 'failed';
          else {
            const value = `tok${world.random.hex(32)}`;
            authorize(
              world,
              authorization,
              tokenFrom(world, binding.flow, value, request.fields, authorization),
            );
            payment.callbackToken = authorization.callbackToken!;
          }
          return answerOf(payment.orderId, 'binding', resolvePayment(world, payment, result, operation));
        },
        decline() {
          authorization.status = 'declined';
          return answerOf(payment.orderId, 'binding', declinePayment(world, payment, operation));
        },
        expire() {
          authorization.status = 'expired';
          return answerOf(payment.orderId, 'binding', expirePayment(world, payment, operation));
        },
      });
      return outcome(CODE.success, undefined, {
        amount: payment.amount,
        partnerClientId,
        ...customerLinks(world, payment.orderId, binding.links),
      });
    },
  };
}

export function newAuthorization(
  world: SandboxWorld,
  request: GatewayRequest,
  kind: AuthorizationKind,
): Authorization {
  const authorization: Authorization = {
    orderId: request.orderId,
    requestId: request.requestId,
    kind,
    partnerClientId: String(request.fields.partnerClientId),
    status: 'awaiting-customer',
  };
  world.state.authorizations.set(request.orderId, authorization);
  return authorization;
}

/** The customer approved: a callbackToken for the merchant, and the token it will be exchanged for. */
export function authorize(world: SandboxWorld, authorization: Authorization, token: SavedToken): void {
  authorization.status = 'approved';
  authorization.callbackToken = `cb${world.random.hex(40)}`;
  authorization.token = token;
}

function tokenFrom(
  world: SandboxWorld,
  flow: TokenFlow,
  value: string,
  fields: Readonly<Record<string, unknown>>,
  authorization: Authorization,
): SavedToken {
  return {
    value,
    flow,
    partnerClientId: authorization.partnerClientId,
    initialOrderId: authorization.orderId,
    status: 'active',
    payload: tokenPayload(world, flow, value, fields),
    createdAt: world.now(),
  };
}

/** cbQuery, bind and subscription/create all start from the authorization of the orderId. */
export function authorizationFor(
  world: SandboxWorld,
  request: GatewayRequest,
): { authorization: Authorization } | { refusal: HandlerOutcome } {
  world.customer.get(request.orderId); // a link past its validity expires now
  const authorization = world.state.authorizations.get(request.orderId);
  if (!authorization)
    return {
      refusal: outcome(CODE.invalidOrder, `no binding or subscription with orderId ${request.orderId}`),
    };
  if (authorization.partnerClientId !== request.fields.partnerClientId)
    return {
      refusal: outcome(
        CODE.invalidOrder,
        `partnerClientId differs from the one of orderId ${request.orderId}`,
      ),
    };
  return { authorization };
}

/** Exchanges the callbackToken for the AES-encrypted token (bind and subscription/create). */
export function exchangeCallbackToken(
  world: SandboxWorld,
  request: GatewayRequest,
  subscription: boolean,
): HandlerOutcome {
  const found = authorizationFor(world, request);
  if ('refusal' in found) return found.refusal;
  const { authorization } = found;
  if ((authorization.kind === 'subscription') !== subscription)
    return outcome(
      CODE.badFormat,
      subscription
        ? `orderId ${request.orderId} is a binding: exchange its callbackToken with tokenization/bind`
        : `orderId ${request.orderId} is a subscription: exchange its callbackToken with subscription/create`,
    );
  if (!authorization.token || authorization.callbackToken !== request.fields.callbackToken)
    return outcome(CODE.invalidToken, 'callbackToken is not valid for this orderId and partnerClientId');
  world.state.tokens.set(authorization.token.value, authorization.token);
  return outcome(CODE.success, undefined, {
    aesToken: encryptAesToken(authorization.token.payload, world.config.merchant.secretKey),
    partnerClientId: authorization.partnerClientId,
    timestamp: world.now(),
  });
}

/** The active token a request names (decrypted `token.value`), owned by the request's partnerClientId. */
export function activeToken(
  world: SandboxWorld,
  fields: Readonly<Record<string, unknown>>,
): SavedToken | undefined {
  const value = (fields.token as { value?: unknown } | undefined)?.value;
  const token = typeof value === 'string' ? world.state.tokens.get(value) : undefined;
  if (!token || token.status !== 'active') return undefined;
  if (fields.partnerClientId !== undefined && fields.partnerClientId !== token.partnerClientId)
    return undefined;
  return token;
}

export interface RevokeResult {
  revoked: { initialOrderId: string; flow: TokenFlow }[];
  /** How many unbind notifications were sent (card and domestic tokens; wallets have none in the spec). */
  notified: number;
  unbindUrl: string | null;
}

/** The customer removes saved cards (or a wallet link) in the app: tokens revoked, merchant told. */
export function revokeTokens(world: SandboxWorld, partnerClientId: string, value?: string): RevokeResult {
  const tokens = [...world.state.tokens.values()].filter(
    (token) =>
      token.status === 'active' &&
      token.partnerClientId === partnerClientId &&
      (value === undefined || token.value === value),
  );
  let notified = 0;
  for (const token of tokens) {
    token.status = 'revoked';
    if (token.flow === 'wallet') continue;
    notified += 1;
    world.ipn.send({
      kind: 'token.unbind',
      source: 'tokenization.delete',
      url: world.settings.unbindUrl,
      fields: {
        partnerCode: world.config.merchant.partnerCode,
        requestId: `unbind-${world.random.hex(16)}`,
        orderId: token.initialOrderId,
        requestType: 'remove',
        partnerClientId: token.partnerClientId,
        tokenType: token.flow === 'card' ? 'credit' : 'atm',
      },
    });
  }
  return {
    revoked: tokens.map((token) => ({ initialOrderId: token.initialOrderId, flow: token.flow })),
    notified,
    unbindUrl: world.settings.unbindUrl ?? null,
  };
}

export const bindingHandlers: HandlerTable = {
  'binding.payWithCC': bindingCreate('binding.payWithCC'),
  'binding.payWithATM': bindingCreate('binding.payWithATM'),
  'binding.linkWallet': bindingCreate('binding.linkWallet'),

  'tokenization.cbQuery': {
    handle(request, world) {
      const found = authorizationFor(world, request);
      if ('refusal' in found) return found.refusal;
      const { authorization } = found;
      if (authorization.callbackToken)
        return outcome(CODE.success, undefined, { callbackToken: authorization.callbackToken });
      const payment = world.state.payments.get(request.orderId);
      return outcome(payment?.resultCode ?? CODE.processing, payment?.message);
    },
  },

  'tokenization.bind': { handle: (request, world) => exchangeCallbackToken(world, request, false) },

  'tokenization.delete': {
    handle(request, world) {
      const token = activeToken(world, request.fields);
      if (!token)
        return outcome(
          CODE.invalidToken,
          'token does not exist, was deleted, or belongs to another partnerClientId',
        );
      token.status = 'revoked';
      return outcome(CODE.success, 'Token deleted', { partnerClientId: token.partnerClientId });
    },
  },
};
