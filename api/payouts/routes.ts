import type { Request } from 'express';
import { z } from 'zod';
import type { ReadPayoutFile } from './payout-file-stream';
import { sizeInBytes, UploadParsers } from './upload-parsers';
import { defineRoute, type AnyRoute } from '../http/routes';
import { errorReportCsv } from './payout-csv';
import {
  decideRun,
  listItems,
  listRuns,
  reportSummary,
  resultsCsv,
  resumeRun,
  runView,
  uploadPayoutRun,
  validatePayoutFile,
  type PayoutDeps,
} from './payout-runs';

const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;
const runParams = z.object({
  runId: z.string().regex(/^run-\d{8}-[0-9a-f]{6}$/, 'a run id like run-20261122-a1b2c3'),
});
const decisionBody = z.object({ note: z.string().max(500).optional() });
const itemStates = [
  'QUEUED',
  'ELIGIBLE',
  'INELIGIBLE',
  'SUCCEEDED',
  'FAILED',
  'PENDING',
  'CANCELLED',
] as const;

export function payoutRunRoutes(
  deps: PayoutDeps,
  upload: { limit: string; concurrency: number },
): AnyRoute[] {
  const parsers = new UploadParsers({
    concurrency: upload.concurrency,
    limitBytes: sizeInBytes(upload.limit),
    maxRows: deps.settings.maxRows,
  });
  const csvUpload = {
    contentType: 'text/csv',
    limit: upload.limit,
    read: async (req: Request) => {
      const file = await parsers.read(req);
      return { body: file, fingerprint: file.sha256 };
    },
  };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/dry-run',
      summary:
        'Validate a payout CSV without creating anything: count, total, and every bad row (JSON, or CSV with format=csv).',
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      rawBody: csvUpload,
      responseStatus: 200,
      query: z.object({ format: z.enum(['json', 'csv']).default('json') }),
      handler: async ({ body, query }) => {
        const report = await validatePayoutFile(deps, (body as ReadPayoutFile).report);
        if (query.format === 'csv') {
          return {
            body: errorReportCsv(report),
            contentType: 'text/csv; charset=utf-8',
            headers: { 'content-disposition': 'attachment; filename="payout-file-errors.csv"' },
          };
        }
        return { body: reportSummary(report, deps.settings.batchSize) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs',
      summary:
        'Upload a payout CSV. A valid file becomes a run awaiting approval; a file with any error creates nothing (422 names each row, column and rule).',
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      rawBody: csvUpload,
      idempotent: true,
      query: z.object({ fileName: z.string().min(1).max(200).default('upload.csv') }),
      handler: async ({ body, query, principal, create }) => ({
        body: await uploadPayoutRun(deps, {
          file: body as ReadPayoutFile,
          fileName: query.fileName,
          principal,
          create,
        }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs',
      summary: 'Payout runs, newest first.',
      tag: 'payouts',
      access: { roles: READERS },
      query: z.object({
        status: z.string().max(40).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
      handler: async ({ query }) => ({ body: { runs: await listRuns(deps.db, query) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId',
      summary: 'A run: status, counts and amounts per state, per-batch progress, reconciliation.',
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      handler: async ({ params }) => ({ body: await runView(deps, params.runId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/items',
      summary: "A run's items with state, gateway transId and message; filter by state.",
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      query: z.object({
        state: z.enum(itemStates).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      handler: async ({ params, query }) => ({ body: await listItems(deps.db, params.runId, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/results.csv',
      summary: 'Every item and its outcome as CSV, safe to open in a spreadsheet.',
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      handler: async ({ params }) => ({
        body: await resultsCsv(deps.db, params.runId),
        contentType: 'text/csv; charset=utf-8',
        headers: { 'content-disposition': `attachment; filename="${params.runId}-results.csv"` },
      }),
    }),
    ...(
      [
        ['approve', 'Approve a run awaiting approval (not one you uploaded); payment starts at once.'],
        ['reject', 'Reject a run awaiting approval; nothing is paid and its payout ids are released.'],
      ] as const
    ).map(([decision, summary]) =>
      defineRoute({
        method: 'post',
        path: `/v1/payout-runs/:runId/${decision}`,
        summary,
        tag: 'payouts',
        access: { roles: ['payouts-approver'] },
        params: runParams,
        body: decisionBody,
        responseStatus: 200,
        handler: async ({ params, body, principal }) => ({
          body: await decideRun(deps, { runId: params.runId, decision, note: body.note, principal }),
        }),
      }),
    ),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/resume',
      summary: 'After topping up the merchant balance, resume a run paused for insufficient funds.',
      tag: 'payouts',
      access: { roles: ['payouts-approver'] },
      params: runParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal }) => ({
        body: await resumeRun(deps, { runId: params.runId, principal }),
      }),
    }),
  ];
}
