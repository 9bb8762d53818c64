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
const chunks = proxyActivities<BillingRunActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

/** Chunks per run before continue-as-new keeps the history small. */
const CHUNKS_PER_RUN = 100;

export async function billingRun(input: BillingRunInput): Promise<BillingRunSummary> {
  let chunk = input.chunksDone ?? 0;
  let charged = input.charged ?? 0;
  const runId = workflowInfo().workflowId;
  for (let thisRun = 0; ; thisRun++) {
    if (thisRun >= CHUNKS_PER_RUN)
      await continueAsNew<typeof billingRun>({ ...input, chunksDone: chunk, charged });
    const cycles = await records.findHandedCycles({ day: input.day, limit: input.chunkSize });
    if (cycles.length === 0) break;
    chunk += 1;
    const outcome = await chunks.chargeHandedChunk({
      day: input.day,
      runId,
      chunk,
      cycles,
      concurrency: input.concurrency,
      ...(input.billingHourGmt7 !== undefined && { billingHourGmt7: input.billingHourGmt7 }),
    });
    charged += outcome.charged;
    // Held, or nothing could be claimed: the workflows charge after their grace, through their own checks.
    if (outcome.held || outcome.charged === 0) break;
  }
  return { day: input.day, chunks: chunk, charged };
}
