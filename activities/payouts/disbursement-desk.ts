/**
 * The disbursement desk's chunk: it claims queued desk payouts and makes each with `disburse`, the same
 * activity code a payout's own workflow runs, `concurrency` at once, for `chunkMs`. A payout the gateway
 * settles at once (paid, refused, balance short) ends here, written on its record and named in the chunk's
 * result. Every other one is handed to a workflow of its own, started with the input the API would have
 * given it: answered pending (it waits for the notification and asks), held (it waits for the release), or a
 * gateway call that failed (it retries with the workflow's profile). That workflow's `disburse` reads the
 * record first, so it sends nothing the chunk already sent.
 *
 * Paid at most once: a payout's orderId and pay requestId are derived from its id. A chunk retried after its
 * worker was lost takes back the payouts it had claimed and left unsettled; `disburse` resumes each from its
 * record, and a pay sent before the crash is answered 40 and settled by api/query (gateway/README.md,
 * assumption 21), never sent as a second payment.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import {
  deskChunkId,
  disbursementWorkflowId,
  type DeskChunk,
  type DeskChunkOutcome,
  type DisbursementDeskActivities,
  type DisbursementInput,
  type DisbursementReceiver,
} from '../../contracts/payouts';
import { kindOf, payrunKind, payrunOrderId } from '../../contracts/shared';
import { disbursementHoldKind } from '../../contracts/holds';
import {
  claimDeskDisbursements,
  handOverDeskDisbursement,
  openDeskReceiver,
  releaseDeskClaims,
  staleDeskClaims,
  unsettledOfChunk,
  type DeskDisbursementRow,
} from '../../db/payouts/disbursement-desk';
import type { CodecKeyring } from '../../platform/payload-codec';
import { bindActivities } from '../shared/bind';
import { freeNotificationsOf } from '../../db/shared/ipn-notifications';
import { holdStopping } from '../holds/holds';
import { runDeskChunk, whenDue } from '../shared/desk-chunk';
import { disburse, type DisbursementActivityDeps } from './disbursements';

export interface DisbursementDeskDeps extends DisbursementActivityDeps {
  /** Opens the receivers the API sealed on the desk's records (the payload codec keyring). */
  keyring: CodecKeyring;
}

export const createDisbursementDeskActivities = (deps: DisbursementDeskDeps): DisbursementDeskActivities =>
  bindActivities(deps, { payDeskChunk });

/** How long an idle chunk waits before it looks for new payouts again, doubling up to the longest. */
const IDLE_WAIT_MS = { first: 20, longest: 500 } as const;

/** The statuses in which nothing has been sent to pay yet: a hold still stops these. */
const BEFORE_PAY: ReadonlyArray<DeskDisbursementRow['status']> = [
  'queued',
  'checking_wallet',
  'checking_balance',
];

export async function payDeskChunk(deps: DisbursementDeskDeps, input: DeskChunk): Promise<DeskChunkOutcome> {
  const context = Context.current();
  const chunkId = deskChunkId(input.deskWorkflowId, input.chunk);
  const outcome: DeskChunkOutcome = {
    chunk: input.chunk,
    succeeded: [],
    failed: [],
    handedOver: [],
    notOpened: [],
  };
  const handOverWhenDue = whenDue(STALE_EVERY_MS, () => handOverStale(deps, input, outcome));
  await handOverWhenDue();
  await runDeskChunk<DeskDisbursementRow>({
    concurrency: input.concurrency,
    chunkMs: input.chunkMs,
    idleWaitMs: IDLE_WAIT_MS,
    // A retried attempt first takes back what the one before it claimed and left.
    takenBack: context.info.attempt > 1 ? await unsettledOfChunk(deps.db, chunkId) : [],
    claim: async (room) => {
      await handOverWhenDue();
      return claimDeskDisbursements(deps.db, { deskWorkflowId: input.deskWorkflowId, chunkId }, room);
    },
    handle: (row) => payOne(deps, input, row, outcome),
    progress: () => outcomeCounts(outcome),
  }).finally(
    // Released only at the end: released at once, the oldest such payout would be claimed again on the next claim.
    () => releaseDeskClaims(deps.db, outcome.notOpened),
  );
  return outcome;
}

const outcomeCounts = (outcome: DeskChunkOutcome) => ({
  succeeded: outcome.succeeded.length,
  failed: outcome.failed.length,
  handedOver: outcome.handedOver.length,
});

/** One payout, settled here or handed over; throws only when even the hand-over failed (the chunk is retried). */
async function payOne(
  deps: DisbursementDeskDeps,
  chunk: DeskChunk,
  row: DeskDisbursementRow,
  outcome: DeskChunkOutcome,
): Promise<void> {
  const receiver = openedReceiver(deps, row);
  if (!receiver) {
    outcome.notOpened.push(row.disbursement_id);
    return;
  }
  const payout = payoutOf(row, receiver, chunk);
  const held =
    BEFORE_PAY.includes(row.status) &&
    (await holdStopping(deps.db, disbursementHoldKind(payout.receiver.kind)));
  if (!held) {
    // Anything but a final answer (a call that kept failing, a hold met inside) goes on in the workflow.
    const answer = await disburse(deps, payout).catch((error: unknown) => {
      Context.current().log.warn('A desk payout goes on in a workflow of its own after an error', {
        disbursementId: payout.disbursementId,
        error: (error as Error).message,
      });
      return undefined;
    });
    if (answer?.outcome === 'succeeded' || answer?.outcome === 'failed') {
      outcome[answer.outcome].push(payout.disbursementId);
      return;
    }
  }
  await handOver(deps, row, payout);
  outcome.handedOver.push(payout.disbursementId);
}

/** What the payout's own workflow gets, here or after a hand-over: the input the API would have given it. */
const payoutOf = (
  row: DeskDisbursementRow,
  receiver: DisbursementReceiver,
  chunk: DeskChunk,
): DisbursementInput => ({
  disbursementId: row.disbursement_id,
  amount: Number(row.amount),
  description: row.description,
  receiver,
  ...chunk.timing,
  disburseInWorkflowTask: true,
});

/** How old a claim must be, untouched, before another chunk hands its payout over, and how often chunks look. */
const STALE_CLAIM_MS = 10 * 60_000;
const STALE_EVERY_MS = 5_000;
const STALE_AT_ONCE = 50;

/**
 * Payouts a chunk claimed and left unsettled with nothing written for `STALE_CLAIM_MS` (its desk was terminated,
 * so no retry of that chunk takes them back): each goes on in its own workflow, whose `disburse` reads the record
 * first (a pay already sent is settled by api/query, never sent again). A chunk at work writes each step, and one
 * whose worker is lost is retried within a minute, so no payout under way is ever this old.
 */
async function handOverStale(deps: DisbursementDeskDeps, chunk: DeskChunk, outcome: DeskChunkOutcome) {
  const since = new Date(Date.now() - STALE_CLAIM_MS);
  for (const row of await staleDeskClaims(deps.db, chunk.deskWorkflowId, since, STALE_AT_ONCE)) {
    const receiver = openedReceiver(deps, row);
    if (!receiver) continue;
    await handOver(deps, row, payoutOf(row, receiver, chunk));
    outcome.handedOver.push(row.disbursement_id);
  }
}

/** The receiver the API sealed, or nothing (said in the log) when this worker's keyring cannot open it. */
function openedReceiver(
  deps: DisbursementDeskDeps,
  row: DeskDisbursementRow,
): DisbursementReceiver | undefined {
  try {
    return openDeskReceiver(row, deps.keyring);
  } catch (error) {
    Context.current().log.error(
      "A desk payout's receiver does not open with this worker's keyring: it stays queued (docs/when-paged.md)",
      { disbursementId: row.disbursement_id, error: (error as Error).message },
    );
    return undefined;
  }
}

/**
 * The payout's own workflow, started before its record names it: a crash between the two leaves a record
 * the retried chunk hands over again (the start then finds the workflow), and a notification that arrives
 * meanwhile waits in the inbox (api/payouts/notifications.ts) instead of reaching the desk.
 */
async function handOver(deps: DisbursementDeskDeps, row: DeskDisbursementRow, payout: DisbursementInput) {
  const { client, info } = Context.current();
  const workflowId = disbursementWorkflowId(payout.disbursementId);
  try {
    await client.workflow.start('disbursement', {
      taskQueue: info.taskQueue,
      workflowId,
      args: [payout],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Disbursement ${payout.disbursementId}: ${payout.amount} VND to ${row.receiver_label} (from the desk)`,
      typedSearchAttributes: [
        { key: payrunKind, value: kindOf('disbursement') },
        { key: payrunOrderId, value: payout.disbursementId },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await handOverDeskDisbursement(deps.db, payout.disbursementId);
  // Its notification, if it came while the desk held it, is signalled now rather than after the relay's interval.
  await freeNotificationsOf(deps.db, row.order_id);
}
