/**
 * The payment desk: one-time payments created in chunks by one long-lived workflow, each held by the desk
 * (no workflow of its own) until it needs one (docs/payments.md, "The payment desk"). Pure code: the API,
 * activities, db/ and the workflows import it.
 */
import type { PaymentInput, PaymentRequestType, PaymentTiming } from './payments';

/** One desk per task queue: the API starts it when a payment is queued for it; every later one joins it. */
export const paymentDeskWorkflowId = (taskQueue: string) => `payment-desk/${taskQueue}`;

/** The chunk of a desk that made a payment's create: written on its record, named in the chunk's result. */
export const paymentDeskChunkId = (deskWorkflowId: string, chunk: number) => `${deskWorkflowId}#${chunk}`;

export interface PaymentDeskInput {
  /** What every payment of the desk is made with, and its workflow when it gets one (the API's settings). */
  timing: PaymentTiming;
  /** Chunks claiming side by side, each on whichever worker polls first. */
  parallelChunks: number;
  /** Creates one chunk makes at once. */
  concurrency: number;
  /** How long a chunk takes payments before it ends and the desk starts the next (its history stays small). */
  chunkMs: number;
  /** Chunks ended before this run (continue-as-new). */
  chunksDone?: number;
}

export const DEFAULT_PAYMENT_DESK: Omit<PaymentDeskInput, 'timing'> = {
  parallelChunks: 2,
  concurrency: 16,
  chunkMs: 30_000,
};

export interface PaymentDeskChunk {
  deskWorkflowId: string;
  chunk: number;
  timing: PaymentTiming;
  concurrency: number;
  chunkMs: number;
}

/**
 * What one chunk did, by payment id: the creates answered with the customer's links (the payment waits on the
 * desk for its notification), those the gateway settled at once (refused), and those handed to a workflow of
 * their own (a create that kept failing, or a payment whose notification did not come within `ipnTimeout`).
 */
export interface PaymentDeskChunkOutcome {
  chunk: number;
  answered: string[];
  settled: string[];
  handedOver: string[];
}

export interface PaymentDeskActivities {
  createDeskPayments(input: PaymentDeskChunk): Promise<PaymentDeskChunkOutcome>;
}

/** The requestTypes the desk takes: every api/create type whose result ends the payment (no capture to decide). */
export const takenByPaymentDesk = (payment: { requestType: PaymentRequestType; autoCapture: boolean }) =>
  payment.requestType !== 'pos' && payment.autoCapture;

/** The input of a desk payment's own workflow, the one the API gives a payment it does not queue. */
export const paymentInputFromDesk = (
  payment: { paymentId: string; requestType: PaymentRequestType; autoCapture: boolean },
  timing: PaymentTiming,
  answered?: PaymentInput['answered'],
): PaymentInput => ({
  paymentId: payment.paymentId,
  requestType: payment.requestType,
  autoCapture: payment.autoCapture,
  timing,
  ...(answered !== undefined ? { answered } : {}),
});
