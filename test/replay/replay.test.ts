/**
 * Safe deploys: every stored history (test/replay/histories, captured with `npm run histories:capture`
 * by this and earlier versions of payrun) replays with the current workflow code. A change that would
 * stop running workflows with a nondeterminism error in production fails here first, naming the
 * workflow, the case and the event. docs/workflow-versioning.md says how to ship such a change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import * as workflows from '../../workflows';
import { HISTORIES_DIR, historyFromFixture, type CapturedHistory } from '../support/history-capture';
import { installQuietRuntime, testDataConverter } from '../support/temporal';

/** Workflow types without stored histories, each with the reason it cannot be caught by a deploy. */
const NOT_REPLAYED: Record<string, string> = {
  stackCheck: 'the self-check of `npm run dev`: one activity, awaited by the process that starts it',
};

const fixtures = fs
  .readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort();

/** Replays one captured history; a failure names what broke and which version recorded it. */
export async function replayFixture(file: string, workflowBundlePath: string): Promise<CapturedHistory> {
  const fixture = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as CapturedHistory;
  installQuietRuntime();
  try {
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: workflowBundlePath },
        dataConverter: testDataConverter,
        replayName: `${fixture.workflowType}/${fixture.case}`,
      },
      historyFromFixture(fixture),
      fixture.workflowId,
    );
  } catch (error) {
    throw new Error(
      `${fixture.workflowType} "${fixture.case}" (recorded by payrun ${fixture.payrun.version} at ` +
        `${fixture.payrun.commit}, ${fixture.events} events) does not replay with this code: ` +
        `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      { cause: error },
    );
  }
  return fixture;
}

describe('replaying stored histories with the current workflow code', () => {
  it('has histories of every workflow type the worker registers', () => {
    const types = new Set(fixtures.map((file) => file.split(path.sep)[0]));
    const registered = Object.keys(workflows).filter((type) => !(type in NOT_REPLAYED));
    expect(registered.filter((type) => !types.has(type))).toEqual([]);
  });

  it.each(fixtures)('%s', async (file) => {
    const fixture = await replayFixture(file, inject('workflowBundlePath'));
    expect(fixture.events).toBeGreaterThan(0);
  });
});
