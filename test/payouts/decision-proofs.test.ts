/**
 * Decisions that move money come only from the API, and four eyes are two people. An attacker who reaches
 * the Temporal frontend with the payload codec (a real client, the stack's data converter) sends the payout
 * run's `decide` update itself: without a proof, with a proof made for another run, signed with another key
 * than DECISION_SIGNING_KEY, or too old. Each is refused, in the audit log and in the workflow, nothing is
 * paid and the run still waits; the API's own approval then works. And the uploader, through a second key of
 * theirs with their name in another case, Unicode form or spacing, cannot approve their own run.
 */
import { describe, expect, it } from 'vitest';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { decideUpdate, payoutRunWorkflowId, runProgressQuery } from '../../contracts/payouts';
import { decisionSigner } from '../../api/http/decision-signer';
import { newKey } from '../support/api';
import { freshId } from '../support/ids';
import { captureHistory } from '../support/history-capture';
import { apiCall, payoutFile, usePayoutStack, waitForRunStatus } from '../support/payout-stack';
import { TEST_DECISION_SIGNING_KEY } from '../support/settings';
import { createTimeSkippingEnv, testDataConverter } from '../support/temporal';

const fixture = usePayoutStack(createTimeSkippingEnv);

async function upload(key: string): Promise<string> {
  const uploaded = await apiCall(
    fixture.stack,
    key,
    'POST',
    '/v1/payout-runs?fileName=decisions.csv',
    payoutFile(freshId('dp-'), 2),
    'text/csv',
  );
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  return uploaded.body.runId as string;
}

/** How the run refused an update sent to it: the failure's type and the reason in its details. */
async function refusedBecause(sent: Promise<unknown>): Promise<{ type?: string; reason?: unknown }> {
  const error = await sent.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error, 'the update was expected to be refused').toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause as { type?: string; details?: unknown[] };
  return { type: cause.type, reason: (cause.details?.[0] as { reason?: unknown } | undefined)?.reason };
}

const refusalsInAuditLog = async (runId: string) =>
  (
    await fixture
      .db('audit_log')
      .where({ target_type: 'payout_run', target_id: runId, outcome: 'refused' })
      .orderBy('id')
  ).map((row) => ({
    action: row.action,
    error: row.error_code,
    actor: row.actor_name,
    reason: row.details.reason,
  }));

describe('decisions that move money come only from the API', () => {
  it('a decide update sent straight to Temporal is refused and recorded; the run waits; the API approves', async () => {
    const runId = await upload(fixture.stack.makerKey);
    const otherRunId = await upload(fixture.stack.makerKey);
    const workflowId = payoutRunWorkflowId(runId);
    // The attacker: a client of its own on the frontend, with the codec, naming any approver it likes.
    const attacker = new Client({
      connection: fixture.env.client.connection,
      namespace: fixture.env.client.options.namespace,
      dataConverter: testDataConverter,
    });
    const run = attacker.workflow.getHandle(workflowId);
    const by = { keyId: 'k-forged', name: 'Somebody Else' };
    const send = (proof?: unknown) =>
      refusedBecause(
        run.executeUpdate(decideUpdate, {
          args: [{ decision: 'approve', by, ...(proof ? { proof } : {}) } as never],
        }),
      );
    const approval = { subject: workflowId, action: 'approve', by };

    expect(await send()).toEqual({ type: 'decision_refused', reason: 'missing' });
    const forOtherRun = decisionSigner(TEST_DECISION_SIGNING_KEY)({
      ...approval,
      subject: payoutRunWorkflowId(otherRunId),
    });
    expect(await send(forOtherRun)).toEqual({ type: 'decision_refused', reason: 'other_subject' });
    const otherKey = decisionSigner('not-the-decision-signing-key-0123456789')(approval);
    expect(await send(otherKey)).toEqual({ type: 'decision_refused', reason: 'wrong_signature' });
    const elevenMinutesOld = decisionSigner(
      TEST_DECISION_SIGNING_KEY,
      () => Date.now() - 11 * 60_000,
    )(approval);
    expect(await send(elevenMinutesOld)).toEqual({ type: 'decision_refused', reason: 'stale' });

    const refused = { action: 'payout_run.approve', error: 'decision_refused', actor: 'unverified decision' };
    expect(await refusalsInAuditLog(runId)).toEqual([
      { ...refused, reason: 'missing' },
      { ...refused, reason: 'other_subject' },
      { ...refused, reason: 'wrong_signature' },
      { ...refused, reason: 'stale' },
    ]);
    const progress = await run.query(runProgressQuery);
    expect(progress.status).toBe('awaiting_approval');
    expect(progress.refusedDecisions?.map((decision) => [decision.reason, decision.by.name])).toEqual([
      ['missing', 'Somebody Else'],
      ['other_subject', 'Somebody Else'],
      ['wrong_signature', 'Somebody Else'],
      ['stale', 'Somebody Else'],
    ]);
    const record = await fixture.db('payout_runs').where({ run_id: runId }).first();
    expect([record.status, record.decided_by]).toEqual(['awaiting_approval', null]);
    expect(fixture.stack.sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(runId))).toEqual(
      [],
    );

    const approved = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.status).toBe('running');
    const done = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      timeout: 60_000,
    });
    expect(done.status).toBe('reconciled');
    await captureHistory(fixture.env.client, workflowId, 'forged-decisions-refused-then-approved');
    const rejected = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${otherRunId}/reject`,
      '{}',
    );
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
  }, 90_000);
});

describe('four eyes are two people', () => {
  it('the uploader cannot approve their own run through a second key of theirs; another person can', async () => {
    const person = `Nguyễn Thị Mai ${freshId('', 6)}`;
    const makerKey = await newKey(fixture.db, ['payouts-maker'], person);
    const runId = await upload(makerKey);
    const spellings = [
      person.toUpperCase(),
      person.normalize('NFD'),
      person.replaceAll(' ', '  '),
      ` ${person.replace(' ', '\u00a0')}\u200b `,
    ];
    for (const spelling of spellings) {
      expect(spelling).not.toBe(person);
      const secondKey = await newKey(fixture.db, ['payouts-approver'], spelling);
      const answer = await apiCall(
        fixture.stack,
        secondKey,
        'POST',
        `/v1/payout-runs/${runId}/approve`,
        '{}',
      );
      expect([answer.status, answer.body.error?.code], JSON.stringify(spelling)).toEqual([
        403,
        'self_approval',
      ]);
      expect(answer.body.error.message).toContain('cannot approve it');
    }
    expect((await fixture.db('payout_runs').where({ run_id: runId }).first()).status).toBe(
      'awaiting_approval',
    );

    const anotherPerson = await newKey(
      fixture.db,
      ['payouts-approver'],
      `Nguyễn Thị Mai Anh ${freshId('', 6)}`,
    );
    const approved = await apiCall(
      fixture.stack,
      anotherPerson,
      'POST',
      `/v1/payout-runs/${runId}/approve`,
      '{}',
    );
    expect([approved.status, approved.body.status]).toEqual([200, 'running']);
    const done = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention'], {
      timeout: 60_000,
    });
    expect(done.status).toBe('reconciled');
  }, 90_000);
});
