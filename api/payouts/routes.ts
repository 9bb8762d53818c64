import type { Request } from 'express';
import { z } from 'zod';
import { listQuery } from '../http/list-query';
import type { ReadPayoutFile } from './payout-file-stream';
import { sizeInBytes, UploadParsers } from './upload-parsers';
import { defineRoute, type AnyRoute } from '../http/routes';
import { refuseMissingBody } from '../http/missing-body';
import { beyondSchema } from '../http/errors';
import { errorReportCsv } from './payout-csv';
import { BATCH_ITEM_AMOUNT_RANGE } from '../../gateway';
import { combinedReconciliation, discardDraft, editDraftItem, retryFailedRows, submitRetry } from './retries';
import { templateCsv, templateXlsx } from './payout-template';
import {
  cancelScheduledRun,
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
import { executeAtProblem } from './scheduling';
import { balanceForecast } from './balance-forecast';

const READERS = ['viewer', 'payouts-maker', 'payouts-approver'] as const;
const runParams = z.object({
  runId: z.string().regex(/^run-\d{8}-[0-9a-f]{6}$/, 'a run id like run-20261122-a1b2c3'),
});
/**
 * What a run answer always carries (the rest is described in docs/payout-runs.md): stated so a client can rely
 * on `scheduleId`, the recurring schedule whose occurrence made the run (null for an uploaded run).
 */
const runFields = {
  runId: z.string(),
  status: z.string(),
  scheduleId: z.string().nullable().meta({
    description: 'The recurring schedule whose occurrence made the run; null for an uploaded run or a retry.',
  }),
};
const runAnswer = z.looseObject({
  ...runFields,
  occurrenceAt: z.string().nullable().meta({
    description: "When the schedule's occurrence was due (ISO, UTC); null when no schedule made the run.",
  }),
});
const runListAnswer = z.looseObject({
  runs: z.array(z.looseObject(runFields)),
  nextOffset: z.number().int().nullable(),
});
const itemParams = runParams.extend({
  itemNo: z.coerce.number().int().min(1).max(1_000_000).meta({ description: "The row's number in its file" }),
});
/** One row of a retry draft, changed (the fields given) or removed; checked as an uploaded row is. */
const draftEdit = z
  .object({
    amount: z.number().int().min(BATCH_ITEM_AMOUNT_RANGE[0]).max(BATCH_ITEM_AMOUNT_RANGE[1]).optional(),
    walletId: z.string().min(1).max(100).optional(),
    walletName: z.string().min(1).max(100).optional(),
    personalId: z.string().max(12).nullable().optional(),
    description: z.string().max(500).optional(),
    remove: z.literal(true).optional(),
  })
  .strict();
/** A workbook's sheet, by its name as the workbook shows it. */
const sheetQuery = z.string().min(1).max(100).optional();
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const decisionBody = z.object({ note: z.string().max(500).optional() });
/**
 * An approval may name when the run pays. A time that is not ISO 8601 with its offset breaks the document (400);
 * one in the past or more than 370 days ahead breaks only payrun's rule (422 invalid_request naming it).
 */
const approvalBody = decisionBody.extend({
  executeAt: z.iso
    .datetime({ offset: true, error: 'an ISO time with its offset (2026-12-25T09:00:00+07:00)' })
    .optional()
    .superRefine((value, ctx) => {
      const problem = value === undefined ? undefined : executeAtProblem(value, Date.now());
      if (problem)
        ctx.addIssue({ code: 'custom', message: problem.message, params: beyondSchema(problem.rule) });
    }),
});
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
  // The bytes decide the format (an .xlsx is a zip), whatever Content-Type the client sends. The file
  // is parsed in an upload worker thread as it arrives, never buffered whole.
  const fileUpload = {
    contentTypes: ['text/csv', XLSX_TYPE],
    limit: upload.limit,
    read: async (req: Request, query: unknown) => {
      // No body at all is a request without its file, not an empty file: 400, before any parser starts.
      refuseMissingBody(req, 'the payout file (CSV or .xlsx)');
      const { sheet } = query as { sheet?: string };
      const file = await parsers.read(req, { sheet });
      // Another sheet of the same workbook is another request.
      return { body: file, fingerprint: sheet === undefined ? file.sha256 : `${file.sha256}:${sheet}` };
    },
  };
  return [
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/template.csv',
      summary: 'The payout file template: the header and one example row, as CSV (UTF-8 with a BOM).',
      tag: 'payouts',
      access: { roles: READERS },
      handler: () => ({
        body: templateCsv(),
        contentType: 'text/csv; charset=utf-8',
        headers: { 'content-disposition': 'attachment; filename="payout-template.csv"' },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/template.xlsx',
      summary: 'The payout file template as an .xlsx workbook (id columns formatted as Text).',
      tag: 'payouts',
      access: { roles: READERS },
      handler: async () => ({
        body: await templateXlsx(),
        contentType: XLSX_TYPE,
        headers: { 'content-disposition': 'attachment; filename="payout-template.xlsx"' },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/dry-run',
      summary:
        'Validate a payout file (CSV separated by , ; or tab, or .xlsx) without creating anything: how it was read, count, total, and every bad row (JSON, or CSV with format=csv).',
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      rawBody: fileUpload,
      responseStatus: 200,
      produces: { types: ['application/json', 'text/csv'] },
      query: z.object({ format: z.enum(['json', 'csv']).default('json'), sheet: sheetQuery }),
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
        'Upload a payout file (CSV or .xlsx, first sheet or `sheet`). A valid file becomes a run awaiting the approvers the approval policy asks for its total (`approvals`); a file with any error, or over a daily cap (422 daily_cap_exceeded), creates nothing (422 names each row, column and rule, or the cap).',
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'payout_run.upload', target: 'payout_run' },
      rawBody: fileUpload,
      idempotent: true,
      query: z.object({ fileName: z.string().min(1).max(200).default('upload.csv'), sheet: sheetQuery }),
      handler: async ({ body, query, principal, audit, create }) => ({
        body: await uploadPayoutRun(deps, {
          file: body as ReadPayoutFile,
          fileName: query.fileName,
          principal,
          audit,
          create,
        }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs',
      summary:
        'Payout runs, newest first: filter by status and upload days (from/to, GMT+7), search by run id or file name, pages of limit from offset.',
      tag: 'payouts',
      access: { roles: READERS },
      query: listQuery,
      response: runListAnswer,
      handler: async ({ query }) => {
        const page = await listRuns(deps.db, query);
        return { body: { runs: page.rows, nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId',
      summary:
        "A run: status, counts and amounts per state, per-batch progress, reconciliation; `payees` counts rows whose receiver is new to the payee directory, whose payee changed lately, and whose payee's wallet holds another name (`{known, new, changed, mismatched, changedWindowDays}`); `scheduleId` and `occurrenceAt` when a recurring schedule made it.",
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      response: runAnswer,
      handler: async ({ params }) => ({ body: await runView(deps, params.runId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/items',
      summary:
        "A run's items with state, gateway transId and message; filter by state. Each item's payee: `payeeId`, `payeeStatus` (known, new, changed) and `payeeNameCheck` (match, mismatch, unchecked; null without a payee). Wallet ids and names in full for payouts-maker/approver and admin, masked (****5678, N. V. A.) for other readers.",
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      query: z.object({
        state: z.enum(itemStates).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      handler: async ({ params, query, principal }) => ({
        body: await listItems(deps, params.runId, query, principal),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/results.csv',
      summary:
        'Every item and its outcome as CSV, safe to open in a spreadsheet; wallets masked as in the items list for readers other than the payout duties.',
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      produces: { types: ['text/csv'] },
      handler: async ({ params, principal }) => ({
        body: await resultsCsv(deps.db, params.runId, principal),
        contentType: 'text/csv; charset=utf-8',
        headers: { 'content-disposition': `attachment; filename="${params.runId}-results.csv"` },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/approve',
      summary:
        'Approve a run awaiting approval (not one you uploaded, once per person); payment starts when the approvers its total needs under the approval policy have approved (`approvals`: 1 of 2 waits), or, with `executeAt` (ISO 8601 with offset, in the future, at most 370 days ahead), the run waits as `scheduled` until then and can be cancelled.',
      tag: 'payouts',
      access: { roles: ['payouts-approver'] },
      audit: { action: 'payout_run.approve', target: 'payout_run' },
      params: runParams,
      body: approvalBody,
      responseStatus: 200,
      handler: async ({ params, body, principal }) => ({
        body: await decideRun(deps, {
          runId: params.runId,
          decision: 'approve',
          note: body.note,
          ...(body.executeAt !== undefined && { executeAt: body.executeAt }),
          principal,
        }),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/reject',
      summary: 'Reject a run awaiting approval; nothing is paid and its payout ids are released.',
      tag: 'payouts',
      access: { roles: ['payouts-approver'] },
      audit: { action: 'payout_run.reject', target: 'payout_run' },
      params: runParams,
      body: decisionBody,
      responseStatus: 200,
      handler: async ({ params, body, principal }) => ({
        body: await decideRun(deps, { runId: params.runId, decision: 'reject', note: body.note, principal }),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/cancel',
      summary:
        'Cancel a scheduled run before its time: nothing is paid and its payout ids are released (409 run_not_scheduled once it has started, or if it was never scheduled).',
      tag: 'payouts',
      access: { roles: ['payouts-approver', 'admin'] },
      audit: { action: 'payout_run.cancel', target: 'payout_run' },
      params: runParams,
      body: decisionBody,
      responseStatus: 200,
      handler: async ({ params, body, principal }) => ({
        body: await cancelScheduledRun(deps, { runId: params.runId, note: body.note, principal }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/balance-forecast',
      summary:
        "The next `days` GMT+7 days (today first) of scheduled outgoing money (scheduled payout runs, each with its total) against the merchant's disbursement balance from the gateway (null, with `balanceError`, when the gateway does not tell it).",
      tag: 'payouts',
      access: { roles: READERS },
      query: z.object({ days: z.coerce.number().int().min(1).max(31).default(14) }),
      handler: async ({ query }) => ({ body: await balanceForecast(deps, query.days) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/retry-failed',
      summary:
        "Retry a reconciled run's failed rows (FAILED or INELIGIBLE, not paid or being paid anywhere): a child run of exactly those rows, as a draft its maker may edit and then submit for approval like any run. 409 run_not_reconciled, no_failed_rows, or retry_already_open (one open retry per family).",
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'payout_run.retry_failed', target: 'payout_run' },
      params: runParams,
      body: z.object({}),
      responseStatus: 201,
      handler: async ({ params, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object ({})');
        return { body: await retryFailedRows(deps, { runId: params.runId, principal, audit }) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/payout-runs/:runId/items/:itemNo',
      summary:
        "Change one row of a retry draft (amount, walletId, walletName, personalId, description) or remove it (remove: true); the row is checked by the rules of an uploaded row (400 names the field and rule, and changes nothing). Only the draft's maker; 409 run_not_draft once submitted. Answers the draft with its rows.",
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'payout_run.edit_item', target: 'payout_run' },
      params: itemParams,
      body: draftEdit,
      responseStatus: 200,
      handler: async ({ params, body, principal, req }) => {
        refuseMissingBody(req, 'a JSON object with the fields to change, or { "remove": true }');
        return {
          body: await editDraftItem(deps, {
            runId: params.runId,
            itemNo: params.itemNo,
            edit: body,
            principal,
          }),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/submit',
      summary:
        "Submit a retry draft: it becomes a run awaiting the approvers the approval policy asks for its total (daily caps apply: 422 daily_cap_exceeded). Only the draft's maker; 409 run_not_draft, retry_draft_empty.",
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'payout_run.submit', target: 'payout_run' },
      params: runParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal, audit, req }) => {
        refuseMissingBody(req, 'a JSON object ({})');
        return { body: await submitRetry(deps, { runId: params.runId, principal, audit }) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/discard',
      summary:
        "Discard a retry draft: it ends expired, nothing is paid, its rows stay failed in the run it came from (and may be retried again). Only the draft's maker; 409 run_not_draft.",
      tag: 'payouts',
      access: { roles: ['payouts-maker'] },
      audit: { action: 'payout_run.discard', target: 'payout_run' },
      params: runParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal, req }) => {
        refuseMissingBody(req, 'a JSON object ({})');
        return { body: await discardDraft(deps, { runId: params.runId, principal }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/reconciliation',
      summary:
        "The combined reconciliation of a run and its retries: each of the run's rows with its outcome across them (paid, and by which run; pending; or failed, with the code and payrun's reason), and totals paid + failed + pending that add up to the run's rows.",
      tag: 'payouts',
      access: { roles: READERS },
      params: runParams,
      handler: async ({ params }) => ({ body: await combinedReconciliation(deps, params.runId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/payout-runs/:runId/resume',
      summary: 'After topping up the merchant balance, resume a run paused for insufficient funds.',
      tag: 'payouts',
      access: { roles: ['payouts-approver'] },
      audit: { action: 'payout_run.resume', target: 'payout_run' },
      params: runParams,
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal }) => ({
        body: await resumeRun(deps, { runId: params.runId, principal }),
      }),
    }),
  ];
}
