/** Saved methods and saved-method payments, as stories: bind, list, delete, pay with a token, confirm with a code. */
import { randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowIdReusePolicy } from '@temporalio/common';
import { inRange, outcomeOf, rangeText, TOKEN_PAY_AMOUNT_RANGES } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import type { ListFilter } from '../../db/shared/list-filter';
import type { CustomerKeyOf } from '../../platform/customer-key';
import {
  countWalletBindings,
  findBindingByRequestKey,
  insertBinding,
  insertSavedMethodPayment,
  listSavedMethodPaymentsPage,
  listSavedMethodsOf,
  recordSavedMethodStatus,
  bindingView,
  getBinding,
  getSavedMethod,
  getSavedMethodPayment,
  otpAttemptsOf,
  recentOtpAttempts,
  savedMethodView,
  savedMethodPaymentView,
  type BindingRow,
  type SavedMethodRow,
  type SavedMethodPaymentRow,
} from '../../db/saved-methods/saved-methods';
import {
  bindingLinksUpdate,
  savedMethodBindingWorkflowId,
  savedMethodDeletionWorkflowId,
  type BindingInput,
  type BindingTiming,
  type SavedMethodKind,
  checkNewCode,
  OTP_FAILURE,
  OTP_REFUSAL_TYPE,
  refusalMessage,
  submitOtpUpdate,
  savedMethodPaymentStartedUpdate,
  savedMethodPaymentWorkflowId,
  type OtpFailureType,
  type SavedMethodPaymentInput,
  type SavedMethodPaymentTiming,
} from '../../contracts/saved-methods';

import { failureTypeOf, payrunCustomer, payrunOrderId } from '../../contracts/shared';
import type { Principal } from '../auth/roles';
import { ApiError, conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { createOrResume, startOnce } from '../http/resumable';
import { startWorkflow } from '../workflow-starts';
import { reservingOrderIds, withFreshId } from '../order-ids';

export interface SavedMethodSettings {
  taskQueue: string;
  binding: BindingTiming;
  payment: SavedMethodPaymentTiming;
}

export interface SavedMethodDeps {
  db: Db;
  temporal: Client;
  settings: SavedMethodSettings;
  /** The PayrunCustomer search attribute's value: a keyed hash, never the partnerClientId. */
  customerKeyOf: CustomerKeyOf;
  /** The clock the daily OTP limits are counted with (ApiDependencies.now). */
  now: () => number;
}

export const defaultSavedMethodSettings = (
  taskQueue: string,
  gatewayAttemptTimeout: string,
): SavedMethodSettings => ({
  taskQueue,
  binding: { gatewayAttemptTimeout, callbackWait: '2 minutes', linkValidity: '15 minutes' },
  payment: { gatewayAttemptTimeout, resultWait: '2 minutes', giveUpAfter: '1 day' },
});

const REQUEST_TYPE: Record<SavedMethodKind, string> = {
  card: 'payWithCC',
  domestic: 'payWithATM',
  wallet: 'linkWallet',
};

/** A refusal of a code answers its failure type, a catalogue code; anything else the gateway's refusal. */
const otpErrorOf = (type: string | undefined): OtpFailureType =>
  Object.values(OTP_FAILURE).find((known) => known === type) ?? OTP_FAILURE.failed;

const causeOf = (error: WorkflowUpdateFailedError) =>
  error.cause instanceof ApplicationFailure ? error.cause : undefined;

export async function startBinding(
  deps: SavedMethodDeps,
  input: {
    kind: SavedMethodKind;
    partnerClientId: string;
    amount: number;
    orderInfo: string;
    userInfo: Record<string, string>;
    redirectUrl?: string;
    principal: Principal;
    create?: CreateRequest;
  },
) {
  const { db, temporal } = deps;
  // A retry of an interrupted request finds the binding its first attempt recorded and finishes it.
  const earlier = input.create ? await findBindingByRequestKey(db, input.create.requestKey) : undefined;
  // The record and the gateway orderIds it will send (its id, and `-del` when the method is deleted), in one
  // transaction; an id drawn whose orderIds another object holds is drawn again.
  const bindingId = earlier
    ? earlier.binding_id
    : await reservingOrderIds(() =>
        withFreshId(() => `bnd-${randomBytes(8).toString('hex')}`, createBindingRecord),
      );
  const workflowId = savedMethodBindingWorkflowId(bindingId);
  const workflowInput: BindingInput = { bindingId, timing: deps.settings.binding };
  await startOnce(() =>
    startWorkflow(temporal, 'savedMethodBinding', {
      taskQueue: deps.settings.taskQueue,
      workflowId,
      args: [workflowInput],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Binding ${bindingId}: ${REQUEST_TYPE[input.kind]} ${input.amount} VND`,
      typedSearchAttributes: [
        { key: payrunOrderId, value: bindingId },
        { key: payrunCustomer, value: deps.customerKeyOf(input.partnerClientId) },
      ],
    }),
  );
  const handle = temporal.workflow.getHandle(workflowId);
  try {
    await handle.executeUpdate(bindingLinksUpdate);
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = causeOf(error);
      throw new ApiError('binding_refused', cause?.message ?? error.message);
    }
    // A resumed request may find the binding already finished: its record is the answer.
    if (!earlier) throw error;
  }
  return bindingView((await getBinding(db, bindingId)) as BindingRow);

  /** The binding's record: each wallet link of a user gets the next n<NNN>_ prefix. */
  async function createBindingRecord(bindingId: string) {
    let gatewayClientId = input.partnerClientId;
    if (input.kind === 'wallet') {
      // Rule 1 (multi): each wallet link of a user is n<NNN>_<partnerClientId>, from 000.
      const earlierLinks = await countWalletBindings(db, input.partnerClientId);
      gatewayClientId = `n${String(earlierLinks).padStart(3, '0')}_${input.partnerClientId}`;
    }
    await insertBinding(db, {
      binding_id: bindingId,
      order_id: bindingId,
      workflow_id: savedMethodBindingWorkflowId(bindingId),
      kind: input.kind,
      request_type: REQUEST_TYPE[input.kind],
      partner_client_id: input.partnerClientId,
      gateway_client_id: gatewayClientId,
      amount: input.amount,
      order_info: input.orderInfo,
      user_info: input.userInfo,
      redirect_url: input.redirectUrl ?? null,
      created_by_key: input.principal.keyId,
      created_by: input.principal.name,
      request_key: input.create?.requestKey ?? null,
    });
  }
}

export async function bindingDetails(db: Db, bindingId: string) {
  const row = await getBinding(db, bindingId);
  if (!row) throw notFound(`Binding ${bindingId}`);
  return bindingView(row);
}

export async function listMethods(db: Db, partnerClientId: string, includeInactive: boolean) {
  return (await listSavedMethodsOf(db, partnerClientId, { includeInactive })).map(savedMethodView);
}

export async function deleteMethod(deps: SavedMethodDeps, methodId: string) {
  const { db, temporal } = deps;
  const method = await getSavedMethod(db, methodId);
  if (!method) throw notFound(`Saved method ${methodId}`);
  if (method.status === 'deleted' || method.status === 'revoked') return savedMethodView(method);
  // From here no payment may use it: payments need an active method.
  await recordSavedMethodStatus(db, methodId, 'deleting');
  const handle = await startWorkflow(temporal, 'savedMethodDeletion', {
    taskQueue: deps.settings.taskQueue,
    workflowId: savedMethodDeletionWorkflowId(methodId),
    args: [{ methodId, gatewayAttemptTimeout: deps.settings.binding.gatewayAttemptTimeout }],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    staticSummary: `Delete saved method ${methodId}`,
  });
  try {
    await handle.result();
  } catch (error) {
    throw new ApiError(
      'delete_refused',
      (error as Error & { cause?: Error }).cause?.message ?? String(error),
    );
  }
  return savedMethodView((await getSavedMethod(db, methodId)) as SavedMethodRow);
}

export async function createSavedMethodPayment(
  deps: SavedMethodDeps,
  input: {
    paymentId: string;
    methodId: string;
    amount: number;
    description: string;
    principal: Principal;
    create?: CreateRequest;
  },
) {
  const { db, temporal } = deps;
  const method = await getSavedMethod(db, input.methodId);
  if (!method) throw notFound(`Saved method ${input.methodId}`);
  if (method.status !== 'active') {
    throw conflict(
      `method_${method.status as Exclude<typeof method.status, 'active'>}`,
      `Saved method ${input.methodId} is ${method.status}; it is never used again.`,
    );
  }
  const range = TOKEN_PAY_AMOUNT_RANGES[method.kind];
  if (!inRange(input.amount, range)) {
    const message = `a ${method.kind} token pays ${rangeText(range)} VND`;
    throw new ApiError('invalid_request', `The request is invalid: body.amount: ${message}`, {
      problems: [{ field: 'body.amount', rule: 'range', message }],
    });
  }
  if (method.kind === 'wallet') {
    const now = deps.now();
    const refusal = checkNewCode(await recentOtpAttempts(db, method.partner_client_id, now), now);
    if (refusal) {
      throw new ApiError(OTP_REFUSAL_TYPE[refusal.reason], refusalMessage(refusal));
    }
  }
  const workflowId = savedMethodPaymentWorkflowId(input.paymentId);
  const workflowInput: SavedMethodPaymentInput = {
    paymentId: input.paymentId,
    partnerClientId: method.partner_client_id,
    timing: deps.settings.payment,
  };
  await createOrResume({
    insert: () =>
      insertSavedMethodPayment(db, {
        payment_id: input.paymentId,
        order_id: input.paymentId,
        workflow_id: workflowId,
        method_id: method.method_id,
        partner_client_id: method.partner_client_id,
        gateway_client_id: method.gateway_client_id,
        kind: method.kind,
        amount: input.amount,
        description: input.description,
        state: 'starting',
        created_by_key: input.principal.keyId,
        created_by: input.principal.name,
      }),
    createdByKeyOf: async () => (await getSavedMethodPayment(db, input.paymentId))?.created_by_key,
    request: input,
    exists: () =>
      conflict(
        'token_payment_exists',
        `Saved-method payment ${input.paymentId} already exists; a payment id is paid once.`,
      ),
    start: () =>
      startWorkflow(temporal, 'savedMethodPayment', {
        taskQueue: deps.settings.taskQueue,
        workflowId,
        args: [workflowInput],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Saved-method payment ${input.paymentId}: ${input.amount} VND (${method.kind})`,
        typedSearchAttributes: [
          { key: payrunOrderId, value: input.paymentId },
          { key: payrunCustomer, value: deps.customerKeyOf(method.partner_client_id) },
        ],
      }),
  });
  const handle = temporal.workflow.getHandle(workflowId);
  let held = false;
  try {
    held = (await handle.executeUpdate(savedMethodPaymentStartedUpdate)).held === true;
  } catch (error) {
    // A resumed request may find the payment already settled: its record is the answer.
    if (!input.create?.resumed) throw error;
  }
  const details = await savedMethodPaymentDetails(db, input.paymentId);
  // Held: nothing was sent yet; GET /v1/holds counts it, and it is charged once the hold is released.
  return held ? { ...details, held } : details;
}

export async function savedMethodPaymentDetails(db: Db, paymentId: string) {
  const row = await getSavedMethodPayment(db, paymentId);
  if (!row) throw notFound(`Saved-method payment ${paymentId}`);
  return { ...savedMethodPaymentView(row), otpAttempts: await otpAttemptsOf(db, paymentId) };
}

export async function listSavedMethodPayments(db: Db, filter: ListFilter) {
  const page = await listSavedMethodPaymentsPage(db, filter);
  return { rows: page.rows.map(savedMethodPaymentView), nextOffset: page.nextOffset };
}

/** Why a payment that no longer waits refuses a code: expired (410), locked (423), or simply settled (409). */
function notAwaitingCode(row: SavedMethodPaymentRow): ApiError {
  const outcome = row.result_code === null ? undefined : outcomeOf(row.result_code);
  if (row.state === 'failed' && outcome === 'otp_expired') {
    return new ApiError(OTP_FAILURE.expired, row.message ?? 'The code expired.');
  }
  if (row.state === 'failed' && outcome === 'otp_locked') {
    return new ApiError(OTP_FAILURE.locked, row.message ?? 'Too many wrong codes today.');
  }
  return conflict(
    'otp_not_awaited',
    `Saved-method payment ${row.payment_id} is ${row.state}; it waits for no code.`,
  );
}

/** The code goes to the workflow's submitOtp update; the answer is the verification's verdict. */
export async function submitOtp(deps: SavedMethodDeps, paymentId: string, code: string) {
  const row = await getSavedMethodPayment(deps.db, paymentId);
  if (!row) throw notFound(`Saved-method payment ${paymentId}`);
  if (row.state !== 'awaiting_otp') throw notAwaitingCode(row);
  try {
    const verdict = await deps.temporal.workflow.getHandle(row.workflow_id).executeUpdate(submitOtpUpdate, {
      args: [{ code }],
    });
    return { verdict: verdict.state, payment: await savedMethodPaymentDetails(deps.db, paymentId) };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = causeOf(error);
      throw new ApiError(otpErrorOf(failureTypeOf(cause)), cause?.message ?? error.message);
    }
    // The workflow finished meanwhile (the code expired, or another request settled it).
    const now = await getSavedMethodPayment(deps.db, paymentId);
    if (now && now.state !== 'awaiting_otp') throw notAwaitingCode(now);
    throw error;
  }
}
