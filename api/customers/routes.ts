/**
 * Search by customer. Temporal holds no partnerClientId in visibility, only its customer key (a keyed
 * hash, `platform/customer-key.ts`); this route hashes the id the same way and lists that customer's
 * workflows, and answers the key and the query an operator pastes into the Temporal UI's search.
 */
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { CustomerKeyOf } from '../../platform/customer-key';
import { payrunCustomer } from '../../contracts/shared';
import { defineRoute, type AnyRoute } from '../http/routes';

/**
 * Only the duties that see customers in full (api/http/masking.ts): any answer to another role, even an
 * empty list, would tell it whether an email it typed is a customer, so the route refuses it (403) for
 * every id alike.
 */
const READERS = ['payments', 'billing'] as const;

export interface CustomerDeps {
  temporal: Client;
  customerKeyOf: CustomerKeyOf;
}

export function customerRoutes(deps: CustomerDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/customers/:partnerClientId/workflows',
      summary:
        "A customer's workflows (bindings, saved-method payments, subscriptions), newest first, found by the customer key the PayrunCustomer search attribute holds; with the key and the Temporal UI query. Only for roles that see customers in full (payments, billing, admin): every other role is refused 403 whatever the id, so it cannot learn whether an email is a customer.",
      tag: 'payments',
      access: { roles: READERS },
      params: z.object({ partnerClientId: z.string().min(1).max(60) }),
      query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
      response: z.object({
        customerKey: z.string(),
        visibilityQuery: z.string(),
        workflows: z.array(
          z.object({
            workflowId: z.string(),
            type: z.string(),
            status: z.string(),
            startTime: z.string(),
          }),
        ),
      }),
      handler: async ({ params, query }) => {
        const customerKey = deps.customerKeyOf(params.partnerClientId);
        // The key is `ck_` and hex digits: nothing in it can break out of the quoted value.
        const visibilityQuery = `${payrunCustomer.name} = '${customerKey}'`;
        const workflows: { workflowId: string; type: string; status: string; startTime: string }[] = [];
        for await (const execution of deps.temporal.workflow.list({ query: visibilityQuery })) {
          workflows.push({
            workflowId: execution.workflowId,
            type: execution.type,
            status: execution.status.name,
            startTime: execution.startTime.toISOString(),
          });
          if (workflows.length >= query.limit) break;
        }
        return { body: { customerKey, visibilityQuery, workflows } };
      },
    }),
  ];
}
