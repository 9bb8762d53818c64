/**
 * Price-change stories: preview who a change reaches and what each will be charged on its cycle, then
 * schedule it (one row per subscription, each handed to its workflow, which alone decides what a cycle
 * charges and never above what the customer authorized).
 */
import { randomBytes } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import {
  firstCycleDateFrom,
  planPriceChangeWorkflowId,
  priceChangeUpdate,
  reachedFrom,
  type IfNotReauthorized,
} from '../../contracts/subscriptions';
import {
  getPlanPriceChange,
  progressOf,
  recordPlanPriceChange,
  type PlanPriceChangeRow,
} from '../../db/subscriptions/plan-price-changes';
import {
  insertSubscriptionPriceChange,
  noticesOf,
  priceableSubscriptions,
  priceChangesOf,
  updateSubscriptionPriceChange,
} from '../../db/subscriptions/price-changes';
import { getSubscription, type SubscriptionRow } from '../../db/subscriptions/subscriptions';
import type { Principal } from '../auth/roles';
import { conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { maskId } from '../http/masking';
import { certainlyNotStarted, startOnce, workflowNotStarted } from '../http/resumable';
import { startWorkflow } from '../workflow-starts';
import { requirePlan } from './plans';
import type { SubscriptionDeps } from './subscriptions';
import { workflowOfSubscription } from './subscription-desk';

export interface PriceChangeRequest {
  newAmount: number;
  /** The billing day from which the new amount applies: each subscription's first cycle on or after it. */
  effectiveCycle: string;
  ifNotReauthorized: IfNotReauthorized;
}

type Scope = { planId: string } | { subscriptionId: string };

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** A FIXED subscription is charged exactly the recurringAmount the customer authorized. */
const currentOf = (row: SubscriptionRow) => Number(row.recurring_amount);

/** FIXED, not ended, and still billed on or after the day (a subscription expiring first is not reached). */
async function affected(deps: SubscriptionDeps, scope: Scope, day: string): Promise<SubscriptionRow[]> {
  if ('planId' in scope) await requirePlan(deps, scope.planId);
  else if (!(await getSubscription(deps.db, scope.subscriptionId)))
    throw notFound(`Subscription ${scope.subscriptionId}`);
  const rows = await priceableSubscriptions(
    deps.db,
    'planId' in scope ? { plan_id: scope.planId } : { subscription_id: scope.subscriptionId },
  );
  return rows.filter((row) => reachedFrom(row, day));
}

function previewOf(row: SubscriptionRow, request: PriceChangeRequest) {
  const authorizedAmount = Number(row.recurring_amount);
  // The gateway charges a FIXED subscription exactly its recurringAmount: any other amount needs the customer.
  const needsReauthorization = request.newAmount !== authorizedAmount;
  return {
    subscriptionId: row.subscription_id,
    customer: maskId(row.partner_client_id),
    status: row.status,
    currentAmount: currentOf(row),
    authorizedAmount,
    newAmount: request.newAmount,
    needsReauthorization,
    /** The subscription's first cycle on or after effectiveCycle. */
    cycleDate: firstCycleDateFrom(row, request.effectiveCycle),
    /** What that cycle charges once the customer authorized the new amount. */
    chargeIfReauthorized: request.newAmount,
    /** What it charges when the authorization has not come by then (0: flagged, not charged). */
    chargeIfNotReauthorized: !needsReauthorization
      ? request.newAmount
      : request.ifNotReauthorized === 'flag'
        ? 0
        : currentOf(row),
  };
}

export async function previewPriceChange(deps: SubscriptionDeps, scope: Scope, request: PriceChangeRequest) {
  const rows = await affected(deps, scope, request.effectiveCycle);
  return {
    ...scope,
    ...request,
    subscriptions: rows.map((row) => previewOf(row, request)),
  };
}

/**
 * One row per subscription first (the record exists before its workflow hears of it), then the
 * workflow's update; a workflow that refuses (ended meanwhile, expiring first) leaves its row `refused`
 * with the reason. Only the workflow decides what a cycle charges, so a half-finished fan-out never
 * charges anyone more: a subscription not reached keeps its current amount.
 */
export async function schedulePriceChange(
  deps: SubscriptionDeps,
  scope: { subscriptionId: string },
  request: PriceChangeRequest,
  principal: Principal,
) {
  const rows = await affected(deps, scope, request.effectiveCycle);
  const results = [];
  for (const row of rows) {
    const preview = previewOf(row, request);
    const priceChangeId = newId('pc');
    await insertSubscriptionPriceChange(deps.db, {
      price_change_id: priceChangeId,
      subscription_id: row.subscription_id,
      plan_price_change_id: null,
      old_amount: preview.currentAmount,
      new_amount: request.newAmount,
      authorized_amount: preview.authorizedAmount,
      effective_date: request.effectiveCycle,
      if_not_reauthorized: request.ifNotReauthorized,
      needs_reauthorization: preview.needsReauthorization,
      status: 'scheduled',
      created_by: principal.name,
    });
    try {
      const handle = await workflowOfSubscription(deps.temporal, deps.db, row);
      const accepted = await handle.executeUpdate(priceChangeUpdate, {
        args: [
          {
            priceChangeId,
            newAmount: request.newAmount,
            effectiveDate: request.effectiveCycle,
            ifNotReauthorized: request.ifNotReauthorized,
          },
        ],
      });
      results.push({
        ...preview,
        priceChangeId,
        accepted: true,
        reauthorizationPayUrl: accepted.payUrl ?? null,
      });
    } catch (error) {
      const reason = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
      await updateSubscriptionPriceChange(deps.db, priceChangeId, {
        status: 'refused',
        status_reason: reason,
      });
      results.push({ ...preview, priceChangeId, accepted: false, refusedBecause: reason });
    }
  }
  return { ...scope, ...request, subscriptions: results };
}

export const planPriceChangeView = async (deps: SubscriptionDeps, row: PlanPriceChangeRow) => ({
  planPriceChangeId: row.plan_price_change_id,
  planId: row.plan_id,
  newAmount: Number(row.new_amount),
  effectiveCycle: row.effective_date,
  ifNotReauthorized: row.if_not_reauthorized,
  /** `applying` until every subscription it reaches took it or refused it; then `done`. */
  status: row.status,
  ...(await progressOf(deps.db, row)),
  workflowId: planPriceChangeWorkflowId(row.plan_price_change_id),
  createdBy: row.created_by,
  createdAt: row.created_at,
  completedAt: row.completed_at,
});

/**
 * A plan's change, recorded and handed to its workflow in one idempotent step: the change's id comes
 * from the request's Idempotency-Key and the workflow's id from the change's, so a retried request finds
 * the change it recorded and starts its workflow at most once (REJECT_DUPLICATE). The workflow hands the
 * change to each subscription through that subscription's own workflow, which alone decides what a
 * cycle charges, never above what its customer authorized: a crash midway leaves the rest to the
 * workflow, never a half-changed plan.
 */
export async function startPlanPriceChange(
  deps: SubscriptionDeps,
  planId: string,
  request: PriceChangeRequest,
  principal: Principal,
  create: CreateRequest,
) {
  const reached = await affected(deps, { planId }, request.effectiveCycle);
  const planPriceChangeId = `ppc_${create.requestKey.slice(0, 20)}`;
  const recorded = await recordPlanPriceChange(deps.db, {
    plan_price_change_id: planPriceChangeId,
    plan_id: planId,
    new_amount: request.newAmount,
    effective_date: request.effectiveCycle,
    if_not_reauthorized: request.ifNotReauthorized,
    created_by: principal.name,
    total: reached.length,
  });
  if (recorded === 'running')
    throw conflict(
      'plan_price_change_running',
      `Another price change of plan ${planId} is still being applied; send this one once it is done.`,
    );
  const workflowId = planPriceChangeWorkflowId(planPriceChangeId);
  try {
    await startOnce(() =>
      startWorkflow(deps.temporal, 'planPriceChange', {
        taskQueue: deps.settings.taskQueue,
        workflowId,
        args: [{ planPriceChangeId }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Plan ${planId}: ${request.newAmount} VND from ${request.effectiveCycle}`,
      }),
    );
  } catch (error) {
    // Recorded, not started: the same request with the same Idempotency-Key starts it.
    if (await certainlyNotStarted(deps.temporal, workflowId)) throw workflowNotStarted('The price change');
    throw error;
  }
  return planPriceChangeView(deps, (await getPlanPriceChange(deps.db, planPriceChangeId))!);
}

export async function planPriceChangeOf(deps: SubscriptionDeps, planId: string, planPriceChangeId: string) {
  await requirePlan(deps, planId);
  const row = await getPlanPriceChange(deps.db, planPriceChangeId);
  if (!row || row.plan_id !== planId) throw notFound(`Price change ${planPriceChangeId} of plan ${planId}`);
  return planPriceChangeView(deps, row);
}

export async function priceChangesView(deps: SubscriptionDeps, subscriptionId: string) {
  if (!(await getSubscription(deps.db, subscriptionId))) throw notFound(`Subscription ${subscriptionId}`);
  const [changes, notices] = await Promise.all([
    priceChangesOf(deps.db, subscriptionId),
    noticesOf(deps.db, subscriptionId),
  ]);
  return {
    subscriptionId,
    priceChanges: changes.map((row) => ({
      priceChangeId: row.price_change_id,
      planPriceChangeId: row.plan_price_change_id,
      oldAmount: Number(row.old_amount),
      newAmount: Number(row.new_amount),
      authorizedAmount: Number(row.authorized_amount),
      effectiveCycle: row.effective_date,
      ifNotReauthorized: row.if_not_reauthorized,
      needsReauthorization: row.needs_reauthorization,
      status: row.status,
      statusReason: row.status_reason,
      reauthorizationPayUrl: row.reauthorization_pay_url,
      createdBy: row.created_by,
      createdAt: row.created_at,
    })),
    notices: notices.map((row) => ({ kind: row.kind, data: row.data, createdAt: row.created_at })),
  };
}
