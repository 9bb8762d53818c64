/**
 * The disbursement desk: single disbursements answered at once, paid in chunks by one long-lived workflow
 * instead of a workflow each (docs/payout-runs.md, "The disbursement desk"). Pure code: the API, activities,
 * db/ and the workflow import it.
 */
import type { Duration } from '@temporalio/common';

/** One desk per task queue: the API starts it when a payout is queued for it; every later one joins it. */
export const disbursementDeskWorkflowId = (taskQueue: string) => `disbursement-desk/${taskQueue}`;

/** The chunk of a desk that claimed a payout: written on its record, named in the chunk's result. */
export const deskChunkId = (deskWorkflowId: string, chunk: number) => `${deskWorkflowId}#${chunk}`;

/** What every payout of the desk is made with (the API's settings when it started the desk). */
export interface DeskPayoutTiming {
  gatewayAttemptTimeout: Duration;
  resultWait: Duration;
  ipnTimeout: Duration;
}

export interface DisbursementDeskInput {
  timing: DeskPayoutTiming;
  /** Chunks claiming side by side, each on whichever worker polls first. */
  parallelChunks: number;
  /** Payouts one chunk makes at once. */
  concurrency: number;
  /** How long a chunk takes payouts before it ends and the desk starts the next (its history stays small). */
  chunkMs: number;
  /** Chunks ended before this run (continue-as-new). */
  chunksDone?: number;
}

export const DEFAULT_DISBURSEMENT_DESK: Omit<DisbursementDeskInput, 'timing'> = {
  parallelChunks: 2,
  concurrency: 16,
  chunkMs: 30_000,
};

export interface DeskChunk {
  deskWorkflowId: string;
  chunk: number;
  timing: DeskPayoutTiming;
  concurrency: number;
  chunkMs: number;
}

/**
 * What one chunk did, by disbursement id: the payouts it settled, those it handed to a workflow of their own
 * (answered pending, held, or a gateway call that kept failing), which go on there, and those it could not read.
 */
export interface DeskChunkOutcome {
  chunk: number;
  succeeded: string[];
  failed: string[];
  handedOver: string[];
  /**
   * Payouts whose sealed receiver this worker's keyring cannot open (its key was removed): nothing was sent,
   * they stay queued and the next chunk tries again (docs/when-paged.md).
   */
  notOpened: string[];
}

export interface DisbursementDeskActivities {
  payDeskChunk(input: DeskChunk): Promise<DeskChunkOutcome>;
}
