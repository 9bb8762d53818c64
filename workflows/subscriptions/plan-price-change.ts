/**
 * A plan's price change, applied durably: the API records the change and starts this workflow in one
 * idempotent step (its id is the change's), and the workflow hands the change to each of the plan's
 * subscriptions a page at a time, each through its own workflow (the `planPriceChange` signal, the same
 * path as a one-subscription change), then waits until every one of them answered and marks it done.
 *
 * Money: this workflow moves none and calls no gateway operation. Only a subscription's own workflow
 * decides what a cycle charges, never above what its customer authorized; a subscription not reached yet
 * keeps its current amount. Each subscription has one row of the change (made once per (change,
 * subscription)) and takes its id once, so a page handed over again (a retried activity, a restarted run)
 * makes no second change and no second gateway order.
 */
import { continueAsNew, getExternalWorkflowHandle, sleep, workflowInfo } from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import {
  planPriceChangeSignal,
  type PlanPriceChangeActivities,
  type PlanPriceChangeInput,
  type PlanPriceChangeProgress,
} from '../../contracts/subscriptions';

const records = recordsOf<PlanPriceChangeActivities>();

/** Subscriptions per page: each signal writes two history events. */
export const PLAN_PRICE_CHANGE_PAGE = 200;
/** Pages per run before continue-as-new: 10 pages ≈ 4,000 events, far below the history's limits. */
const PAGES_PER_RUN = 10;
/** How often it asks whether every subscription answered: soon at first, then every few minutes. */
const FIRST_CHECK_MS = 2_000;
const LONGEST_CHECK_MS = 5 * 60_000;

export async function planPriceChange(input: PlanPriceChangeInput): Promise<PlanPriceChangeProgress> {
  const { planPriceChangeId } = input;
  const paging = {
    ...(input.pageSize !== undefined && { pageSize: input.pageSize }),
    ...(input.pagesPerRun !== undefined && { pagesPerRun: input.pagesPerRun }),
  };
  let after = input.after;
  let finished = input.handedOut === true;
  for (let page = 0; !finished && page < (input.pagesPerRun ?? PAGES_PER_RUN); page++) {
    const { targets, last } = await records.planPriceChangePage({
      planPriceChangeId,
      ...(after !== undefined && { after }),
      limit: input.pageSize ?? PLAN_PRICE_CHANGE_PAGE,
    });
    await Promise.all(
      targets.map((target) =>
        getExternalWorkflowHandle(target.workflowId)
          .signal(planPriceChangeSignal, target.order)
          // Its workflow ended meanwhile (cancelled, expired): the subscription cannot take the change.
          .catch(() =>
            records.refusePlanPriceChange({
              priceChangeId: target.order.priceChangeId,
              reason: 'Its workflow has ended; the price change did not reach it',
            }),
          ),
      ),
    );
    if (last === undefined) finished = true;
    else after = last;
  }
  if (!finished)
    return continueAsNew<typeof planPriceChange>({ planPriceChangeId, ...paging, ...(after && { after }) });
  // Every subscription was told; each answers by recording its row (accepted or refused).
  let wait = FIRST_CHECK_MS;
  for (;;) {
    const progress = await records.planPriceChangeProgress({ planPriceChangeId });
    if (progress.waiting === 0) return records.finishPlanPriceChange({ planPriceChangeId });
    if (workflowInfo().continueAsNewSuggested)
      return continueAsNew<typeof planPriceChange>({ planPriceChangeId, ...paging, handedOut: true });
    await sleep(wait);
    wait = Math.min(wait * 2, LONGEST_CHECK_MS);
  }
}
