/** Payment stories: take a payment, read it, refund it, settle a terminal. Routes stay thin. */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { ApplicationFailure, WorkflowIdReusePolicy } from '@temporalio/common';
import { AUTHORIZATION_HOLD_MS, REFUND_AMOUNT_RANGES } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import type { ListFilter } from '../../db/shared/list-filter';
import { latestUnverifiedFields } from '../../db/shared/ipn-notifications';
import {
  insertPayment,
  insertTerminalSettlement,
  findPayment,
  findRefund,
  listPayments as listPaymentRows,
  listRefundsOf,
  reserveRefund,
  type PaymentRow,
  type RefundItem,
  type RefundRow,
} from '../../db/payments/payments';
import {
  CONFIRM_REFUSED,
  confirmPaymentUpdate,
  paymentAnsweredUpdate,
  refundAnsweredUpdate,
  paymentWorkflowId,
  type ConfirmAction,
  type PaymentInput,
  type PaymentRequestType,
  type PaymentTiming,
  refundWorkflowId,
  takenByPaymentDesk,
  type RefundInput,
  type RefundTiming,
  terminalSettlementWorkflowId,
  type TerminalSettlementResult,
} from '../../contracts/payments';
import { failureTypeOf, payrunOrderId, type StartableWorkflows } from '../../contracts/shared';
import type { Principal } from '../auth/roles';
import { ApiError, conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { createOrResume, startOnce } from '../http/resumable';
import { executeWorkflow, startAwaitingAnswer, startWorkflow } from '../workflow-starts';
import { requirementFor } from '../../contracts/approvals';
import { approvalRequestOf, requestApprovalIn } from '../approvals/approvals';
import type { ApprovalPolicyReader } from '../approvals/policy-reader';
import { reservingOrderIds } from '../order-ids';
import type { PaymentDesk } from './payment-desk';

export interface PaymentSettings {
  taskQueue: string;
  payment: PaymentTiming;
  refund: RefundTiming;
  /** How long a create call waits for the gateway's answer (links) before answering 202. */
  answerWaitMs: number;
  /**
   * How a create or refund call waits for that answer: `update` (default) sends the workflow's "answered"
   * update with its start and reads the record once; `polling` reads the record every 50 ms, the design
   * before it, kept only so the payments benchmark can compare (PAYMENT_ANSWER_BY_POLLING).
   */
  answerBy?: 'update' | 'polling';
  /** Benchmark comparison only (STEPS_AS_QUEUED_ACTIVITIES): PaymentInput.queuedSteps. */
  queuedSteps?: boolean;
  /**
   * PAYMENT_DESK: payments the desk takes (`takenByPaymentDesk`) are created in chunks by one long-lived workflow
   * and have no workflow of their own until they need one (docs/payments.md, "The payment desk").
   */
  desk?: boolean;
}

/** `resultWait`: PAYMENT_RESULT_WAIT_HOURS (platform/config.ts). */
export const defaultPaymentSettings = (taskQueue: string, resultWait: string): PaymentSettings => ({
  taskQueue,
  // The spec asks clients to wait ≥ 30 s for create, POS and refund calls.
  payment: {
    gatewayAttemptTimeout: '35 seconds',
    ipnTimeout: '2 minutes',
    maxQueryInterval: '30 minutes',
    resultWait,
    // The gateway's hold of an authorization (gateway/README.md, assumption on capture).
    authorizationHold: AUTHORIZATION_HOLD_MS,
  },
  refund: {
    gatewayAttemptTimeout: '35 seconds',
    firstCheck: '10 seconds',
    maxInterval: '30 minutes',
    giveUpAfter: '3 days',
  },
  answerWaitMs: 40_000,
});

export interface PaymentDeps {
  db: Db;
  temporal: Client;
  settings: PaymentSettings;
  /** The approval policy in effect when an item is created (api/approvals/policy-reader.ts). */
  approvalPolicies: ApprovalPolicyReader;
  /** The payment desk when `settings.desk` is on (api/payments/payment-desk.ts). */
  desk?: PaymentDesk;
}

/** The smallest refund of this payment (a domestic card payment has a higher floor). */
export const refundMinimumFor = (payment: PaymentRow) =>
  REFUND_AMOUNT_RANGES[payment.pay_type === 'domestic' ? 'domestic-card' : 'other'][0];

export interface NewPayment {
  paymentId: string;
  requestType: PaymentRequestType;
  amount: number;
  orderInfo: string;
  /** Already Base64 JSON. */
  extraData: string;
  autoCapture: boolean;
  storeId?: string;
  serialNumber?: string;
  instrumentType?: string;
  /** Everything else the create call sends (items, userInfo, deliveryInfo, referenceId, lang, …). */
  details: Record<string, unknown>;
  paymentCode?: string;
  principal: Principal;
  create?: CreateRequest;
}

async function waitWhile<T>(read: () => Promise<T>, busy: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (busy(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

type PaymentWorkflow = StartableWorkflows['payment'];

export const paymentWorkflowInput = (
  settings: PaymentSettings,
  input: Pick<NewPayment, 'paymentId' | 'requestType' | 'autoCapture' | 'paymentCode'>,
): PaymentInput => ({
  paymentId: input.paymentId,
  requestType: input.requestType,
  autoCapture: input.autoCapture,
  timing: settings.payment,
  ...(input.paymentCode !== undefined ? { paymentCode: input.paymentCode } : {}),
  ...(settings.queuedSteps && { queuedSteps: true as const }),
});

export async function createPayment(deps: PaymentDeps, input: NewPayment) {
  const { db, temporal, settings } = deps;
  const workflowId = paymentWorkflowId(input.paymentId);
  const workflowInput = paymentWorkflowInput(settings, input);
  const startOptions: WorkflowStartOptions<PaymentWorkflow> = {
    taskQueue: settings.taskQueue,
    workflowId,
    args: [workflowInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    staticSummary: `Payment ${input.paymentId}: ${input.amount} VND by ${input.requestType}`,
    typedSearchAttributes: [{ key: payrunOrderId, value: input.paymentId }],
  };
  const polling = settings.answerBy === 'polling';
  const startItsWorkflow = () =>
    polling
      ? startWorkflow(temporal, 'payment', startOptions)
      : startAwaitingAnswer(
          temporal,
          'payment',
          startOptions,
          paymentAnsweredUpdate,
          Date.now() + settings.answerWaitMs,
        );
  // The desk's answer is waited for from before the insert commits, so no announcement can come before the wait.
  const desk = deps.desk?.answers.listening() ? deps.desk : undefined;
  const queued = desk !== undefined && takenByPaymentDesk(input);
  if (queued) await desk.ensureRunning();
  const wait = desk?.answers.waitFor(input.paymentId, settings.answerWaitMs);
  /** The record as the desk answered it, read once. */
  let answered: PaymentRow | undefined;
  try {
    await createOrResume({
      insert: () =>
        insertPayment(db, {
          payment_id: input.paymentId,
          // The gateway orderId is the merchant's own payment id: one id, one order, ever.
          order_id: input.paymentId,
          workflow_id: workflowId,
          request_type: input.requestType,
          amount: input.amount,
          status: 'created',
          auto_capture: input.autoCapture,
          order_info: input.orderInfo,
          extra_data: input.extraData,
          request_details: JSON.stringify(input.details),
          store_id: input.storeId ?? null,
          serial_number: input.serialNumber ?? null,
          instrument_type: input.instrumentType ?? null,
          created_by_key: input.principal.keyId,
          created_by: input.principal.name,
          ...(queued ? { desk_id: desk.deskWorkflowId } : {}),
        }),
      createdByKeyOf: async () => (await findPayment(db, input.paymentId))?.created_by_key,
      request: input,
      exists: () =>
        conflict('payment_exists', `Payment ${input.paymentId} already exists; a payment id is used once.`),
      // The customer needs the links from the gateway's answer: wait for it (bounded by answerWaitMs).
      start: async (adopted) => {
        const held = adopted
          ? heldByDesk(await findPayment(db, input.paymentId))
          : queued
            ? 'create'
            : undefined;
        if (held === 'answered') return;
        if (held === 'create') {
          // Not answered within the bound: the record answers as it is (202 while `created`).
          if (wait === undefined || !(await wait.answered)) return;
          // Still on the desk: answered there. Not: handed to its own workflow, which answers as below.
          const row = await findPayment(db, input.paymentId);
          if (heldByDesk(row) !== undefined) {
            answered = row;
            return;
          }
        }
        return startItsWorkflow();
      },
    });
  } finally {
    wait?.cancel();
  }
  const row = answered
    ? answered
    : polling
      ? await waitWhile(
          () => findPayment(db, input.paymentId),
          (found) => found?.status === 'created',
          settings.answerWaitMs,
        )
      : await findPayment(db, input.paymentId);
  return { status: row?.status === 'created' ? 202 : 201, body: paymentView(row!) };
}

/**
 * What the desk holds of a payment: its create still to make, or the payment after its create was answered; nothing
 * once its own workflow took it over (or it never was the desk's). A payment the desk holds must never get a
 * workflow from here: that workflow would send its create again.
 */
function heldByDesk(row: PaymentRow | undefined): 'create' | 'answered' | undefined {
  if (row === undefined || row.desk_id === null) return undefined;
  return row.status === 'created' ? 'create' : 'answered';
}

export function paymentView(row: PaymentRow) {
  const refunded = Number(row.refunded_amount);
  return {
    paymentId: row.payment_id,
    orderId: row.order_id,
    requestType: row.request_type,
    amount: Number(row.amount),
    status: row.status,
    autoCapture: row.auto_capture,
    orderInfo: row.order_info,
    payUrl: row.pay_url,
    deeplink: row.deeplink,
    qrCodeUrl: row.qr_code_url,
    deeplinkMiniApp: row.deeplink_mini_app,
    shortLink: row.short_link,
    storeId: row.store_id,
    serialNumber: row.serial_number,
    transId: row.trans_id,
    payType: row.pay_type,
    // From payrun's own calls only (api/query, the POS answer): a notification's promotionInfo is unsigned.
    promotions: row.promotions ?? [],
    resultCode: row.result_code,
    message: row.result_message,
    refundedAmount: refunded,
    refundableAmount: row.status === 'succeeded' && !row.settled_at ? Number(row.amount) - refunded : 0,
    settledAt: row.settled_at,
    holdExpiresAt: row.hold_expires_at,
    confirmation: row.confirm_action
      ? {
          action: row.confirm_action,
          by: row.confirmed_by,
          resultCode: row.confirm_result_code,
          message: row.confirm_message,
          at: row.confirmed_at,
        }
      : null,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    // Where to look in the Temporal UI: the payment desk while it holds the payment (paid there included).
    workflowId: row.desk_id ?? row.workflow_id,
    // The desk's chunk that made its create (PAYMENT_DESK): its result in the desk's history names this payment.
    deskChunk: row.desk_chunk ?? null,
  };
}

/**
 * Capture or cancel an authorized payment through its workflow, which alone decides whether it still
 * can (authorized, undecided, within the hold) and asks the gateway. Answers the payment afterwards.
 */
export async function confirmPayment(
  deps: PaymentDeps,
  input: { paymentId: string; action: ConfirmAction; principal: Principal },
) {
  const row = await findPayment(deps.db, input.paymentId);
  if (!row) throw notFound(`Payment ${input.paymentId}`);
  let result;
  try {
    result = await deps.temporal.workflow
      .getHandle(row.workflow_id)
      .executeUpdate(confirmPaymentUpdate, { args: [{ action: input.action, by: input.principal.name }] });
  } catch (error) {
    const refused =
      error instanceof WorkflowUpdateFailedError &&
      error.cause instanceof ApplicationFailure &&
      failureTypeOf(error.cause) === CONFIRM_REFUSED;
    if (refused || (error as Error).name === 'WorkflowNotFoundError')
      throw conflict(
        'payment_not_authorized',
        refused
          ? (error.cause as Error).message
          : `Payment ${input.paymentId} is ${row.status}; only an authorized, undecided payment can be captured or cancelled.`,
      );
    throw error;
  }
  const view = paymentView((await findPayment(deps.db, input.paymentId))!);
  if (result.status === 'authorized_not_captured')
    throw new ApiError(
      'confirm_refused',
      `The gateway did not ${input.action} payment ${input.paymentId}: ${result.resultCode} ${result.message}`,
    );
  return view;
}

/**
 * What the gateway's notifications said about the payment outside their signature (`paymentOption`,
 * `promotionInfo`, `cardPaymentInfo`, `userFee`…; spec document 1 signs none of them), shown apart and
 * named unverified: anyone on the path could have written them beside a valid signature, so payrun acts on
 * none of them. Payments recorded before notifications were read this way kept `payment_option` and
 * `card_payment_info` from the notification; those are unverified too.
 */
async function unverifiedOf(db: Db, row: PaymentRow) {
  const notified = await latestUnverifiedFields(db, row.order_id);
  if (notified)
    return { source: 'notification' as const, receivedAt: notified.receivedAt, fields: notified.fields };
  const legacy = {
    ...(row.payment_option !== null ? { paymentOption: row.payment_option } : {}),
    ...(row.card_payment_info !== null ? { cardPaymentInfo: row.card_payment_info } : {}),
  };
  return Object.keys(legacy).length
    ? { source: 'notification' as const, receivedAt: null, fields: legacy }
    : null;
}

export async function getPayment(db: Db, paymentId: string) {
  const row = await findPayment(db, paymentId);
  if (!row) throw notFound(`Payment ${paymentId}`);
  return { ...paymentView(row), unverified: await unverifiedOf(db, row) };
}

export async function listPayments(db: Db, filter: ListFilter & { requestType?: string }) {
  const page = await listPaymentRows(db, filter);
  return { rows: page.rows.map(paymentView), nextOffset: page.nextOffset };
}

export function refundView(row: RefundRow) {
  return {
    refundId: row.refund_id,
    paymentId: row.payment_id,
    seq: row.seq,
    orderId: row.order_id,
    amount: Number(row.amount),
    description: row.description,
    status: row.status,
    items: row.items,
    resultCode: row.result_code,
    message: row.result_message,
    transId: row.trans_id,
    createdBy: row.created_by,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    workflowId: row.workflow_id,
  };
}

export async function listRefunds(db: Db, paymentId: string) {
  if (!(await findPayment(db, paymentId))) throw notFound(`Payment ${paymentId}`);
  const rows = await listRefundsOf(db, paymentId);
  return rows.map(refundView);
}

/**
 * Refunds part or all of a payment. The amount is reserved against the payment before the gateway is
 * called (row lock: two concurrent refunds cannot both pass); the refund then runs as its own workflow.
 */
export async function refundPayment(
  deps: PaymentDeps,
  input: {
    paymentId: string;
    amount: number;
    description: string;
    items: Array<{ itemId: string; amount: number }>;
    principal: Principal;
    create?: CreateRequest;
  },
) {
  const { db, temporal, settings } = deps;
  // Read once: the state the refund starts in and the requirement recorded with it follow one policy.
  const approvalPolicy = await deps.approvalPolicies.policyAt(new Date());
  const reserved = await reservingOrderIds(() =>
    reserveRefund(db, {
      // Any retry of this request (same Idempotency-Key) finds the refund it reserved, never a second one.
      ...(input.create && { requestKey: input.create.requestKey }),
      paymentId: input.paymentId,
      amount: input.amount,
      description: input.description,
      items: input.items,
      createdByKey: input.principal.keyId,
      createdBy: input.principal.name,
      minimumFor: refundMinimumFor,
      workflowIdOf: refundWorkflowId,
      status:
        requirementFor(approvalPolicy, 'refund', input.amount).approvers > 0
          ? 'awaiting_approval'
          : 'created',
      // The approval request (within the day's caps) with the reservation, or neither.
      alongside: (trx, refund) =>
        requestApprovalIn(trx, approvalPolicy, {
          kind: 'refund',
          objectId: refund.refund_id,
          amount: input.amount,
          receiverLabel: `payer of payment ${input.paymentId}`,
          description: input.description,
          principal: input.principal,
        }),
    }),
  );
  if (!reserved.ok) {
    switch (reserved.reason) {
      case 'not_found':
        throw notFound(`Payment ${input.paymentId}`);
      case 'not_refundable':
        throw conflict(
          'payment_not_refundable',
          `Payment ${input.paymentId} is ${reserved.status}; only a succeeded (captured) payment can be refunded.`,
        );
      case 'settled':
        throw conflict(
          'terminal_payment_settled',
          `Payment ${input.paymentId} is a terminal card payment settled at ${reserved.settledAt.toISOString()}; ` +
            'settled card transactions are refunded outside the API (document 1).',
        );
      case 'below_minimum':
        throw new ApiError(
          'refund_below_minimum',
          `A refund of this payment's method must be at least ${reserved.minimum} VND.`,
          { problems: [{ field: 'body.amount', rule: 'min', message: `at least ${reserved.minimum} VND` }] },
        );
      case 'exceeds_remaining':
        throw conflict(
          'refund_exceeds_remaining',
          `A refund of ${input.amount} VND exceeds the ${reserved.remaining} VND still refundable on payment ${input.paymentId}.`,
        );
    }
  }
  const refund = reserved.refund;
  const workflowInput: RefundInput = {
    refundId: refund.refund_id,
    timing: settings.refund,
    approval: await approvalRequestOf(db, 'refund', refund.refund_id),
  };
  const startOptions: WorkflowStartOptions<StartableWorkflows['refund']> = {
    taskQueue: settings.taskQueue,
    workflowId: refund.workflow_id,
    args: [workflowInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    staticSummary: `Refund ${refund.refund_id}: ${input.amount} VND of payment ${input.paymentId}`,
    typedSearchAttributes: [{ key: payrunOrderId, value: refund.order_id }],
  };
  // Only a refund about to be sent has an answer to wait for; one held for approvers answers at once.
  if (refund.status !== 'created' || settings.answerBy === 'polling')
    await startOnce(() => startWorkflow(temporal, 'refund', startOptions));
  else
    await startAwaitingAnswer(
      temporal,
      'refund',
      startOptions,
      refundAnsweredUpdate,
      Date.now() + settings.answerWaitMs,
    );
  const row =
    settings.answerBy === 'polling'
      ? await waitWhile(
          () => findRefund(db, refund.refund_id),
          (found) => found?.status === 'created',
          settings.answerWaitMs,
        )
      : await findRefund(db, refund.refund_id);
  return refundView(row!);
}

export async function settleTerminal(
  deps: PaymentDeps,
  input: { storeId: string; serialNumber: string; principal: Principal },
) {
  const { db, temporal, settings } = deps;
  const settlementId = randomUUID();
  await insertTerminalSettlement(db, {
    settlement_id: settlementId,
    store_id: input.storeId,
    serial_number: input.serialNumber,
    request_id: `settle-${settlementId}`,
    created_by_key: input.principal.keyId,
    created_by: input.principal.name,
  });
  const result: TerminalSettlementResult = await executeWorkflow(temporal, 'terminalSettlement', {
    taskQueue: settings.taskQueue,
    workflowId: terminalSettlementWorkflowId(settlementId),
    args: [{ settlementId }],
    staticSummary: `Settle terminal ${input.serialNumber} of store ${input.storeId}`,
  });
  if (result.status !== 'settled') {
    throw new ApiError(
      'settlement_refused',
      `The gateway refused the settlement (${result.resultCode}): ${result.message}`,
    );
  }
  return { settlementId, storeId: input.storeId, serialNumber: input.serialNumber, ...result };
}

export type { RefundItem };
