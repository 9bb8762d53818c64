/**
 * The audit log through the real API, worker and sandbox on the dev server: what people did (upload,
 * a refused self-approval, reject, API keys) is recorded with who, when, what and the request id;
 * it lists with filters and downloads as CSV; and nobody can change or delete it, not even with
 * payrun's own database connection.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from '../../db/shared/knex';
import { parseKeyId } from '../../db/shared/api-keys';
import { newKey } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { payoutFile, startPayoutStack, waitForRunStatus, type PayoutStack } from '../support/payout-stack';
import { connectDevServer } from '../support/temporal';

let env: TestWorkflowEnvironment;
let db: Db;
let stack: PayoutStack;
let admin: string;
const tag = randomUUID().slice(0, 8);

beforeAll(async () => {
  env = await connectDevServer();
  db = connectTestDatabase();
  stack = await startPayoutStack(env, db);
  admin = await newKey(db, ['admin'], `Audit Admin ${tag}`);
});

afterAll(async () => {
  await stack?.close();
  await db?.destroy();
  await env?.teardown();
});

async function call(
  key: string,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
) {
  const requestId = `audit-${tag}-${randomUUID().slice(0, 8)}`;
  const response = await fetch(`${stack.api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'x-request-id': requestId },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    requestId,
    text,
    allow: response.headers.get('allow'),
    body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
}

const entriesOf = (filter: Record<string, string>) =>
  call(admin, 'GET', `/v1/audit-log?${new URLSearchParams({ limit: '200', ...filter })}`);

describe('audit log', () => {
  it('records uploads, a refused self-approval and a rejection with who, what and the request id', async () => {
    const refusedUpload = await call(admin, 'POST', '/v1/payout-runs', 'payout_id,amount\nx,1\n', 'text/csv');
    expect(refusedUpload.status).toBe(422);

    const upload = await call(
      admin,
      'POST',
      `/v1/payout-runs?fileName=audit-${tag}.csv`,
      payoutFile(`audit-${tag}`, 3),
      'text/csv',
    );
    expect(upload.status).toBe(201);
    const runId = upload.body.runId as string;

    // The uploader may hold every role: approving their own run is still refused, and recorded.
    const selfApprove = await call(admin, 'POST', `/v1/payout-runs/${runId}/approve`, '{"note":"mine"}');
    expect(selfApprove.status).toBe(403);
    const approve = await call(
      stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{"note":"ok"}',
    );
    expect(approve.status).toBe(200);
    await waitForRunStatus(db, runId, ['reconciled', 'needs_attention']);
    const late = await call(
      stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/reject`,
      '{"note":"too late"}',
    );
    expect(late.status).toBe(409);

    const { body } = await entriesOf({ q: runId });
    expect(
      body.entries.map((entry: { action: string; outcome: string }) => [entry.action, entry.outcome]),
    ).toEqual([
      ['payout_run.reject', 'refused'],
      ['payout_run.approve', 'succeeded'],
      ['payout_run.approve', 'refused'],
      ['payout_run.upload', 'succeeded'],
    ]);
    const [rejected, approved, selfApproved, uploaded] = body.entries;
    expect(uploaded).toMatchObject({
      actor: `Audit Admin ${tag}`,
      actorKeyId: parseKeyId(admin),
      targetType: 'payout_run',
      targetId: runId,
      requestId: upload.requestId,
      method: 'POST',
      path: '/v1/payout-runs',
      statusCode: 201,
      details: { fileName: `audit-${tag}.csv`, rowCount: 3, totalAmount: 30_003 },
    });
    expect(selfApproved).toMatchObject({
      errorCode: 'self_approval',
      statusCode: 403,
      requestId: selfApprove.requestId,
    });
    expect(approved).toMatchObject({
      actor: expect.stringMatching(/^approver/),
      requestId: approve.requestId,
      details: { note: 'ok' },
    });
    expect(rejected).toMatchObject({
      errorCode: 'run_not_awaiting_approval',
      statusCode: 409,
      requestId: late.requestId,
    });
    expect(new Date(uploaded.at).getTime()).toBeLessThanOrEqual(new Date(approved.at).getTime());

    // The refused upload is recorded, without a run.
    const refused = await entriesOf({ q: refusedUpload.requestId });
    expect(refused.body.entries).toEqual([
      expect.objectContaining({
        action: 'payout_run.upload',
        outcome: 'refused',
        errorCode: 'invalid_payout_file',
        targetId: null,
      }),
    ]);
  });

  it('records API keys created and revoked through the API, in the transaction of the change', async () => {
    const created = await call(
      admin,
      'POST',
      '/v1/api-keys',
      JSON.stringify({ name: `Temp ${tag}`, roles: ['viewer'], owner: `service:temp-${tag}` }),
    );
    expect(created.status).toBe(201);
    const keyId = created.body.keyId as string;
    expect((await call(created.body.key, 'GET', '/v1/me')).status).toBe(200);
    expect((await call(admin, 'POST', `/v1/api-keys/${keyId}/revoke`, '{}')).status).toBe(200);
    expect((await call(created.body.key, 'GET', '/v1/me')).status).toBe(401);
    const again = await call(admin, 'POST', `/v1/api-keys/${keyId}/revoke`, '{}');
    expect(again.status).toBe(404);

    const { body } = await entriesOf({ q: keyId, actor: `Audit Admin ${tag}` });
    expect(
      body.entries.map((entry: { action: string; outcome: string }) => [entry.action, entry.outcome]),
    ).toEqual([
      ['api_key.revoke', 'refused'],
      ['api_key.revoke', 'succeeded'],
      ['api_key.create', 'succeeded'],
    ]);
    expect(body.entries[2].details).toEqual({ name: `Temp ${tag}`, roles: ['viewer'] });
  });

  it('filters by action and outcome, pages newest first, and downloads as CSV', async () => {
    const filter = { actor: `Audit Admin ${tag}`, action: 'api_key.revoke' };
    const first = await call(admin, 'GET', `/v1/audit-log?${new URLSearchParams({ ...filter, limit: '1' })}`);
    expect(first.body.entries).toHaveLength(1);
    expect(first.body.entries[0].outcome).toBe('refused');
    expect(first.body.nextOffset).toBe(1);
    const second = await call(
      admin,
      'GET',
      `/v1/audit-log?${new URLSearchParams({ ...filter, limit: '1', offset: '1' })}`,
    );
    expect(second.body.entries[0].outcome).toBe('succeeded');
    expect(second.body.nextOffset).toBeNull();
    const today = new Date(Date.now() + 7 * 3600_000).toISOString().slice(0, 10);
    const outcome = await entriesOf({ ...filter, outcome: 'succeeded', from: today, to: today });
    expect(outcome.body.entries).toHaveLength(1);
    const yesterday = new Date(Date.now() + 7 * 3600_000 - 86_400_000).toISOString().slice(0, 10);
    expect((await entriesOf({ ...filter, to: yesterday })).body.entries).toEqual([]);

    const csv = await call(admin, 'GET', `/v1/audit-log.csv?${new URLSearchParams(filter)}`);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'at,actor,actor_key_id,action,target_type,target_id,outcome,status_code,error_code,request_id,method,path,details',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`Audit Admin ${tag},`);
    expect(lines[1]).toContain(',api_key.revoke,api_key,');
  });

  it('cannot be changed or deleted, even with payrun’s own database connection', async () => {
    const [entry] = await db('audit_log')
      .where({ actor_name: `Audit Admin ${tag}` })
      .select('id');
    await expect(
      db('audit_log').where({ id: entry.id }).update({ actor_name: 'someone else' }),
    ).rejects.toThrow(/append-only/);
    await expect(db('audit_log').where({ id: entry.id }).delete()).rejects.toThrow(/append-only/);
    await expect(db.raw('truncate audit_log')).rejects.toThrow(/append-only/);
    expect(await db('audit_log').where({ id: entry.id }).first()).toMatchObject({
      actor_name: `Audit Admin ${tag}`,
    });
    // And the API has no way to change it: /v1/audit-log answers reads only (405, Allow: GET).
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const response = await call(admin, method, `/v1/audit-log`, '{}');
      expect(response.status, method).toBe(405);
      expect(response.allow, method).not.toMatch(/PUT|PATCH|DELETE|POST/);
    }
  });

  it('refuses a key revoking itself (409 own_key): an admin never locks themselves out mid-session', async () => {
    const own = await newKey(db, ['admin'], `Self Revoker ${tag}`);
    const { keyId } = (await call(own, 'GET', '/v1/me')).body as { keyId: string };
    const refused = await call(own, 'POST', `/v1/api-keys/${keyId}/revoke`, '{}');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('own_key');
    expect((await call(own, 'GET', '/v1/me')).status).toBe(200);
    // Another admin's key revokes it.
    expect((await call(admin, 'POST', `/v1/api-keys/${keyId}/revoke`, '{}')).status).toBe(200);
    expect((await call(own, 'GET', '/v1/me')).status).toBe(401);
  });
});
