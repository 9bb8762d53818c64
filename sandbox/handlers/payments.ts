import type { OperationName } from '../../gateway';
import { CODE } from '../codes';
import type { ApprovalOptions, CustomerAnswer } from '../customer';
import { paymentScenario } from '../customer-scenarios';
import { outcome, type GatewayRequest, type HandlerOutcome, type HandlerTable } from '../handler';
import { customerLinks, type LinkKind } from '../links';
import { answerOf, declinePayment, newPayment, resolvePayment } from '../payment-flow';
import type { Payment, PaymentMethod } from '../state';
import type { SandboxWorld } from '../world';
import { expireHoldIfDue } from './confirm';
import { terminalFor } from './terminals';

/**
 * Document 1: api/create for every one-time requestType, POS quick pay and the status query. A
 * create answers 0 with the links of its type and waits for the customer (hosted page, admin API or
 * autoApprove); the terminal flow answers 7000 and the terminal "pays" when the customer approves.
 */

type CreateOperation = Extract<
  OperationName,
  | 'payment.captureWallet'
  | 'payment.payWithCC'
  | 'payment.payWithPlatformPayA'
  | 'payment.payWithPlatformPayB'
  | 'payment.onDelivery'
  | 'payment.payWithVTS'
  | 'payment.payWithMethod'
>;

interface CreateFlow {
  links: readonly LinkKind[];
  method: PaymentMethod;
  payType: string;
  notification: 'payment.resultA' | 'payment.resultB';
  paymentOption?: string;
}

/** What each requestType hands the merchant and how its payment is reported (spec payType table). */
const CREATE_FLOWS: Readonly<Record<CreateOperation, CreateFlow>> = {
  'payment.captureWallet': {
    links: ['payUrl', 'deeplink', 'qrCodeUrl', 'deeplinkMiniApp'],
    method: 'wallet',
    payType: 'webApp',
    notification: 'payment.resultA',
    paymentOption: 'svc',
  },
  'payment.payWithCC': {
    links: ['payUrl'],
    method: 'credit',
    payType: 'credit',
    notification: 'payment.resultB',
  },
  'payment.payWithPlatformPayA': {
    links: ['payUrl'],
    method: 'platform',
    payType: 'web',
    notification: 'payment.resultA',
  },
  'payment.payWithPlatformPayB': {
    links: ['payUrl'],
    method: 'platform',
    payType: 'web',
    notification: 'payment.resultA',
  },
  // The QR is for the shipper's app or the parcel label.
  'payment.onDelivery': {
    links: ['payUrl', 'qrCodeUrl'],
    method: 'wallet',
    payType: 'qr',
    notification: 'payment.resultA',
  },
  'payment.payWithVTS': {
    links: ['payUrl', 'deeplink'],
    method: 'pay-later',
    payType: 'webApp',
    notification: 'payment.resultA',
    paymentOption: 'pay_later',
  },
  'payment.payWithMethod': {
    links: ['payUrl', 'shortLink', 'qrCodeUrl', 'deeplink'],
    method: 'wallet',
    payType: 'qr',
    notification: 'payment.resultA',
  },
};

/** payWithMethod: card methods need at least 10 000 VND (checked when the customer picks one). */
const CARD_METHOD_MINIMUM = 10_000;

const METHOD_PAY_TYPE: Readonly<Record<NonNullable<ApprovalOptions['method']>, [PaymentMethod, string]>> = {
  wallet: ['wallet', 'qr'],
  credit: ['credit', 'credit'],
  domestic: ['domestic', 'domestic'],
};

function createHandler(operation: CreateOperation) {
  const flow = CREATE_FLOWS[operation];
  return {
    createsOrder: true,
    handle(request: GatewayRequest, world: SandboxWorld): HandlerOutcome {
      const payment = newPayment(world, request, flow);
      if (flow.paymentOption) payment.paymentOption = flow.paymentOption;
      world.customer.wait({
        orderId: payment.orderId,
        step: 'payment',
        amount: payment.amount,
        description: payment.orderInfo,
        createdAt: payment.createdAt,
        approve: (options) => approveOneTime(world, payment, operation, options),
        decline: () => answerOf(payment.orderId, 'payment', declinePayment(world, payment, operation)),
      });
      return outcome(CODE.success, undefined, {
        amount: payment.amount,
        ...customerLinks(world, payment.orderId, flow.links),
      });
    },
  };
}

function approveOneTime(
  world: SandboxWorld,
  payment: Payment,
  operation: OperationName,
  options: ApprovalOptions,
): CustomerAnswer {
  if (operation === 'payment.payWithMethod') {
    const [method, payType] = METHOD_PAY_TYPE[options.method ?? 'wallet'];
    if (method !== 'wallet' && payment.amount < CARD_METHOD_MINIMUM)
      return {
        orderId: payment.orderId,
        step: 'payment',
        resultCode: CODE.amountOutOfRange,
        message: `card methods need at least ${CARD_METHOD_MINIMUM} VND; choose the wallet`,
      };
    payment.method = method;
    payment.payType = payType;
  }
  applyChoices(payment, options);
  return answerOf(
    payment.orderId,
    'payment',
    resolvePayment(world, payment, paymentScenario(payment.amount), operation),
  );
}

/** Customer-side choices that every flow honours: a payType override and a voucher. */
export function applyChoices(payment: Payment, options: ApprovalOptions): void {
  if (options.payType) payment.payType = options.payType;
  if (options.voucher)
    payment.promotionInfo = [
      {
        amount: options.voucher.amount,
        amountSponsor: 0,
        voucherId: `V-${payment.orderId}`.slice(0, 50),
        voucherType: 'Fixed',
        voucherName: options.voucher.name ?? 'Sandbox voucher',
        merchantRate: '0',
      },
    ];
}

export const paymentHandlers: HandlerTable = {
  'payment.captureWallet': createHandler('payment.captureWallet'),
  'payment.payWithCC': createHandler('payment.payWithCC'),
  'payment.payWithPlatformPayA': createHandler('payment.payWithPlatformPayA'),
  'payment.payWithPlatformPayB': createHandler('payment.payWithPlatformPayB'),
  'payment.onDelivery': createHandler('payment.onDelivery'),
  'payment.payWithVTS': createHandler('payment.payWithVTS'),
  'payment.payWithMethod': createHandler('payment.payWithMethod'),

  'payment.payWithEdc': {
    createsOrder: true,
    handle(request, world) {
      const { fields } = request;
      const terminal = terminalFor(world, String(fields.storeId), fields.serialNumber as string | undefined);
      if ('refusal' in terminal)
        return { ...outcome(CODE.badFormat, terminal.refusal), untouched: { orderId: true } };
      const card = fields.instrumentType !== 'QR';
      const payment = newPayment(world, request, {
        notification: 'payment.resultA',
        method: card ? 'terminal-card' : 'terminal-qr',
        payType: card ? 'edcDevice' : 'aio_qr',
      });
      payment.serialNumber = terminal.serialNumber;
      payment.message = `The terminal ${terminal.serialNumber} is waiting for the customer`;
      world.customer.wait({
        orderId: payment.orderId,
        step: 'terminal',
        amount: payment.amount,
        description: payment.orderInfo,
        createdAt: payment.createdAt,
        approve(options) {
          applyChoices(payment, options);
          if (card) payment.cardPaymentInfo = { cardType: 'VISA', cardNumber: '411111******1111' };
          else payment.paymentOption = 'svc';
          return answerOf(
            payment.orderId,
            'terminal',
            resolvePayment(world, payment, paymentScenario(payment.amount), 'payment.payWithEdc'),
          );
        },
        decline: () =>
          answerOf(payment.orderId, 'terminal', declinePayment(world, payment, 'payment.payWithEdc')),
      });
      // The spec: "answers with the pending outcome, and activates the terminal".
      return outcome(CODE.processing, payment.message, { amount: payment.amount });
    },
  },

  'payment.pos': {
    createsOrder: true,
    handle(request, world) {
      // The paymentCode (decrypted) identifies the customer's app session; any non-empty code pays.
      const payment = newPayment(world, request, {
        notification: 'payment.resultA',
        method: 'wallet',
        payType: 'app',
      });
      payment.paymentOption = 'svc';
      const resolution = resolvePayment(world, payment, paymentScenario(payment.amount), 'payment.pos');
      return outcome(resolution.resultCode, resolution.message, {
        amount: payment.amount,
        transId: payment.transId,
        promotionInfo: payment.promotionInfo,
      });
    },
  },

  'payment.query': {
    handle(request, world) {
      world.customer.get(request.orderId); // a link past its validity expires now
      const payment = world.state.payments.get(request.orderId);
      if (!payment) return outcome(CODE.invalidOrder, `orderId ${request.orderId} not found`);
      expireHoldIfDue(world, payment);
      return outcome(payment.resultCode, payment.message, {
        extraData: payment.extraData,
        amount: payment.amount,
        transId: payment.transId,
        payType: payment.status === 'succeeded' ? payment.payType : '',
        refundTrans: payment.refunds.map((refund) => ({
          orderId: refund.orderId,
          amount: refund.amount,
          resultCode: refund.resultCode,
          transId: refund.transId,
          createdTime: refund.createdAt,
        })),
        promotionInfo: payment.promotionInfo,
        lastUpdated: payment.lastUpdated,
      });
    },
  },
};
