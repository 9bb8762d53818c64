import { z } from 'zod';
import { metricsRegistry } from '../../platform/metrics';
import { ROLES } from '../auth/roles';
import { defineRoute, type AnyRoute } from '../http/routes';
import type { Client } from '@temporalio/client';
import { databaseAnswers, type Db } from '../../db/shared/knex';

/** What the system routes probe; the app's dependencies satisfy it (no import back to app.ts). */
export interface SystemDependencies {
  db: Db;
  temporal: Client;
}

async function readiness({
  db,
  temporal,
}: SystemDependencies): Promise<Record<string, 'ok' | 'unreachable'>> {
  const probe = (check: Promise<unknown>) =>
    check.then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    );
  const [database, temporalState] = await Promise.all([
    probe(databaseAnswers(db)),
    probe(temporal.workflowService.getSystemInfo({})),
  ]);
  return { database, temporal: temporalState };
}

export function systemRoutes(
  deps: SystemDependencies,
  docs: { openApi: () => unknown; page: () => string },
): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the API process answers.',
      tag: 'system',
      access: { public: 'health probes carry no credentials' },
      response: z.object({ status: z.literal('ok') }),
      handler: () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: PostgreSQL and Temporal are reachable (503 names the failing one).',
      tag: 'system',
      access: { public: 'health probes carry no credentials' },
      handler: async () => {
        const checks = await readiness(deps);
        const ready = Object.values(checks).every((state) => state === 'ok');
        return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not-ready', checks } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document.',
      tag: 'system',
      access: { public: 'the API description holds no data' },
      handler: () => ({ body: docs.openApi() }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      summary: 'A reference page of every endpoint.',
      tag: 'system',
      access: { public: 'the API description holds no data' },
      produces: { types: ['text/html'] },
      handler: () => ({ body: docs.page(), contentType: 'text/html; charset=utf-8' }),
    }),
    defineRoute({
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics of this process.',
      tag: 'system',
      access: { roles: ['viewer'] },
      produces: { types: ['text/plain'] },
      handler: async () => ({
        body: await metricsRegistry.metrics(),
        contentType: metricsRegistry.contentType,
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/me',
      summary: 'The caller: key name and roles (what a console shows after sign-in).',
      tag: 'system',
      access: { roles: ROLES },
      response: z.object({ keyId: z.string(), name: z.string(), roles: z.array(z.enum(ROLES)) }),
      handler: ({ principal }) => ({ body: principal }),
    }),
  ];
}
