/**
 * An upgrade rehearsed: long-running payout work starts on version N of the workflow code, the worker
 * is replaced by version N+1 (a change that needs patched(), in test/replay/next-version), and
 * - the runs that were waiting finish correctly on N+1, on the old path;
 * - a run started after the upgrade takes the new path;
 * - the same change without patched() would have broken the waiting runs: their histories do not
 *   replay with it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import fs from 'node:fs';
import os from 'node:os';
import { payoutRunWorkflowId } from '../../contracts/payouts';
import {
  apiCall,
  payoutFile,
  uploadAndApprove,
  usePayoutStack,
  waitForRunStatus,
} from '../support/payout-stack';
import { VERSION_MEMO_PATCH } from './next-version/patched';
import { connectDevServer, installQuietRuntime, testDataConverter } from '../support/temporal';
import { eventually } from '../support/wait';

const { EventType } = proto.temporal.api.enums.v1;
// The dev server, as a deploy meets it (the production shape's rehearsal joins npm run cluster later).
const fixture = usePayoutStack(connectDevServer);
const here = path.dirname(fileURLToPath(import.meta.url));

async function bundle(file: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(here, 'next-version', file),
    logger: new DefaultLogger('WARN'),
  });
  const codePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-next-')), `${file}.js`);
  fs.writeFileSync(codePath, code);
  return codePath;
}

const historyOf = (runId: string) =>
  fixture.env.client.workflow.getHandle(payoutRunWorkflowId(runId)).fetchHistory();
const eventTypes = async (runId: string) =>
  ((await historyOf(runId)).events ?? []).map((event) => event.eventType);
/**
 * Whether the run recorded the rehearsal's patch marker. Only that one: a run also records the markers of
 * patches version N already has (a decision's proof check, when it is decided), which say nothing of the upgrade.
 */
const tookRehearsalPatch = async (runId: string) =>
  ((await historyOf(runId)).events ?? []).some(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
      Object.values(event.markerRecordedEventAttributes?.details ?? {}).some((payloads) =>
        (payloads.payloads ?? []).some((payload) =>
          Buffer.from(payload.data ?? [])
            .toString('utf8')
            .includes(VERSION_MEMO_PATCH),
        ),
      ),
  );

describe('upgrading the workflow code under running payouts', () => {
  it('old runs finish on the old path after the upgrade, new runs take the new one', async () => {
    const [patchedBundle, unguardedBundle] = await Promise.all([
      bundle('patched.ts'),
      bundle('unguarded.ts'),
    ]);

    // Version N: one run waits for approval, another's batch waits for its lost 8003 notification.
    fixture.stack.sandbox.admin.reset();
    fixture.stack.sandbox.admin.setFaults({ notification: 'batch.created', ipn: { drop: true }, times: 1 });
    const waitingForNotification = await uploadAndApprove(fixture.stack, payoutFile('upgrade-ipn', 4));
    await eventually(async () => {
      const batch = await fixture.db('payout_batches').where({ run_id: waitingForNotification }).first();
      expect(batch?.status).toBe('validating');
    });
    const uploaded = await apiCall(
      fixture.stack,
      fixture.stack.makerKey,
      'POST',
      '/v1/payout-runs',
      payoutFile('upgrade-approval', 3),
      'text/csv',
    );
    expect(uploaded.status).toBe(201);
    const waitingForApproval = uploaded.body.runId as string;
    await eventually(async () =>
      expect(await eventTypes(waitingForApproval)).toContain(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
    );
    const historyOnVersionN = await historyOf(waitingForApproval);

    // The deploy: version N's worker goes, version N+1's comes.
    await fixture.stack.stopWorker();
    await fixture.stack.startWorker(patchedBundle);

    const approved = await apiCall(
      fixture.stack,
      fixture.stack.approverKey,
      'POST',
      `/v1/payout-runs/${waitingForApproval}/approve`,
      '{}',
    );
    expect(approved.status).toBe(200);
    for (const runId of [waitingForApproval, waitingForNotification]) {
      // The lost notification costs the batch its 5-second wait, then it asks the gateway.
      const run = await waitForRunStatus(fixture.db, runId, ['reconciled', 'needs_attention']);
      expect(run.status, String(run.status_reason)).toBe('reconciled');
      // Old runs: no marker of the rehearsal's patch, no new memo.
      expect(await tookRehearsalPatch(runId)).toBe(false);
      expect(await eventTypes(runId)).not.toContain(EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED);
    }

    // A run started on N+1 takes the new path: the patch marker, then the memo.
    const fresh = await uploadAndApprove(fixture.stack, payoutFile('upgrade-new', 2));
    const run = await waitForRunStatus(fixture.db, fresh, ['reconciled', 'needs_attention']);
    expect(run.status).toBe('reconciled');
    const freshEvents = await eventTypes(fresh);
    expect(await tookRehearsalPatch(fresh)).toBe(true);
    expect(freshEvents.indexOf(EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED)).toBeGreaterThan(
      freshEvents.indexOf(EventType.EVENT_TYPE_MARKER_RECORDED),
    );

    // Why the guard is needed: version N's history replays with the patched code, not the unguarded.
    installQuietRuntime();
    const replayWith = (codePath: string) =>
      Worker.runReplayHistory(
        { workflowBundle: { codePath }, dataConverter: testDataConverter },
        historyOnVersionN,
        payoutRunWorkflowId(waitingForApproval),
      );
    await expect(replayWith(patchedBundle)).resolves.toBeUndefined();
    await expect(replayWith(unguardedBundle)).rejects.toMatchObject({ name: 'DeterminismViolationError' });
    await expect(replayWith(inject('workflowBundlePath'))).resolves.toBeUndefined();
  }, 120_000);
});
