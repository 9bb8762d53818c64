/** Webhook endpoint stories: register one (secret shown once), rotate its secret, re-enable, re-send. */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db } from '../../db/shared/knex';
import { findEvent } from '../../db/events/events';
import {
  deleteEndpoint,
  enableEndpoint,
  getEndpoint,
  insertEndpoint,
  rotateEndpointSecret,
  webhookSecretContext,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../db/events/webhooks';
import type { EventType } from '../../platform/event-catalogue';
import { sealSecret } from '../../platform/sealed-secrets';
import {
  webhookEndpointWorkflowId,
  webhookResendWorkflowId,
  type WebhookEndpointInput,
  type WebhookResendInput,
} from '../../contracts/events';
import type { Principal } from '../auth/roles';
import { ApiError, conflict, notFound } from '../http/errors';
import type { WebhookSettings } from './webhook-settings';
import { startWorkflow } from '../workflow-starts';

export interface WebhookDeps {
  db: Db;
  temporal: Client;
  settings: WebhookSettings;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export function endpointView(row: WebhookEndpointRow) {
  return {
    endpointId: row.endpoint_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    secretRotatedAt: row.secret_rotated_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
    workflowId: row.workflow_id,
  };
}

export const deliveryView = (row: WebhookDeliveryRow) => ({
  eventId: row.event_id,
  trigger: row.trigger,
  attempt: row.attempt,
  succeeded: row.succeeded,
  statusCode: row.status_code,
  error: row.error,
  durationMs: row.duration_ms,
  attemptedAt: row.attempted_at,
});

export async function requireEndpoint(db: Db, endpointId: string): Promise<WebhookEndpointRow> {
  const row = await getEndpoint(db, endpointId);
  if (!row || row.status === 'deleted') throw notFound(`Webhook endpoint ${endpointId}`);
  return row;
}

async function startDelivery(
  deps: WebhookDeps,
  endpointId: string,
  conflictPolicy: WorkflowIdConflictPolicy,
) {
  const input: WebhookEndpointInput = { endpointId, timing: deps.settings.timing };
  await startWorkflow(deps.temporal, 'webhookEndpoint', {
    taskQueue: deps.settings.taskQueue,
    workflowId: webhookEndpointWorkflowId(endpointId),
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: conflictPolicy,
    staticSummary: `Webhook deliveries to endpoint ${endpointId}`,
  });
}

/** Registers an endpoint and starts its delivery workflow. The secret is in this answer and nowhere else. */
export async function createEndpoint(
  deps: WebhookDeps,
  input: { url: string; eventTypes: EventType[]; description: string; principal: Principal },
) {
  const endpointId = `we_${randomBytes(12).toString('hex')}`;
  const secret = newSecret();
  const row = await insertEndpoint(deps.db, {
    endpoint_id: endpointId,
    url: input.url,
    description: input.description,
    event_types: [...new Set(input.eventTypes)],
    secret_sealed: sealSecret(secret, deps.settings.keyring, webhookSecretContext(endpointId)),
    workflow_id: webhookEndpointWorkflowId(endpointId),
    created_by_key: input.principal.keyId,
    created_by: input.principal.name,
  });
  try {
    await startDelivery(deps, endpointId, WorkflowIdConflictPolicy.FAIL);
  } catch (error) {
    await deleteEndpoint(deps.db, endpointId);
    throw error;
  }
  return { ...endpointView(row), secret };
}

/**
 * A new secret signs from now on; the old one keeps signing too (a second v1 in the header) for the
 * overlap, so receivers can switch without refusing a delivery.
 */
export async function rotateSecret(deps: WebhookDeps, endpointId: string, overlapHours: number) {
  const row = await requireEndpoint(deps.db, endpointId);
  const secret = newSecret();
  const previousExpiresAt = new Date(Date.now() + overlapHours * 3600_000);
  await rotateEndpointSecret(deps.db, endpointId, {
    current: sealSecret(secret, deps.settings.keyring, webhookSecretContext(endpointId)),
    previous: row.secret_sealed,
    previousExpiresAt,
  });
  return { ...endpointView((await getEndpoint(deps.db, endpointId))!), secret };
}

/** A disabled endpoint resumes from where its deliveries stopped. */
export async function reenableEndpoint(deps: WebhookDeps, endpointId: string) {
  const row = await requireEndpoint(deps.db, endpointId);
  if (row.status !== 'disabled')
    throw conflict('endpoint_not_disabled', `Webhook endpoint ${endpointId} is ${row.status}, not disabled.`);
  await enableEndpoint(deps.db, endpointId);
  // The run that disabled it has ended or is about to; a new run takes over from the stored cursor.
  await startDelivery(deps, endpointId, WorkflowIdConflictPolicy.TERMINATE_EXISTING);
  return endpointView((await getEndpoint(deps.db, endpointId))!);
}

export async function removeEndpoint(deps: WebhookDeps, endpointId: string) {
  await requireEndpoint(deps.db, endpointId);
  // The workflow sees the status at its next look at the feed or delivery, and ends.
  await deleteEndpoint(deps.db, endpointId);
}

/** Sends one event again, now, outside the endpoint's order (the receiver deduplicates by event id). */
export async function resendEvent(deps: WebhookDeps, endpointId: string, eventId: string) {
  const endpoint = await requireEndpoint(deps.db, endpointId);
  if (endpoint.status !== 'active')
    throw conflict(
      'endpoint_not_active',
      `Webhook endpoint ${endpointId} is ${endpoint.status}; enable it first.`,
    );
  const event = await findEvent(deps.db, eventId);
  if (!event) throw notFound(`Event ${eventId}`);
  if (!endpoint.event_types.includes(event.type))
    throw new ApiError(
      'event_type_not_subscribed',
      `Webhook endpoint ${endpointId} does not receive ${event.type} events.`,
    );
  const input: WebhookResendInput = { endpointId, eventId, timing: deps.settings.timing };
  const workflowId = webhookResendWorkflowId(endpointId, eventId, randomBytes(6).toString('hex'));
  await startWorkflow(deps.temporal, 'webhookResend', {
    taskQueue: deps.settings.taskQueue,
    workflowId,
    args: [input],
    staticSummary: `Re-send of ${eventId} to webhook endpoint ${endpointId}`,
  });
  return { endpointId, eventId, workflowId };
}
