/**
 * The billing run: one workflow per billing day charges, in chunks, the cycles that subscriptions'
 * workflows handed over to it, and tells each workflow its cycle's outcome by one signal
 * (docs/subscriptions.md "A billing day").
 */
import { defineSignal } from '@temporalio/workflow';

/** One run per task queue (a deployment's workers) and day: deployments sharing a Temporal namespace never share one. */
export const billingRunWorkflowId = (dueDate: string, taskQueue: string) =>
  `billing-run/${taskQueue}/${dueDate}`;

/** The day a billing run's workflow id names (its last segment), or undefined for another id. */
export function billingRunDayOf(workflowId: string): string | undefined {
  if (!workflowId.startsWith('billing-run/')) return undefined;
  const day = workflowId.slice(workflowId.lastIndexOf('/') + 1);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : undefined;
}

export interface BillingRunInput {
  /** Charges the cycles handed over whose date is this day or earlier (GMT+7, YYYY-MM-DD). */
  day: string;
  /** Subscriptions per chunk activity. */
  chunkSize: number;
  /** Charges at once inside one chunk. */
  concurrency: number;
  /**
   * The billing hour (GMT+7) of the subscriptions it charges: the next day's run, which this run's
   * successes hand the next cycles to, starts at it. Absent in runs started before it was carried:
   * DEFAULT_SUBSCRIPTION_TIMING's.
   */
  billingHourGmt7?: number;
  /**
   * Chunks charged side by side, each a queued activity that any worker may take (no eager dispatch back to
   * the run's own worker). Absent in runs started before it: one chunk after another.
   */
  parallelChunks?: number;
  /** Carried by continue-as-new: the chunks charged by earlier runs of this workflow. */
  chunksDone?: number;
  charged?: number;
}

export interface BillingRunSummary {
  day: string;
  chunks: number;
  charged: number;
}

/** One cycle handed over, as the run reads it from the subscription's row. */
export interface HandedCycle {
  subscriptionId: string;
  cycle: number;
  amount: number;
  dueDate: string;
}

export interface ChargeChunk {
  day: string;
  runId: string;
  chunk: number;
  cycles: HandedCycle[];
  concurrency: number;
  /** Chunks of the run charging beside this one (itself included): each spaces its charges at its share. */
  chunksAtOnce?: number;
  /** The run's billing hour: the next cycles' day's run starts at it (BillingRunInput). */
  billingHourGmt7?: number;
}

export interface ChunkOutcome {
  /** Cycles this chunk charged (or found charged by an earlier attempt of it). */
  charged: number;
  /** Cycles no longer handed over when the chunk reached them (paused, cancelled, taken back). */
  skipped: number;
  /**
   * Charges are held: nothing more was claimed, and the workflows of the day's unclaimed cycles were told to
   * charge them themselves, honouring the hold.
   */
  held: boolean;
}

/**
 * What the run did with the cycle a workflow handed over: signalled when it did not succeed, read from the
 * rows at the end of the workflow's grace when it did.
 */
export interface BillingRunCharge {
  /** The charge's answer, as subscription/pay's activity gives it (CycleChargeResult). */
  outcome: 'succeeded' | 'failed' | 'pending';
  resultCode: number;
  message: string;
  transId?: string;
  /** Present when the success also recorded the subscription's next cycle. */
  billed?: { nextCycle: number; nextPaymentDate: string };
  subscriptionId: string;
  cycle: number;
  billingRunId: string;
  chunk: number;
  /** The run's success also handed the next cycle over (same amount), in the same transaction. */
  handedNext?: { cycle: number; dueDate: string };
}

export const billingRunChargeSignal = defineSignal<[BillingRunCharge]>('billingRunCharge');

/**
 * The run met a charge hold before claiming this cycle: the workflow takes it back at once and charges it
 * itself, stopping at the hold, where the hold lists it and its release paces it.
 */
export interface BillingRunHeld {
  subscriptionId: string;
  cycle: number;
  billingRunId: string;
}

export const billingRunHeldSignal = defineSignal<[BillingRunHeld]>('billingRunHeld');

export interface HandOver {
  subscriptionId: string;
  cycle: number;
  amount: number;
  dueDate: string;
  /**
   * How long from now (workflow time, when the hand-over was decided) the day's run starts: the cycle's
   * billing hour, 0 when it has passed. Measured by the workflow, whose clock is the one its timers keep.
   */
  runStartsInMs: number;
  /** The subscription's billing hour (GMT+7), carried by the day's run to the runs after it. */
  billingHourGmt7?: number;
}

export interface BillingRunActivities {
  /** Writes the hand-over on the subscription's row and makes sure the due day's run exists. */
  handOverCycle(input: HandOver): Promise<void>;
  /** Clears a hand-over of this cycle; a run that claimed it first charged the same order. */
  takeBackCycle(input: { subscriptionId: string; cycle: number }): Promise<void>;
  /**
   * At the end of the workflow's grace: the run's success on this cycle, read from the rows (a success is
   * not signalled); otherwise the hand-over is taken back and undefined returned.
   */
  settleHandedCycle(input: { subscriptionId: string; cycle: number }): Promise<BillingRunCharge | undefined>;
  /** The next cycles handed over, due by the day and not yet claimed. */
  findHandedCycles(input: { day: string; limit: number }): Promise<HandedCycle[]>;
  /** Charges one chunk, heartbeating progress; signals each workflow a charge that did not succeed. */
  chargeHandedChunk(input: ChargeChunk): Promise<ChunkOutcome>;
}

/**
 * Chunks of 200 charged 32 at once: the gateway client's own pool, one chunk's heartbeat well inside a minute.
 * Two chunks side by side, so the two workers of the deployed shape both charge (BILLING_RUN_PARALLEL_CHUNKS
 * sets it for more workers).
 */
export const DEFAULT_BILLING_RUN = { chunkSize: 200, concurrency: 32, parallelChunks: 2 } as const;
