import { z } from 'zod';
import { listQuery } from '../http/list-query';
import { maskCustomer, seesInFull } from '../http/masking';
import { defineRoute, type AnyRoute } from '../http/routes';
import { planPriceChanges, planSubscriptions } from './plan-overview';
import type { SubscriptionDeps } from './subscriptions';

const WRITERS = ['billing'] as const;
const READERS = ['viewer', 'billing'] as const;

const planParams = z.object({ planId: z.string().max(40) });

/** The reads of the console's plans page (#/plans); the plan's writes are in plan-routes.ts. */
export function planOverviewRoutes(deps: SubscriptionDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/plans/:planId/subscriptions',
      summary:
        "The plan's subscriptions, newest first, filtered and paged as GET /v1/subscriptions is (customers masked the same way).",
      tag: 'subscriptions',
      access: { roles: READERS },
      params: planParams,
      query: listQuery,
      handler: async ({ params: path, query, principal }) => {
        const page = await planSubscriptions(deps, path.planId, query);
        const full = seesInFull(principal, WRITERS);
        return {
          body: {
            planId: page.planId,
            subscriptions: page.rows.map((row) => maskCustomer(row, full)),
            nextOffset: page.nextOffset,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/plans/:planId/price-changes',
      summary:
        "The plan's price changes, newest first, each with its status (applying, then done), its workflow's progress (total, applied, failed, waiting), how many of its subscriptions it reached (subscriptions), how many the workflow still holds open (pending: scheduled, awaiting_authorization, authorized), how many are settled, and the count per status.",
      tag: 'subscriptions',
      access: { roles: READERS },
      params: planParams,
      handler: async ({ params: path }) => ({ body: await planPriceChanges(deps, path.planId) }),
    }),
  ];
}
