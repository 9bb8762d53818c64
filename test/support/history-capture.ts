/**
 * Replay fixtures: with PAYRUN_CAPTURE_HISTORIES set (`npm run histories:capture`), the workflow tests
 * that walk a process's main paths save the histories they made, payloads encrypted as they are in
 * production, under test/replay/histories/<workflow type>/<case>.json with the payrun version that made
 * them. Without it, capturing does nothing and the tests run as usual.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { expect } from 'vitest';
import { eventually } from './wait';

const { History } = proto.temporal.api.history.v1;
type IHistory = proto.temporal.api.history.v1.IHistory;

/**
 * JSON through the History class itself (64-bit numbers as strings, bytes as base64, enums by name).
 * The SDK's historyToJSON is not used: @temporalio/common carries a protobufjs copy of its own that
 * does not recognise @temporalio/proto's classes.
 */
const toJson = (history: IHistory) =>
  History.toObject(History.create(history), { longs: String, enums: String, bytes: String });
export const historyFromFixture = (fixture: CapturedHistory) =>
  History.fromObject(fixture.history as Record<string, unknown>);

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const HISTORIES_DIR = path.join(repoRoot, 'test', 'replay', 'histories');

export interface CapturedHistory {
  payrun: { version: string; commit: string };
  workflowType: string;
  case: string;
  workflowId: string;
  capturedAt: string;
  events: number;
  history: unknown;
}

/**
 * `1` adds the cases that have no history yet and keeps the ones on file: histories recorded by earlier
 * versions are the fixtures of record. `replace` records every case again (only while no production data
 * exists; docs/workflow-versioning.md).
 */
const captureMode = () => process.env.PAYRUN_CAPTURE_HISTORIES;
export const capturing = () => captureMode() === '1' || captureMode() === 'replace';

function payrunVersion(): CapturedHistory['payrun'] {
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).stdout.trim();
  const dirty = git('status', '--porcelain', '--', 'workflows').length > 0;
  return { version, commit: `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+changes' : ''}` };
}

const workflowTypeOf = (history: IHistory) =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? 'unknown';

/**
 * Saves the history of `workflowId` (its latest run) as `caseName`, once it has closed (unless
 * `stillOpen`: a subscription between cycles). With `everyRun`, a workflow that
 * continued as new is saved run by run, oldest first (`<case>-run1`, `-run2`, …): the first runs are
 * the ones that end in a continue-as-new.
 */
export async function captureHistory(
  client: Client,
  workflowId: string,
  caseName: string,
  options: { everyRun?: boolean; stillOpen?: boolean } = {},
): Promise<void> {
  if (!capturing()) return;
  // A fixture of a finished process holds its whole story; a failed one is a fixture too. Asked by
  // describe(), not result(): on the time-skipping server, awaiting a result moves time for everyone.
  if (!options.stillOpen)
    await eventually(async () => {
      const { status } = await client.workflow.getHandle(workflowId).describe();
      expect(status.name, `${workflowId} to close before it is captured`).not.toBe('RUNNING');
    });
  const runs: IHistory[] = [];
  let runId: string | undefined;
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift(history);
    runId = options.everyRun
      ? history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined
      : undefined;
  } while (runId);

  const payrun = payrunVersion();
  runs.forEach((history, index) => {
    const workflowType = workflowTypeOf(history);
    const name = runs.length > 1 ? `${caseName}-run${index + 1}` : caseName;
    const fixture: CapturedHistory = {
      payrun,
      workflowType,
      case: name,
      workflowId,
      capturedAt: new Date().toISOString(),
      events: history.events?.length ?? 0,
      history: toJson(history),
    };
    const file = path.join(HISTORIES_DIR, workflowType, `${name}.json`);
    if (fs.existsSync(file) && captureMode() !== 'replace') return;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  });
}
