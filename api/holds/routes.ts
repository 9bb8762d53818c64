import { z } from 'zod';
import { HOLD_KINDS, RELEASE_RATE } from '../../contracts/holds';
import { ROLES } from '../auth/roles';
import { NOT_BLANK } from '../http/openapi';
import { refuseMissingBody } from '../http/missing-body';
import { defineRoute, type AnyRoute } from '../http/routes';
import { hold, holdsView, release, withdraw, type HoldDeps } from './holds';

const kindParams = z.object({ kind: z.enum(HOLD_KINDS) });
const ADMIN = ['admin'] as const;
const auditOf = (action: string) => ({
  action: `hold.${action}`,
  target: 'hold',
  targetOf: (params: Record<string, string>) => params.kind ?? '',
});

export function holdRoutes(deps: HoldDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/holds',
      summary:
        'The hold switch: for each kind of outgoing money, whether it is held, by whom, how many items wait and their total in VND, and any release under way.',
      tag: 'holds',
      access: { roles: ROLES },
      handler: async () => ({ body: await holdsView(deps.db) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/holds/:kind/hold',
      summary:
        'Hold one kind of outgoing money: the first admin proposes, a second (another person) confirms; then its workflows stop at their next gateway step, before sending anything.',
      tag: 'holds',
      access: { roles: ADMIN },
      audit: auditOf('hold'),
      params: kindParams,
      body: z.object({ reason: z.string().trim().min(1).max(500).meta(NOT_BLANK) }),
      responseStatus: 200,
      handler: async ({ params, body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const view = await hold(deps, { kind: params.kind, reason: body.reason, principal });
        audit.note({ details: { holdId: view.holdId, status: view.status } });
        return { body: view };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/holds/:kind/release',
      summary:
        'Release a hold at ratePerMinute (1–6000, default 60): the first admin proposes, a second confirms (an omitted rate takes the proposed one; another rate is refused); held items then resume at that rate.',
      tag: 'holds',
      access: { roles: ADMIN },
      audit: auditOf('release'),
      params: kindParams,
      body: z.object({
        ratePerMinute: z.number().int().min(RELEASE_RATE.min).max(RELEASE_RATE.max).optional(),
      }),
      responseStatus: 200,
      handler: async ({ params, body, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object');
        const view = await release(deps, { kind: params.kind, ratePerMinute: body.ratePerMinute, principal });
        audit.note({
          details: { holdId: view.holdId, status: view.status, ratePerMinute: view.release?.ratePerMinute },
        });
        return { body: view };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/holds/:kind/withdraw',
      summary:
        'Withdraw an unconfirmed proposal: a proposed hold ends (nothing was held), a proposed release leaves the kind held.',
      tag: 'holds',
      access: { roles: ADMIN },
      audit: auditOf('withdraw'),
      params: kindParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object ({})');
        const view = await withdraw(deps, { kind: params.kind, principal });
        audit.note({ details: { holdId: view.holdId, status: view.status } });
        return { body: view };
      },
    }),
  ];
}
