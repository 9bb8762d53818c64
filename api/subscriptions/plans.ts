/** Plan stories: create, list, read, archive, and subscribe a customer to a plan. */
import {
  addDays,
  DEFAULT_DUNNING_SCHEDULE_ID,
  dayOfGmt7,
  periodsAfter,
  type Frequency,
  type SubscriptionType,
} from '../../contracts/subscriptions';
import {
  archivePlan,
  getPlan,
  insertPlan,
  listPlans,
  setPlanDunningSchedule,
  type PlanRow,
} from '../../db/subscriptions/price-changes';
import type { Principal } from '../auth/roles';
import { ApiError, conflict, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { createSubscription, type SubscriptionDeps } from './subscriptions';
import { dunningScheduleSent, knownDunningSchedule } from './dunning';

export interface NewPlanRequest {
  code: string;
  name: { en: string; vi: string };
  amount: number;
  currency: 'VND';
  frequency: Frequency;
  type: SubscriptionType;
  trialDays?: number;
  /** The schedule its new subscriptions follow; absent or `default`: the default one. */
  dunningScheduleId?: string;
}

export const planView = (row: PlanRow) => ({
  planId: row.plan_id,
  code: row.plan_id,
  name: { en: row.name_en, vi: row.name_vi },
  amount: Number(row.amount),
  currency: row.currency,
  frequency: row.frequency,
  type: row.type,
  trialDays: row.trial_days,
  dunningScheduleId: row.dunning_schedule_id ?? DEFAULT_DUNNING_SCHEDULE_ID,
  status: row.status,
  createdBy: row.created_by,
  createdAt: row.created_at,
  archivedAt: row.archived_at,
});

export async function createPlan(deps: SubscriptionDeps, input: NewPlanRequest & { principal: Principal }) {
  const schedule = await knownDunningSchedule(
    deps.db,
    input.dunningScheduleId ?? DEFAULT_DUNNING_SCHEDULE_ID,
  );
  const inserted = await insertPlan(deps.db, {
    plan_id: input.code,
    name_en: input.name.en,
    name_vi: input.name.vi,
    amount: input.amount,
    currency: input.currency,
    frequency: input.frequency,
    type: input.type,
    trial_days: input.trialDays ?? null,
    dunning_schedule_id: schedule?.dunningScheduleId ?? null,
    created_by: input.principal.name,
  });
  if (!inserted) throw conflict('plan_exists', `A plan with code ${input.code} exists already.`);
  return planView((await getPlan(deps.db, input.code))!);
}

export async function plansView(deps: SubscriptionDeps) {
  return { plans: (await listPlans(deps.db)).map(planView) };
}

export async function requirePlan(deps: SubscriptionDeps, planId: string): Promise<PlanRow> {
  const plan = await getPlan(deps.db, planId);
  if (!plan) throw notFound(`Plan ${planId}`);
  return plan;
}

export async function archive(deps: SubscriptionDeps, planId: string) {
  await requirePlan(deps, planId);
  if (!(await archivePlan(deps.db, planId)))
    throw conflict('plan_archived', `Plan ${planId} is archived already.`);
  return planView((await getPlan(deps.db, planId))!);
}

/**
 * Only subscriptions created afterwards take the new schedule; the plan's existing subscriptions keep the
 * one they follow (PUT /v1/subscriptions/:id/dunning-schedule moves one), so no running dunning changes
 * under a customer without an operator choosing it for that subscription.
 */
export async function assignPlanDunningSchedule(deps: SubscriptionDeps, planId: string, scheduleId: string) {
  await requirePlan(deps, planId);
  const schedule = await knownDunningSchedule(deps.db, scheduleId);
  await setPlanDunningSchedule(deps.db, planId, schedule?.dunningScheduleId ?? null);
  return planView((await getPlan(deps.db, planId))!);
}

export interface PlanSubscriptionRequest {
  subscriptionId: string;
  partnerClientId: string;
  orderInfo: string;
  subsOwner?: string;
  partnerSubsId?: string;
  expiryDate?: string;
}

/**
 * The plan gives the amount, frequency and type; the customer's authorization carries the plan's amount
 * as recurringAmount. A trial (or a VARIABLE plan, whose first amount is not known yet) authorizes with
 * amount 0 and bills from the first day after it; a FIXED plan without a trial charges its amount now.
 */
export async function subscribeToPlan(
  deps: SubscriptionDeps,
  planId: string,
  input: PlanSubscriptionRequest & { principal: Principal; create?: CreateRequest },
  nowMs: number,
) {
  const plan = await requirePlan(deps, planId);
  const schedule = plan.dunning_schedule_id
    ? dunningScheduleSent(await knownDunningSchedule(deps.db, plan.dunning_schedule_id))
    : null;
  if (plan.status !== 'active')
    throw conflict('plan_archived', `Plan ${planId} is archived; it takes no new subscriptions.`);
  const today = dayOfGmt7(nowMs);
  const amount = Number(plan.amount);
  const firstDate = plan.trial_days
    ? addDays(today, plan.trial_days)
    : plan.type === 'VARIABLE'
      ? periodsAfter(today, plan.frequency, 1)
      : undefined;
  if (input.expiryDate && input.expiryDate <= (firstDate ?? today))
    throw new ApiError('invalid_request', 'The expiry date is before the first charge.', {
      status: 422,
      problems: [
        {
          field: 'body.expiryDate',
          rule: 'after_first_charge',
          message: `must be after ${firstDate ?? today}, the first charge`,
        },
      ],
    });
  return createSubscription(deps, {
    subscriptionId: input.subscriptionId,
    partnerClientId: input.partnerClientId,
    orderInfo: input.orderInfo,
    amount: firstDate ? 0 : amount,
    planId,
    ...(schedule ? { dunningSchedule: schedule } : {}),
    subscriptionInfo: {
      name: plan.name_en,
      ...(input.partnerSubsId ? { partnerSubsId: input.partnerSubsId } : {}),
      ...(input.subsOwner ? { subsOwner: input.subsOwner } : {}),
      type: plan.type,
      recurringAmount: amount,
      frequency: plan.frequency,
      ...(firstDate ? { nextPaymentDate: firstDate } : {}),
      ...(input.expiryDate ? { expiryDate: input.expiryDate } : {}),
    },
    principal: input.principal,
    ...(input.create ? { create: input.create } : {}),
  });
}
