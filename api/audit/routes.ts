/**
 * The audit log, read (filters, pages, CSV), and API keys managed through the API, whose creation and
 * revocation are recorded with the change in one transaction.
 */
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyOwner } from '../../db/shared/api-keys';
import { keyOwnerField, keyOwnerText, parseKeyOwner } from '../auth/key-owner';
import { AUDIT_OUTCOMES, listAudit, type AuditFilter, type AuditRow } from '../../db/shared/audit-log';
import { AUDIT_READERS } from './readers';
import type { Db } from '../../db/shared/knex';
import { ROLES } from '../auth/roles';
import { conflict, notFound } from '../http/errors';
import { listQueryFields } from '../http/list-query';
import { NOT_BLANK } from '../http/openapi';
import { defineRoute, type AnyRoute } from '../http/routes';
import { refuseMissingBody } from '../http/missing-body';
import { toCsv } from '../http/csv';

const auditQuery = z.object({
  ...listQueryFields,
  action: z.string().max(60).optional(),
  actor: z.string().max(100).optional(),
  outcome: z.enum(AUDIT_OUTCOMES as [string, ...string[]]).optional(),
});
/** A CSV export is one download: a larger page than the screen's. */
const CSV_LIMIT = 50_000;

/** Audit entries as CSV, one line each, their details as JSON. */
export function auditLogCsv(rows: readonly AuditRow[]): string {
  return toCsv(
    [
      'at',
      'actor',
      'actor_key_id',
      'action',
      'target_type',
      'target_id',
      'outcome',
      'status_code',
      'error_code',
      'request_id',
      'method',
      'path',
      'details',
    ],
    rows.map((row) => [
      row.at.toISOString(),
      row.actor_name,
      row.actor_key_id,
      row.action,
      row.target_type,
      row.target_id,
      row.outcome,
      row.status_code,
      row.error_code,
      row.request_id,
      row.method,
      row.path,
      JSON.stringify(row.details),
    ]),
  );
}

const entryView = (row: AuditRow) => ({
  id: Number(row.id),
  at: row.at,
  actor: row.actor_name,
  actorKeyId: row.actor_key_id,
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  outcome: row.outcome,
  statusCode: row.status_code,
  errorCode: row.error_code,
  requestId: row.request_id,
  method: row.method,
  path: row.path,
  details: row.details,
});

export function auditRoutes(db: Db): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/audit-log',
      summary:
        'Who did what through the API, newest first: filter by action, actor, outcome, days (GMT+7) and target or request id.',
      tag: 'audit',
      access: { roles: AUDIT_READERS },
      query: auditQuery,
      handler: async ({ query }) => {
        const page = await listAudit(db, query as AuditFilter);
        return { body: { entries: page.rows.map(entryView), nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/audit-log.csv',
      summary: 'The audit log with the same filters, as CSV (up to 50,000 entries).',
      tag: 'audit',
      access: { roles: AUDIT_READERS },
      query: auditQuery.omit({ limit: true, offset: true }),
      handler: async ({ query }) => {
        const page = await listAudit(db, { ...(query as AuditFilter), limit: CSV_LIMIT, offset: 0 });
        return {
          body: auditLogCsv(page.rows),
          contentType: 'text/csv; charset=utf-8',
          headers: { 'content-disposition': 'attachment; filename="payrun-audit-log.csv"' },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/api-keys',
      summary:
        'API keys: id, holder, owner (a person `<issuer>#<sub>` or `service:<name>`; null and `unowned: true` for keys made before owners existed), roles, created, revoked, last used (never the key).',
      tag: 'audit',
      access: { roles: ['admin'] },
      handler: async () => ({
        body: {
          keys: (await listApiKeys(db)).map((row) => ({
            keyId: row.key_id,
            name: row.name,
            roles: row.roles,
            owner: keyOwnerText(row.owner_kind, row.owner),
            unowned: keyOwnerText(row.owner_kind, row.owner) === null,
            createdAt: row.created_at,
            revokedAt: row.revoked_at,
            lastUsedAt: row.last_used_at,
          })),
        },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/api-keys',
      summary: 'Create an API key; the answer shows the key once (only its hash is kept).',
      tag: 'audit',
      access: { roles: ['admin'] },
      audit: { action: 'api_key.create', target: 'api_key' },
      body: z.object({
        name: z.string().trim().min(1).max(100).meta(NOT_BLANK),
        roles: z.array(z.enum(ROLES)).min(1),
        // Keys are for machines: the person or service answerable for one; a person's keys end with them.
        owner: keyOwnerField,
      }),
      handler: async ({ body, audit }) => {
        const created = await db.transaction(async (trx) => {
          const made = await createApiKey(trx, body.name, body.roles, parseKeyOwner(body.owner));
          audit.note({ targetId: made.row.key_id });
          await audit.recordIn(trx);
          return made;
        });
        return {
          status: 201,
          body: {
            keyId: created.row.key_id,
            name: created.row.name,
            roles: created.row.roles,
            owner: body.owner,
            key: created.key,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/api-keys/:keyId/owner',
      summary:
        'Give an owner to a key made before owners existed (`unowned: true` in the list); a key that has one keeps it (409 api_key_owned).',
      tag: 'audit',
      access: { roles: ['admin'] },
      audit: { action: 'api_key.owner', target: 'api_key' },
      params: z.object({ keyId: z.string().regex(/^[0-9a-f]{12}$/, 'a key id of 12 hex digits') }),
      body: z.object({ owner: keyOwnerField }),
      responseStatus: 200,
      handler: async ({ params, body, audit, req }) => {
        refuseMissingBody(req, 'a JSON object with an owner');
        await db.transaction(async (trx) => {
          const result = await setApiKeyOwner(trx, params.keyId, parseKeyOwner(body.owner)!);
          if (result === 'unknown') throw notFound(`Active API key ${params.keyId}`);
          // Moving a key from one owner to another would let it outlive the person it was made for.
          if (result === 'owned') throw conflict('api_key_owned', 'This key already has an owner.');
          audit.note({ details: { owner: body.owner } });
          await audit.recordIn(trx, 200);
        });
        return { body: { keyId: params.keyId, owner: body.owner } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/api-keys/:keyId/revoke',
      summary:
        'Revoke an API key: it stops working at once (not the key the request is made with: 409 own_key).',
      tag: 'audit',
      access: { roles: ['admin'] },
      audit: { action: 'api_key.revoke', target: 'api_key' },
      params: z.object({ keyId: z.string().regex(/^[0-9a-f]{12}$/, 'a key id of 12 hex digits') }),
      body: z.object({}),
      responseStatus: 200,
      handler: async ({ params, principal, audit }) => {
        // An admin never locks themselves out mid-session: a key is revoked with another admin's key.
        if (params.keyId === principal.keyId)
          throw conflict('own_key', 'A key cannot revoke itself: revoke it with another admin key.');
        await db.transaction(async (trx) => {
          if (!(await revokeApiKey(trx, params.keyId))) throw notFound(`Active API key ${params.keyId}`);
          await audit.recordIn(trx, 200);
        });
        return { body: { keyId: params.keyId, revoked: true } };
      },
    }),
  ];
}
