/**
 * Revenue figures: MRR in VND, subscriptions by status, and per GMT+7 month the new and churned
 * subscriptions, the cycles charged and collected, the cycles that failed and the share of them a later
 * attempt recovered; for every plan ("none": subscriptions set by hand) and in total.
 */
import { monthlyValue, monthsBetween, type SubscriptionStatus } from '../../contracts/subscriptions';
import type { Db } from '../../db/shared/knex';
import { revenueCycles, revenueMovements, revenueSubscriptions } from '../../db/subscriptions/revenue';

const NO_PLAN = 'none';
const ACTIVE: readonly SubscriptionStatus[] = ['active', 'retrying'];
const PAUSED: readonly SubscriptionStatus[] = ['paused', 'reactivating', 'needs_attention'];

interface MonthFigures {
  month: string;
  newSubscriptions: number;
  churned: number;
  chargedCycles: number;
  collectedVnd: number;
  failedCycles: number;
  recoveredCycles: number;
  /** recoveredCycles / failedCycles; null without failures. */
  recoveredShare: number | null;
}

interface Figures {
  mrr: number;
  counts: { active: number; paused: number; cancelled: number };
  months: Map<string, MonthFigures>;
}

const emptyMonth = (month: string): MonthFigures => ({
  month,
  newSubscriptions: 0,
  churned: 0,
  chargedCycles: 0,
  collectedVnd: 0,
  failedCycles: 0,
  recoveredCycles: 0,
  recoveredShare: null,
});

export async function revenueView(db: Db, query: { period: 'month'; from: string; to: string }) {
  const months = monthsBetween(query.from, query.to);
  const byPlan = new Map<string, Figures>();
  const figuresOf = (planId: string | null) => {
    const key = planId ?? NO_PLAN;
    let figures = byPlan.get(key);
    if (!figures) {
      figures = {
        mrr: 0,
        counts: { active: 0, paused: 0, cancelled: 0 },
        months: new Map(months.map((month) => [month, emptyMonth(month)])),
      };
      byPlan.set(key, figures);
    }
    return figures;
  };
  const [subscriptions, cycles, movements] = await Promise.all([
    revenueSubscriptions(db),
    revenueCycles(db, query.from, query.to),
    revenueMovements(db, query.from, query.to),
  ]);
  for (const row of subscriptions) {
    const figures = figuresOf(row.plan_id);
    if (ACTIVE.includes(row.status)) figures.counts.active += 1;
    else if (PAUSED.includes(row.status)) figures.counts.paused += 1;
    else if (row.status === 'cancelled') figures.counts.cancelled += 1;
    // A VARIABLE subscription's recurringAmount is a ceiling, not a price: its money shows as collected.
    if (ACTIVE.includes(row.status) && row.type === 'FIXED')
      figures.mrr += monthlyValue(Number(row.recurring_amount), row.frequency);
  }
  for (const cycle of cycles) {
    const month = figuresOf(cycle.plan_id).months.get(cycle.month);
    if (!month) continue;
    if (cycle.succeeded) month.chargedCycles += 1;
    month.collectedVnd += Number(cycle.collected);
    if (cycle.failed) month.failedCycles += 1;
    if (cycle.failed && cycle.succeeded) month.recoveredCycles += 1;
  }
  for (const movement of movements) {
    const month = figuresOf(movement.plan_id).months.get(movement.month);
    if (!month) continue;
    if (movement.type === 'subscription.authorized') month.newSubscriptions += Number(movement.subscriptions);
    else month.churned += Number(movement.subscriptions);
  }
  const plans = [...byPlan.entries()].sort(([a], [b]) => a.localeCompare(b));
  const total = totalOf(
    months,
    plans.map(([, figures]) => figures),
  );
  return {
    period: query.period,
    from: query.from,
    to: query.to,
    currency: 'VND',
    total: present(total),
    plans: plans.map(([planId, figures]) => ({ planId, ...present(figures) })),
  };
}

function totalOf(months: string[], all: Figures[]): Figures {
  const total: Figures = {
    mrr: 0,
    counts: { active: 0, paused: 0, cancelled: 0 },
    months: new Map(months.map((month) => [month, emptyMonth(month)])),
  };
  for (const figures of all) {
    total.mrr += figures.mrr;
    total.counts.active += figures.counts.active;
    total.counts.paused += figures.counts.paused;
    total.counts.cancelled += figures.counts.cancelled;
    for (const [label, month] of figures.months) {
      const sum = total.months.get(label)!;
      sum.newSubscriptions += month.newSubscriptions;
      sum.churned += month.churned;
      sum.chargedCycles += month.chargedCycles;
      sum.collectedVnd += month.collectedVnd;
      sum.failedCycles += month.failedCycles;
      sum.recoveredCycles += month.recoveredCycles;
    }
  }
  return total;
}

const present = (figures: Figures) => ({
  mrrVnd: Math.round(figures.mrr),
  counts: figures.counts,
  months: [...figures.months.values()].map((month) => ({
    ...month,
    recoveredShare: month.failedCycles ? month.recoveredCycles / month.failedCycles : null,
  })),
});
