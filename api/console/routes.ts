/**
 * The finance console: a few static files (plain ES modules, no build step) served under /console,
 * and the one setting the page cannot know by itself — where the Temporal UI is.
 *
 * The page is public because it holds no data: every number it shows comes from the API, called
 * with the key the operator types in.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DISBURSEMENT_AMOUNT_RANGES } from '../../gateway';
import { AUDIT_READERS } from '../audit/readers';
import { hasAnyRole, ROLES } from '../auth/roles';
import { notFound } from '../http/errors';
import { defineRoute, type AnyRoute } from '../http/routes';
import type { Db } from '../../db/shared/knex';
import { timelineOf } from './timeline';

export interface ConsoleSettings {
  /** Base URL of the Temporal Web UI; without it the console shows no workflow links. */
  temporalUiUrl?: string;
  namespace: string;
}

const CONSOLE_DIR = path.dirname(fileURLToPath(import.meta.url));

/** [smallest, largest] in VND. */
/** [least, most] in VND (an array, not a tuple: OpenAPI 3.1 has no tuple items). */
const amountRange = z.array(z.number()).length(2);

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The page handles API keys, so it runs only its own scripts and styles, talks only to this
 * origin, and cannot be framed (a framed console could be clickjacked into approving a run).
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Small files: revalidating each load keeps a deployed fix from hiding behind a cache.
  'cache-control': 'no-cache',
};

/**
 * Chart.js's UMD build, from the installed package (no CDN: the page talks only to this origin, and the
 * version served is the one the lock file pins). Read on first use.
 */
let chartScript: Buffer | undefined;
function chartJs(): Buffer {
  chartScript ??= fs.readFileSync(
    path.join(path.dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.js'),
  );
  return chartScript;
}

/** The files, read once: the folder is part of the code, so it does not change while we run. */
function loadAssets(): Map<string, { body: Buffer; contentType: string }> {
  const assets = new Map<string, { body: Buffer; contentType: string }>();
  for (const name of fs.readdirSync(CONSOLE_DIR)) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue; // routes.ts and anything else that is not for the browser
    assets.set(name, { body: fs.readFileSync(path.join(CONSOLE_DIR, name)), contentType });
  }
  return assets;
}

export function consoleRoutes(
  settings: ConsoleSettings | undefined,
  defaultNamespace: () => string,
  db: Db,
): AnyRoute[] {
  const assets = loadAssets();
  const serve = (name: string) => {
    const asset = assets.get(name);
    if (!asset) throw notFound(`Console file ${name}`);
    return { body: asset.body, contentType: asset.contentType, headers: PAGE_HEADERS };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/console',
      summary: 'The finance console (sign in with an API key).',
      tag: 'console',
      access: { public: 'the page holds no data; it calls the API with the key the operator enters' },
      produces: { types: ['text/html'] },
      handler: () => serve('index.html'),
    }),
    defineRoute({
      method: 'get',
      path: '/console/:file',
      summary: "The console's scripts and styles.",
      tag: 'console',
      access: { public: 'static files of the console, no data' },
      produces: { types: ['text/javascript', 'text/css', 'text/html', 'image/svg+xml'] },
      params: z.object({ file: z.string().regex(/^[a-z0-9-]+\.[a-z]+$/, 'a console file name') }),
      handler: ({ params }) => serve(params.file),
    }),
    defineRoute({
      method: 'get',
      path: '/console/vendor/chart.umd.js',
      summary: 'Chart.js 4 (UMD build), which the console draws its charts with.',
      tag: 'console',
      access: { public: 'a static library file, no data' },
      produces: { types: ['text/javascript'] },
      handler: () => ({ body: chartJs(), contentType: CONTENT_TYPES['.js'], headers: PAGE_HEADERS }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/console/config',
      summary:
        "Where the console links workflows (the Temporal UI and namespace), and the gateway's amount ranges its forms state.",
      tag: 'console',
      access: { roles: ROLES },
      response: z.object({
        temporalUiUrl: z.string().nullable(),
        namespace: z.string(),
        disbursementAmountRanges: z.object({ wallet: amountRange, bank: amountRange }),
      }),
      handler: () => ({
        body: {
          temporalUiUrl: settings?.temporalUiUrl?.replace(/\/+$/, '') ?? null,
          namespace: settings?.namespace ?? defaultNamespace(),
          // From the operation table, so the form says what the API will accept.
          disbursementAmountRanges: {
            wallet: [...DISBURSEMENT_AMOUNT_RANGES.disburseToWallet],
            bank: [...DISBURSEMENT_AMOUNT_RANGES.disburseToBank],
          },
        },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/console/timeline',
      summary:
        "A record's timeline for its detail page: the gateway's notifications for its order ids or workflow (kind, result code, when; never the body) and what people did to it (from the audit log, for the roles that may read it; others get no actions).",
      tag: 'console',
      access: { roles: ROLES },
      query: z.object({
        targetType: z.string().max(40).optional(),
        targetId: z.string().max(100).optional(),
        workflowId: z.string().max(200).optional(),
        orderIds: z.string().max(2000).optional(),
      }),
      handler: async ({ query, principal }) => ({
        body: await timelineOf(db, query, hasAnyRole(principal, AUDIT_READERS)),
      }),
    }),
  ];
}
