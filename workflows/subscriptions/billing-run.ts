/**
 * One billing day: the cycles that subscriptions' workflows handed over, charged in chunks. The run's
 * history grows by two activities per chunk, not by the charges: 10,000 charges are 50 chunks of 200.
 * Each chunk names this run and its number on the charge rows it claims, so a charge is findable from the
 * subscription (its timeline) and from the run (its workflow id in the Temporal UI).
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import type { BillingRunActivities, BillingRunInput, BillingRunSummary } from '../../contracts/subscriptions';

const records = recordsOf<BillingRunActivities>();
/**
 * A chunk runs as long as its charges take; its heartbeat (after each charge) says it is alive, and a
 * retry after a lost worker starts after the last charge it reported.
 */
const CHUNK_PROFILE = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
} as const;
const chunks = proxyActivities<BillingRunActivities>(CHUNK_PROFILE);
/**
 * Chunks side by side go through the task queue, where every worker polls: eager dispatch would hand them
 * all back to the worker that completed the run's task, one process's thread charging for all of them.
 */
const spreadChunks = proxyActivities<BillingRunActivities>({ ...CHUNK_PROFILE, allowEagerDispatch: false });

/** Chunks per run before continue-as-new keeps the history small. */
const CHUNKS_PER_RUN = 100;

export async function billingRun(input: BillingRunInput): Promise<BillingRunSummary> {
  let chunk = input.chunksDone ?? 0;
  let charged = input.charged ?? 0;
  const runId = workflowInfo().workflowId;
  // A run started before parallelChunks was carried charges one chunk at a time, as its history did.
  const parallel = Math.max(1, input.parallelChunks ?? 1);
  const charger = parallel > 1 ? spreadChunks : chunks;
  for (let thisRun = 0; ; thisRun += parallel) {
    if (thisRun >= CHUNKS_PER_RUN)
      await continueAsNew<typeof billingRun>({ ...input, chunksDone: chunk, charged });
    // One search for every chunk of the round: no two chunks of a round hold the same cycle, and the next
    // search comes after they all ended, when what they charged is no longer handed over.
    const cycles = await records.findHandedCycles({ day: input.day, limit: input.chunkSize * parallel });
    if (cycles.length === 0) break;
    const round = slicesOf(cycles, input.chunkSize);
    const outcomes = await Promise.all(
      round.map((slice, index) =>
        charger.chargeHandedChunk({
          day: input.day,
          runId,
          chunk: chunk + index + 1,
          cycles: slice,
          concurrency: input.concurrency,
          ...(parallel > 1 && { chunksAtOnce: round.length }),
          ...(input.billingHourGmt7 !== undefined && { billingHourGmt7: input.billingHourGmt7 }),
        }),
      ),
    );
    chunk += round.length;
    const chargedInRound = outcomes.reduce((sum, outcome) => sum + outcome.charged, 0);
    charged += chargedInRound;
    // Held, or nothing could be claimed: the workflows charge after their grace, through their own checks.
    if (outcomes.some((outcome) => outcome.held) || chargedInRound === 0) break;
  }
  return { day: input.day, chunks: chunk, charged };
}

function slicesOf<T>(items: readonly T[], size: number): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += size) slices.push(items.slice(start, start + size));
  return slices;
}
