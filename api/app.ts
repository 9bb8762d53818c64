import express, { type Express } from 'express';
import type { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import type { Logger } from '../platform/logger';
import { ApiError, errorHandler } from './http/errors';
import { observeRequests } from './http/observability';
import { buildOpenApiDocument, renderDocsPage } from './http/openapi';
import { mountRoutes, type AnyRoute } from './http/routes';
import { systemRoutes } from './routes/system';

export interface ApiDependencies {
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Limit of JSON request bodies. */
  jsonLimit?: string;
}

const API_VERSION = '0.1.0';

/** Every route the API serves, in one list: mounting, OpenAPI and the access tests all read it. */
export function apiRoutes(deps: ApiDependencies): AnyRoute[] {
  const routes: AnyRoute[] = [];
  const docs = {
    openApi: () => buildOpenApiDocument(routes, API_VERSION),
    page: () => renderDocsPage(routes),
  };
  routes.push(...systemRoutes(deps, docs));
  return routes;
}

export function createApp(deps: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(observeRequests(deps.logger));
  const router = express.Router();
  mountRoutes(router, apiRoutes(deps), { db: deps.db, jsonLimit: deps.jsonLimit ?? '100kb' });
  app.use(router);
  app.use((req) => {
    throw new ApiError(404, 'route_not_found', `No endpoint ${req.method} ${req.path}; see /docs.`);
  });
  app.use(errorHandler());
  return app;
}
