/**
 * What every desk (disbursements, payments) does: rounds of chunk activities side by side, numbered on from the
 * run before, then continue-as-new so the history stays small. Each chunk is one activity however many items it
 * handles; its result names them, and each item's record names its chunk.
 */
import { continueAsNew, workflowInfo, type ActivityOptions } from '@temporalio/workflow';

/**
 * Every desk's chunk activity: it runs for its `chunkMs` and the items under way at its end; its heartbeat says it
 * is alive, and a retry after a lost worker takes back what it had claimed. Not eager: chunks side by side go
 * through the task queue, so each worker can take one (eager dispatch would hand them all to the worker that
 * scheduled them).
 */
export const DESK_CHUNK_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  allowEagerDispatch: false,
};

/** Rounds of chunks before continue-as-new keeps the history small. */
const ROUNDS_PER_RUN = 100;

export interface DeskRun {
  parallelChunks: number;
  /** Chunks ended before this run (continue-as-new). */
  chunksDone?: number;
}

export async function runDeskRounds<Input extends DeskRun>(
  input: Input,
  chunk: (deskWorkflowId: string, chunkNumber: number) => Promise<unknown>,
): Promise<never> {
  const { workflowId } = workflowInfo();
  let done = input.chunksDone ?? 0;
  const parallel = Math.max(1, input.parallelChunks);
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    await Promise.all(Array.from({ length: parallel }, (_, index) => chunk(workflowId, done + index + 1)));
    done += parallel;
  }
  return continueAsNew({ ...input, chunksDone: done });
}
