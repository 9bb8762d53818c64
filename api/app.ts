import express, { type Express } from 'express';
import type { Client } from '@temporalio/client';
import type { Db } from '../db/knex';

export interface ApiDependencies {
  db: Db;
  temporal: Client;
}

async function checkReadiness({ db, temporal }: ApiDependencies): Promise<Record<string, string>> {
  const checks: Record<string, string> = {};
  await Promise.all([
    db
      .raw('select 1')
      .then(() => (checks.database = 'ok'))
      .catch(() => (checks.database = 'unreachable')),
    temporal.workflowService
      .getSystemInfo({})
      .then(() => (checks.temporal = 'ok'))
      .catch(() => (checks.temporal = 'unreachable')),
  ]);
  return checks;
}

export function createApp(deps: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const checks = await checkReadiness(deps);
    const ready = Object.values(checks).every((state) => state === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', checks });
  });

  return app;
}
