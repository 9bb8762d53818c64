/** Subscription stories: create (answers the customer's links), list, read, manage, report a VARIABLE amount. */
import { isAlreadySubmitted, outcomeOf } from '../../gateway';
import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Db } from '../../db/shared/knex';
import type { ListFilter } from '../../db/shared/list-filter';
import {
  chargesOf,
  getSubscription,
  insertSubscription,
  listSubscriptions,
  type SubscriptionRow,
} from '../../db/subscriptions/subscriptions';
import {
  type Frequency,
  cancelUpdate,
  cycleAmountUpdate,
  dunningScheduleSignal,
  type DunningSchedule,
  FINAL_SUBSCRIPTION_STATUSES,
  pauseUpdate,
  reactivateUpdate,
  subscriptionStartAnsweredUpdate,
  subscriptionWorkflowId,
  type SubscriptionDeskStart,
  type SubscriptionInput,
  type SubscriptionType,
} from '../../contracts/subscriptions';
import { payrunCustomer, payrunOrderId } from '../../contracts/shared';
import type { Principal } from '../auth/roles';
import { ApiError, conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { createOrResume, workflowExists } from '../http/resumable';
import type { SubscriptionSettings } from './settings';
import type { CustomerKeyOf } from '../../platform/customer-key';
import { awaitAnswer, signalWithStartWorkflow, startAwaitingAnswer } from '../workflow-starts';
import { workflowOfSubscription, type SubscriptionDesk } from './subscription-desk';
import { heldBySubscriptionDesk } from '../../db/subscriptions/subscription-desk';

export interface SubscriptionDeps {
  db: Db;
  temporal: Client;
  settings: SubscriptionSettings;
  /** The PayrunCustomer search attribute's value: a keyed hash, never the partnerClientId. */
  customerKeyOf: CustomerKeyOf;
  /** The subscription desk when `settings.desk` is on (api/subscriptions/subscription-desk.ts). */
  desk?: SubscriptionDesk;
}

export interface NewSubscriptionRequest {
  subscriptionId: string;
  /**
   * The dunning schedule it follows from its first failure (a plan's); absent: the default one. Recorded
   * with the row and delivered in the same call that starts the workflow (signalWithStart), so no crash
   * can leave a subscription whose record names a schedule its workflow never heard of.
   */
  dunningSchedule?: DunningSchedule;
  /** The plan it is created from (POST /v1/plans/:planId/subscriptions). */
  planId?: string;
  partnerClientId: string;
  amount: number;
  orderInfo: string;
  subscriptionInfo: {
    name: string;
    partnerSubsId?: string;
    subsOwner?: string;
    type: SubscriptionType;
    recurringAmount: number;
    frequency: Frequency;
    nextPaymentDate?: string;
    expiryDate?: string;
  };
}

export const subscriptionWorkflowInput = (
  settings: SubscriptionSettings,
  input: Pick<NewSubscriptionRequest, 'subscriptionId' | 'amount' | 'subscriptionInfo'>,
): SubscriptionInput => {
  const info = input.subscriptionInfo;
  return {
    subscriptionId: input.subscriptionId,
    type: info.type,
    recurringAmount: info.recurringAmount,
    frequency: info.frequency,
    initialAmount: input.amount,
    ...(info.nextPaymentDate ? { nextPaymentDate: info.nextPaymentDate } : {}),
    ...(info.expiryDate ? { expiryDate: info.expiryDate } : {}),
    timing: settings.timing,
    ...(settings.queuedSteps && { queuedSteps: true as const }),
  };
};

export async function createSubscription(
  deps: SubscriptionDeps,
  input: NewSubscriptionRequest & { principal: Principal; create?: CreateRequest },
) {
  const { db, temporal, settings } = deps;
  const info = input.subscriptionInfo;
  const workflowId = subscriptionWorkflowId(input.subscriptionId);
  const workflowInput = subscriptionWorkflowInput(settings, input);
  // The workflow asks the gateway for the customer's links; the answer carries them once they are recorded.
  const linksWaitMs = settings.linksWaitMs ?? 15_000;
  const deadline = Date.now() + linksWaitMs;
  let answered = false;
  // The desk's answer is waited for from before the insert commits, so no announcement can come before the wait.
  const desk = deps.desk?.answers.listening() ? deps.desk : undefined;
  if (desk) await desk.ensureRunning();
  const wait = desk?.answers.waitFor(input.subscriptionId, linksWaitMs);
  const summary = `Subscription ${input.subscriptionId}: ${info.type} ${info.recurringAmount} VND ${info.frequency}`;
  const deskStart: SubscriptionDeskStart | undefined = desk && {
    taskQueue: settings.taskQueue,
    input: { ...workflowInput, ...(input.dunningSchedule && { dunning: input.dunningSchedule }) },
    summary,
    customerKey: deps.customerKeyOf(input.partnerClientId),
  };
  try {
    await createOrResume({
      insert: () =>
        insertSubscription(db, {
          subscription_id: input.subscriptionId,
          workflow_id: workflowId,
          partner_client_id: input.partnerClientId,
          name: info.name,
          partner_subs_id: info.partnerSubsId ?? null,
          subs_owner: info.subsOwner ?? null,
          type: info.type,
          recurring_amount: info.recurringAmount,
          frequency: info.frequency,
          initial_amount: input.amount,
          ...(input.planId ? { plan_id: input.planId } : {}),
          ...(input.dunningSchedule ? { dunning_schedule_id: input.dunningSchedule.dunningScheduleId } : {}),
          order_info: input.orderInfo,
          requested_next_payment_date: info.nextPaymentDate ?? null,
          expiry_date: info.expiryDate ?? null,
          status: 'authorizing',
          created_by_key: input.principal.keyId,
          created_by: input.principal.name,
          ...(desk && deskStart && { desk_id: desk.deskWorkflowId, desk_start: JSON.stringify(deskStart) }),
        }),
      createdByKeyOf: async () => (await getSubscription(db, input.subscriptionId))?.created_by_key,
      request: input,
      exists: () => conflict('subscription_exists', `Subscription ${input.subscriptionId} already exists.`),
      start: async (adopted) => {
        // On the desk: its chunk makes the start; the call answers from the record once the desk announced it (or
        // at the bound, without the links). A subscription the desk holds never gets a workflow from here.
        const held = adopted
          ? (await getSubscription(db, input.subscriptionId))?.desk_id != null
          : desk !== undefined;
        if (held) {
          await wait?.answered;
          answered = true;
          return;
        }
        const options = {
          taskQueue: settings.taskQueue,
          workflowId,
          args: [workflowInput] as [SubscriptionInput],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          staticSummary: summary,
          typedSearchAttributes: [
            { key: payrunOrderId, value: input.subscriptionId },
            { key: payrunCustomer, value: deps.customerKeyOf(input.partnerClientId) },
          ],
        };
        // A retry that adopts its interrupted attempt's record finds the workflow running, perhaps with a
        // schedule an operator chose since (PUT …/dunning-schedule): signalling the plan's again would undo
        // that choice. Only a workflow that never started gets the schedule, in the call that starts it.
        if (adopted && input.dunningSchedule && (await workflowExists(temporal, workflowId))) {
          answered = await awaitAnswer(temporal, workflowId, subscriptionStartAnsweredUpdate, deadline);
          return;
        }
        // A signal-with-start cannot carry an update: the wait for the answer is a call of its own.
        if (input.dunningSchedule) {
          await signalWithStartWorkflow(temporal, 'subscription', {
            ...options,
            signal: dunningScheduleSignal,
            signalArgs: [input.dunningSchedule],
          });
          answered = await awaitAnswer(temporal, workflowId, subscriptionStartAnsweredUpdate, deadline);
          return;
        }
        answered = await startAwaitingAnswer(
          temporal,
          'subscription',
          options,
          subscriptionStartAnsweredUpdate,
          deadline,
        );
      },
    });
  } finally {
    wait?.cancel();
  }
  // The workflow asked the gateway for the customer's links and said when they were recorded: one read.
  // Without its word (late, or a worker without the update mid-deploy) the record is read until the
  // deadline, as before the update.
  for (;;) {
    const row = await getSubscription(db, input.subscriptionId);
    if (row && (answered || row.start_result_code !== null || Date.now() > deadline)) {
      // 40/41: the gateway holds the order, its first answer (with the customer's link) lost: not a refusal;
      // the record says why there is no link.
      const started = row.start_result_code === null ? undefined : outcomeOf(row.start_result_code);
      if (started !== undefined && started !== 'succeeded' && !isAlreadySubmitted(started))
        throw new ApiError(
          'gateway_refused',
          `The gateway refused the subscription: ${row.start_result_code} ${row.start_message ?? ''}`.trim(),
        );
      return subscriptionView(db, input.subscriptionId, row);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What the next charge takes: FIXED, its recurringAmount; VARIABLE, the amount reported for the next
 * cycle, or null when none is (the cycle will be skipped). Null too once billing has ended.
 */
function nextChargeAmount(row: SubscriptionRow): number | null {
  if (FINAL_SUBSCRIPTION_STATUSES.includes(row.status)) return null;
  if (row.type === 'FIXED') return row.price_flag ? null : Number(row.recurring_amount);
  return row.reported_amounts[String(row.next_cycle ?? 1)] ?? null;
}

/** A subscription as every list shows it (GET /v1/subscriptions, GET /v1/plans/:planId/subscriptions). */
export function summary(row: SubscriptionRow) {
  return {
    subscriptionId: row.subscription_id,
    status: row.status,
    /** Why it is paused, stopped or waiting (null while billing normally). */
    statusReason: row.status_reason,
    name: row.name,
    partnerSubsId: row.partner_subs_id,
    subsOwner: row.subs_owner,
    partnerClientId: row.partner_client_id,
    type: row.type,
    recurringAmount: Number(row.recurring_amount),
    frequency: row.frequency,
    planId: row.plan_id,
    /** `price_change_unauthorized` while an unauthorized price rise keeps it from being charged. */
    priceFlag: row.price_flag,
    initialAmount: Number(row.initial_amount),
    anchorDate: row.anchor_date,
    nextCycle: row.next_cycle,
    nextPaymentDate: row.next_payment_date ?? row.requested_next_payment_date,
    nextChargeAmount: nextChargeAmount(row),
    expiryDate: row.expiry_date,
    failures: row.failures,
    userAlias: row.user_alias,
    payUrl: row.pay_url,
    deeplink: row.deeplink,
    qrCodeUrl: row.qr_code_url,
    reactivationPayUrl: row.status === 'reactivating' ? row.reactivation_pay_url : null,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // Where to look in the Temporal UI: the subscription desk while it holds the subscription (no workflow yet).
    workflowId: heldBySubscriptionDesk(row) ? row.desk_id : row.workflow_id,
    // The desk's chunk that made its start (SUBSCRIPTION_DESK): its result in the desk's history names it.
    deskChunk: row.desk_chunk ?? null,
  };
}

/**
 * Who sent a charge: the day's billing run (its row names the run, `billing-run/<task queue>/<day>`, which is the run's
 * Temporal workflow id, and the chunk) or the subscription's own workflow (nulls). Issue 35: every charge
 * findable from its subscription.
 */
function chargedBy(charge: { billing_run_id: string | null; billing_chunk: number | null }) {
  const runId = charge.billing_run_id;
  return {
    chargedBy: runId ? ('billing_run' as const) : ('subscription' as const),
    billingRunId: runId ?? null,
    billingChunk: runId ? charge.billing_chunk : null,
    /** The run's workflow id, to open in the Temporal UI (the run's id is its workflow id). */
    billingRunWorkflowId: runId ?? null,
  };
}

/** `read`: the record as the caller has just read it (one read fewer). */
export async function subscriptionView(db: Db, subscriptionId: string, read?: SubscriptionRow) {
  const row = read ?? (await getSubscription(db, subscriptionId));
  if (!row) throw notFound(`Subscription ${subscriptionId}`);
  const charges = await chargesOf(db, subscriptionId);
  return {
    ...summary(row),
    charges: charges.map((charge) => ({
      orderId: charge.order_id,
      cycle: charge.cycle,
      attempt: charge.attempt,
      dueDate: charge.due_date,
      amount: Number(charge.amount),
      status: charge.status,
      resultCode: charge.result_code,
      message: charge.message,
      transId: charge.trans_id,
      nextPaymentDateSent: charge.next_payment_date_sent,
      gatewayNextPaymentDate: charge.gateway_next_payment_date,
      updatedAt: charge.updated_at,
      ...chargedBy(charge),
    })),
  };
}

export async function listSubscriptionSummaries(db: Db, filter: ListFilter) {
  const page = await listSubscriptions(db, filter);
  return { rows: page.rows.map(summary), nextOffset: page.nextOffset };
}

/** An update refused by the workflow's validator (wrong state) answers 409 with its reason. */
async function update<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      throw conflict('subscription_state', (error.cause as Error | undefined)?.message ?? error.message);
    }
    if ((error as Error).name === 'WorkflowNotFoundError')
      throw conflict('subscription_finished', 'This subscription has ended; it cannot be changed.');
    throw error;
  }
}

export async function manageSubscription(
  deps: SubscriptionDeps,
  subscriptionId: string,
  action: 'pause' | 'cancel' | 'reactivate',
  request: { by: string; reason?: string },
) {
  const row = await getSubscription(deps.db, subscriptionId);
  if (!row) throw notFound(`Subscription ${subscriptionId}`);
  const handle = await workflowOfSubscription(deps.temporal, deps.db, row);
  const definition = { pause: pauseUpdate, cancel: cancelUpdate, reactivate: reactivateUpdate }[action];
  const answer = await update(() => handle.executeUpdate(definition, { args: [request] }));
  return { subscriptionId, ...answer };
}

export async function reportCycleAmount(
  deps: SubscriptionDeps,
  subscriptionId: string,
  body: { amount: number; cycle?: number },
) {
  const row = await getSubscription(deps.db, subscriptionId);
  if (!row) throw notFound(`Subscription ${subscriptionId}`);
  const handle = await workflowOfSubscription(deps.temporal, deps.db, row);
  const answer = await update(() => handle.executeUpdate(cycleAmountUpdate, { args: [body] }));
  return { subscriptionId, ...answer };
}
