/**
 * The payment desk's chunk (docs/payments.md, "The payment desk"): it makes the creates of payments queued for
 * the desk with `createPayment`, the same code a payment's own workflow runs first, and announces each answer
 * to the API process whose create call waits for it. A payment answered with the customer's links stays on the
 * desk, without a workflow: its notification is recorded by the relay (api/payments/notifications.ts). The
 * chunk hands a payment to a workflow of its own when its create keeps failing, and when its result has not
 * come within `ipnTimeout`, since only a workflow asks the gateway with growing waits.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { durationMs, kindOf, payrunKind, payrunOrderId } from '../../contracts/shared';
import {
  decidedStatus,
  isFinalPaymentCode,
  paymentDeskChunkId,
  paymentInputFromDesk,
  type PaymentDeskActivities,
  type PaymentDeskChunk,
  type PaymentDeskChunkOutcome,
  type PaymentInput,
} from '../../contracts/payments';
import {
  announcePaymentsAnswered,
  claimDeskPayments,
  handOverDeskPayment,
  overdueDeskPayments,
  unansweredOfChunk,
  type DeskPaymentRow,
} from '../../db/payments/payment-desk';
import { freeNotificationsOf } from '../../db/shared/ipn-notifications';
import { bindActivities } from '../shared/bind';
import { coalescedAnnouncer } from '../shared/desk-announcer';
import { runDeskChunk, whenDue } from '../shared/desk-chunk';
import { createPayment, recordPaymentResult, type PaymentActivityDependencies } from './payments';

export const createPaymentDeskActivities = (deps: PaymentActivityDependencies): PaymentDeskActivities =>
  bindActivities(deps, { createDeskPayments });

/**
 * An idle chunk looks for new creates after 10 ms, doubling up to 100: a create call waits for its answer,
 * so the desk's pause is part of it (a claim is one indexed statement).
 */
const IDLE_WAIT_MS = { first: 10, longest: 100 } as const;

/** How often a chunk looks for payments whose result is overdue, and how many it hands over at a time. */
const OVERDUE_EVERY_MS = 5_000;
const OVERDUE_AT_ONCE = 50;

const announceAnswered = coalescedAnnouncer(announcePaymentsAnswered);

export async function createDeskPayments(
  deps: PaymentActivityDependencies,
  input: PaymentDeskChunk,
): Promise<PaymentDeskChunkOutcome> {
  const context = Context.current();
  const chunkId = paymentDeskChunkId(input.deskWorkflowId, input.chunk);
  const outcome: PaymentDeskChunkOutcome = { chunk: input.chunk, answered: [], settled: [], handedOver: [] };
  const ipnTimeoutMs = durationMs(input.timing.ipnTimeout);
  const handOverWhenDue = whenDue(OVERDUE_EVERY_MS, () =>
    handOverOverdue(deps, input, new Date(Date.now() - ipnTimeoutMs), outcome),
  );
  const claim = async (room: number) => {
    await handOverWhenDue();
    return claimDeskPayments(deps.db, { deskWorkflowId: input.deskWorkflowId, chunkId }, room);
  };
  await handOverWhenDue();
  await runDeskChunk<DeskPaymentRow>({
    concurrency: input.concurrency,
    chunkMs: input.chunkMs,
    idleWaitMs: IDLE_WAIT_MS,
    // A retried attempt first makes again the creates the one before it left unanswered.
    takenBack: context.info.attempt > 1 ? await unansweredOfChunk(deps.db, chunkId) : [],
    claim,
    handle: (row) => createOne(deps, input, row, outcome),
    progress: () => ({
      answered: outcome.answered.length,
      settled: outcome.settled.length,
      handedOver: outcome.handedOver.length,
    }),
  });
  return outcome;
}

/** One create, answered here or handed over; throws only when even the hand-over failed (the chunk is retried). */
async function createOne(
  deps: PaymentActivityDependencies,
  chunk: PaymentDeskChunk,
  row: DeskPaymentRow,
  outcome: PaymentDeskChunkOutcome,
): Promise<void> {
  const paymentId = row.payment_id;
  const created = await createPayment(deps, { paymentId }, row).catch((error: unknown) => {
    Context.current().log.warn('A desk payment goes on in a workflow of its own after an error', {
      paymentId,
      error: (error as Error).message,
    });
    return undefined;
  });
  if (created === undefined) {
    // Its workflow sends the create again: the gateway answers 40 if the first one reached it, and the query settles it.
    await handOver(deps, chunk, row);
    outcome.handedOver.push(paymentId);
  } else if (created.notice && isFinalPaymentCode(created.notice.resultCode)) {
    // A refusal, or (after a 40) the query's final answer: the payment ends here, as its workflow would end it.
    await recordPaymentResult(deps, {
      paymentId,
      status: decidedStatus(created.notice.resultCode, row.auto_capture),
      notice: created.notice,
    });
    outcome.settled.push(paymentId);
  } else if (created.notice) {
    await handOver(deps, chunk, row, 'pending');
    outcome.handedOver.push(paymentId);
  } else {
    outcome.answered.push(paymentId);
  }
  announceAnswered(deps.db, paymentId);
}

/**
 * Payments whose notification has not come within `ipnTimeout`, and creates claimed that long ago and never
 * answered: their own workflow goes on from the record (db/payments/payment-desk.ts).
 */
async function handOverOverdue(
  deps: PaymentActivityDependencies,
  chunk: PaymentDeskChunk,
  since: Date,
  outcome: PaymentDeskChunkOutcome,
): Promise<void> {
  const overdue = await overdueDeskPayments(deps.db, chunk.deskWorkflowId, since, OVERDUE_AT_ONCE);
  for (const row of overdue) {
    const answered =
      row.status === 'created' ? undefined : row.status === 'pending' ? 'pending' : 'awaiting_customer';
    await handOver(deps, chunk, row, answered);
    outcome.handedOver.push(row.payment_id);
  }
}

/**
 * The payment's own workflow, started before its record stops naming the desk: a crash between the two leaves a
 * record the next chunk hands over again (the start then finds the workflow). A notification that came while
 * the create was under way waits in the inbox and is freed now.
 */
async function handOver(
  deps: PaymentActivityDependencies,
  chunk: PaymentDeskChunk,
  row: DeskPaymentRow,
  answered?: PaymentInput['answered'],
): Promise<void> {
  const { client, info } = Context.current();
  const paymentId = row.payment_id;
  try {
    await client.workflow.start('payment', {
      taskQueue: info.taskQueue,
      workflowId: row.workflow_id,
      args: [
        paymentInputFromDesk(
          { paymentId, requestType: row.request_type, autoCapture: row.auto_capture },
          chunk.timing,
          answered,
        ),
      ],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Payment ${paymentId}: ${row.amount} VND by ${row.request_type} (from the desk)`,
      typedSearchAttributes: [
        { key: payrunKind, value: kindOf('payment') },
        { key: payrunOrderId, value: paymentId },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await handOverDeskPayment(deps.db, paymentId);
  await freeNotificationsOf(deps.db, row.order_id);
}
