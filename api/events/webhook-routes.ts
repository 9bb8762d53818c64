import { z } from 'zod';
import { listDeliveries, listEndpointsPage } from '../../db/events/webhooks';
import { EVENT_TYPES, isEventType } from '../../platform/event-catalogue';
import { URL_SYNTAX, webhookUrlPattern, webhookUrlProblem } from '../../platform/webhook-url';
import { listQuery } from '../http/list-query';
import { defineRoute, type AnyRoute } from '../http/routes';
import { ApiError, beyondSchema } from '../http/errors';
import {
  createEndpoint,
  deliveryView,
  endpointView,
  reenableEndpoint,
  removeEndpoint,
  requireEndpoint,
  resendEvent,
  rotateSecret,
  type WebhookDeps,
} from './webhook-endpoints';
import type { WebhookSettings } from './webhook-settings';
import type { Db } from '../../db/shared/knex';
import type { Client } from '@temporalio/client';

const ADMINS = ['admin'] as const;
const TAG = 'webhooks';

const endpointParams = z.object({
  endpointId: z.string().regex(/^we_[0-9a-f]{24}$/, 'a webhook endpoint id, we_ and 24 hex digits'),
});
const eventId = z.string().regex(/^evt_[0-9a-f]{32}$/, 'an event id, evt_ and 32 hex digits');

/** Webhook endpoints: admins only. The URL comes from this body and nowhere else. */
export function webhookRoutes(deps: { db: Db; temporal: Client; settings?: WebhookSettings }): AnyRoute[] {
  const configured = (): WebhookDeps => {
    if (!deps.settings)
      throw new ApiError('webhooks_not_configured', 'This API was started without webhook settings.');
    return { db: deps.db, temporal: deps.temporal, settings: deps.settings };
  };
  const policy = { allowLoopbackHttp: deps.settings?.allowLoopbackHttp ?? false };
  const urlPattern = new RegExp(webhookUrlPattern(policy));
  const createBody = z.object({
    // The document states the syntax (400 when broken); where the host is cannot be stated: 422.
    url: z
      .string()
      .max(2048)
      .regex(urlPattern, URL_SYNTAX)
      .superRefine((url, ctx) => {
        if (url.length > 2048 || !urlPattern.test(url)) return;
        const problem = webhookUrlProblem(url, policy);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, params: beyondSchema('public_host') });
      }),
    eventTypes: z
      .array(
        z
          .string()
          .refine(isEventType, {
            error: `an event type of the catalogue (${EVENT_TYPES.length} types, see docs/events.md)`,
          })
          .meta({ enum: [...EVENT_TYPES] }),
      )
      .min(1, 'at least one event type')
      .max(EVENT_TYPES.length),
    description: z.string().max(200).default(''),
  });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints',
      summary:
        'Register a webhook endpoint (https URL, the event types it wants). The answer holds its signing ' +
        'secret: shown this once, stored sealed.',
      tag: TAG,
      access: { roles: ADMINS },
      audit: { action: 'webhook_endpoint.create', target: 'webhook_endpoint' },
      body: createBody,
      handler: async ({ body, principal, audit }) => {
        const created = await createEndpoint(configured(), {
          url: body.url,
          eventTypes: body.eventTypes.filter(isEventType),
          description: body.description,
          principal,
        });
        audit.note({ targetId: created.endpointId, details: { eventTypes: body.eventTypes } });
        return { body: created };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints',
      summary:
        'Webhook endpoints (never their secrets), disabled ones with the reason: filter by status (active, disabled) and creation days (from/to, GMT+7), search by id, URL or description, pages of limit from offset, newest first.',
      tag: TAG,
      access: { roles: ADMINS },
      query: listQuery,
      handler: async ({ query }) => {
        const page = await listEndpointsPage(deps.db, query);
        return { body: { endpoints: page.rows.map(endpointView), nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints/:endpointId',
      summary: 'One webhook endpoint.',
      tag: TAG,
      access: { roles: ADMINS },
      params: endpointParams,
      handler: async ({ params }) => ({
        body: endpointView(await requireEndpoint(deps.db, params.endpointId)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhook-endpoints/:endpointId',
      summary: 'Delete a webhook endpoint: nothing more is sent to it.',
      tag: TAG,
      access: { roles: ADMINS },
      audit: { action: 'webhook_endpoint.delete', target: 'webhook_endpoint' },
      params: endpointParams,
      responseStatus: 204,
      handler: async ({ params }) => {
        await removeEndpoint(configured(), params.endpointId);
        return {};
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:endpointId/rotate-secret',
      summary:
        'A new signing secret (shown once). The old one keeps signing too for overlapHours (default 24), ' +
        'so receivers can switch without refusing a delivery.',
      tag: TAG,
      access: { roles: ADMINS },
      audit: { action: 'webhook_endpoint.rotate_secret', target: 'webhook_endpoint' },
      params: endpointParams,
      body: z.object({ overlapHours: z.number().min(0).max(168).default(24) }),
      responseStatus: 200,
      handler: async ({ params, body }) => ({
        body: await rotateSecret(configured(), params.endpointId, body.overlapHours),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:endpointId/enable',
      summary: 'Re-enable a disabled endpoint: deliveries resume where they stopped.',
      tag: TAG,
      access: { roles: ADMINS },
      audit: { action: 'webhook_endpoint.enable', target: 'webhook_endpoint' },
      params: endpointParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params }) => ({ body: await reenableEndpoint(configured(), params.endpointId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints/:endpointId/deliveries',
      summary: 'Delivery attempts to the endpoint, newest first (optionally of one event).',
      tag: TAG,
      access: { roles: ADMINS },
      params: endpointParams,
      query: z.object({
        eventId: eventId.optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
      }),
      handler: async ({ params, query }) => {
        await requireEndpoint(deps.db, params.endpointId);
        const rows = await listDeliveries(deps.db, params.endpointId, query);
        return { body: { deliveries: rows.map(deliveryView) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:endpointId/resend',
      summary: 'Send one event to the endpoint again, now (outside its order; receivers deduplicate by id).',
      tag: TAG,
      access: { roles: ADMINS },
      audit: { action: 'webhook_endpoint.resend', target: 'webhook_endpoint' },
      params: endpointParams,
      body: z.object({ eventId }),
      responseStatus: 202,
      handler: async ({ params, body }) => ({
        body: await resendEvent(configured(), params.endpointId, body.eventId),
      }),
    }),
  ];
}
