/**
 * The billing run's activities: the hand-over written by a subscription's workflow, and the chunk that
 * charges handed-over cycles. A chunk charges with the same order (`<id>-c<cycle>`, same requestId) the
 * workflow would have sent, so a retried chunk, a crash between the gateway's answer and the write, or a
 * workflow that charges after its grace are all the same order: the gateway answers 40/41 and the charge
 * is settled by api/query, never sent as a second payment.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import {
  billingRunWorkflowId,
  chargeOrderId,
  cycleDate,
  dayOfGmt7,
  DEFAULT_BILLING_RUN,
  DEFAULT_SUBSCRIPTION_TIMING,
  instantOf,
  billingRunChargeSignal,
  billingRunHeldSignal,
  subscriptionWorkflowId,
  type BillingRunActivities,
  type BillingRunCharge,
  type ChargeChunk,
  type ChunkOutcome,
  type CycleCharge,
  type CycleChargeResult,
  type HandedCycle,
  type HandOver,
} from '../../contracts/subscriptions';
import { requestIdFor } from '../../gateway/ids';
import {
  findHanded,
  handOver,
  searchHanded,
  stopSearching,
  takeBack,
} from '../../db/subscriptions/billing-runs';
import {
  claimHandedCycle,
  getCharge,
  requireSubscription,
  type SubscriptionRow,
} from '../../db/subscriptions/subscriptions';
import { holdStopping } from '../holds/holds';
import { HOLD_STATE_MAX_AGE_MS } from '../../contracts/holds';
import { bindActivities } from '../shared/bind';
import {
  chargeClaimedCycle,
  chargeSubscriptionCycle,
  type SubscriptionActivityDependencies,
} from './subscriptions';

type Deps = SubscriptionActivityDependencies;

export async function handOverCycle(deps: Deps, input: HandOver): Promise<void> {
  const { taskQueue } = Context.current().info;
  // The day's run searching still finds this hand-over: asking Temporal to start it would only be refused.
  if (!(await handOver(deps.db, input, taskQueue)))
    await startDaysRun(deps, input.dueDate, input.runStartsInMs, input.billingHourGmt7);
  // A cycle due now while charges are held: no run claims it, and a held run that is ending refuses the start
  // above. The workflow is told now, as the run tells the cycles it met, and stops at the hold where it is
  // listed. A cycle due later is left to its day's run, which checks the hold then.
  if (input.runStartsInMs <= 0 && (await holdStopping(deps.db, 'charge')))
    await signalUnlessEnded(input.subscriptionId, billingRunHeldSignal, {
      subscriptionId: input.subscriptionId,
      cycle: input.cycle,
      billingRunId: billingRunWorkflowId(input.dueDate, taskQueue),
    });
}

/**
 * How long a run's search speaks for it (billing_run_days): past this a hand-over starts the run again,
 * which Temporal refuses while it runs. Longer than a round of chunks takes at 100 charges/s; bounds the
 * hand-overs that wait for their workflow's grace when a run is terminated.
 */
export const RUN_SEARCH_LEASE_MS = 5 * 60_000;

/**
 * The due day's run, started at the billing hour (now, when that has passed). Started already: it picks
 * this cycle up on its next search. Closed already: a run of the same id starts again for the late ones.
 */
async function startDaysRun(
  deps: Pick<Deps, 'billingRunParallelChunks'>,
  day: string,
  delay: number,
  billingHourGmt7: number | undefined,
) {
  const { client, info } = Context.current();
  const sizes = {
    ...DEFAULT_BILLING_RUN,
    parallelChunks: deps.billingRunParallelChunks ?? DEFAULT_BILLING_RUN.parallelChunks,
  };
  try {
    await client.workflow.start('billingRun', {
      workflowId: billingRunWorkflowId(day, info.taskQueue),
      taskQueue: info.taskQueue,
      args: [{ day, ...sizes, ...(billingHourGmt7 !== undefined && { billingHourGmt7 }) }],
      ...(delay > 0 && { startDelay: delay }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * The end of a workflow's wait for the run. The run does not signal a success: the row holds it, and the
 * next cycle's hand-over was written with it, so the workflow reads it here when its grace ends (its
 * billing window costs Temporal nothing). Anything else takes the hand-over back, as takeBackCycle does,
 * and the workflow charges the same order itself: a run's claim in flight is then the same order twice,
 * which the gateway answers 40/41 and api/query settles.
 */
export async function settleHandedCycle(
  deps: Deps,
  input: { subscriptionId: string; cycle: number },
): Promise<BillingRunCharge | undefined> {
  const charge = await getCharge(deps.db, chargeOrderId(input.subscriptionId, input.cycle, 0));
  if (charge?.billing_run_id && charge.status === 'succeeded') {
    const paid: CycleChargeResult = {
      outcome: 'succeeded',
      resultCode: charge.result_code ?? 0,
      message: charge.message ?? '',
      ...(charge.trans_id && { transId: charge.trans_id }),
    };
    return noticeOf(deps, { runId: charge.billing_run_id, chunk: charge.billing_chunk ?? 0 }, input, paid);
  }
  await takeBack(deps.db, input.subscriptionId, input.cycle);
  return undefined;
}

export async function takeBackCycle(
  { db }: Deps,
  input: { subscriptionId: string; cycle: number },
): Promise<void> {
  await takeBack(db, input.subscriptionId, input.cycle);
}

export async function findHandedCycles(
  { db }: Deps,
  input: { day: string; limit: number },
): Promise<HandedCycle[]> {
  // The run's own queue: it charges only what workflows of its deployment handed over.
  return searchHanded(db, input.day, input.limit, Context.current().info.taskQueue, RUN_SEARCH_LEASE_MS);
}

/**
 * Charges the chunk's cycles, `concurrency` at once. The heartbeat carries how many leading cycles are
 * done (charged and their workflow told): a retried chunk starts after them; the ones after that mark
 * find their charge row and answer from it, or send the same order again.
 */
export async function chargeHandedChunk(deps: Deps, input: ChargeChunk): Promise<ChunkOutcome> {
  const outcome = await chargeChunk(deps, input);
  // A round held, or charging nothing in any chunk, is the run's last, with no search after it: from here
  // hand-overs start the run (Temporal refuses while it ends). A chunk charging nothing beside others that
  // did only costs those hand-overs a refused start.
  if (outcome.held || outcome.charged === 0)
    await stopSearching(deps.db, input.day, Context.current().info.taskQueue);
  return outcome;
}

async function chargeChunk(deps: Deps, input: ChargeChunk): Promise<ChunkOutcome> {
  const context = Context.current();
  const doneBefore = Number(context.info.heartbeatDetails ?? 0);
  // Held: nothing claimed; each workflow is told, and charges through its own hold check.
  if (await holdStopping(deps.db, 'charge')) {
    await tellHeldWorkflows(deps, input, () => context.heartbeat(doneBefore));
    return { charged: 0, skipped: 0, held: true };
  }
  const nextRuns = nextDaysRuns(deps, input);
  const finished = input.cycles.map((_, index) => index < doneBefore);
  let mark = doneBefore;
  const outcome: ChunkOutcome = { charged: doneBefore, skipped: 0, held: false };
  let next = doneBefore;
  // The chunks of a round share the limit, so the run as a whole keeps it.
  const paced = pacer(
    deps.subscriptionPayPerSecond && deps.subscriptionPayPerSecond / (input.chunksAtOnce ?? 1),
  );
  const worker = async () => {
    for (let index = next++; index < input.cycles.length && !outcome.held; index = next++) {
      await paced(() => context.heartbeat(mark));
      const done = await chargeHanded(deps, input, input.cycles[index]!, nextRuns);
      if (done === 'held') {
        // Held since the chunk began: no lane claims another cycle; those left go to their workflows' hold checks.
        outcome.held = true;
        break;
      }
      if (done === 'charged') outcome.charged += 1;
      else outcome.skipped += 1;
      finished[index] = true;
      while (mark < finished.length && finished[mark]) mark += 1;
      context.heartbeat(mark);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, input.concurrency) }, worker));
  if (outcome.held) await tellHeldWorkflows(deps, input, () => context.heartbeat(mark));
  return outcome;
}

/** Signals sent at once when a hold stops a run, and between two heartbeats. */
const TELL_AT_ONCE = 16;
const TELLS_PER_HEARTBEAT = 200;
/**
 * How long after its first telling a held run looks again. A hand-over checks the hold through its worker's
 * view, at most HOLD_STATE_MAX_AGE_MS old (plus one read), after writing its row: one that saw no hold wrote
 * its row before every worker's view held it. The margin covers that read and the row's commit.
 */
export const HELD_RUN_LOOKS_AGAIN_MS = HOLD_STATE_MAX_AGE_MS + 1_000;

/**
 * A charge hold stopped the run: every cycle of its day still handed over and unclaimed (this chunk's and
 * the ones no chunk reached) is told, so that its workflow takes it back at once and stops at the hold
 * itself, where GET /v1/holds lists and totals it and the release paces it. Left alone they would wait for
 * their grace (three hours by default), held but not listed. Chunks held side by side each tell the same
 * cycles: a second signal changes nothing. A retry tells again, for the same reason.
 *
 * It looks twice. A hand-over made within a second of the hold, whose worker's view did not hold it yet,
 * neither tells its own workflow nor came in time for the first search; the second search, once every
 * worker's view holds it, finds that one. Hand-overs after that see the hold and tell their own workflow.
 */
async function tellHeldWorkflows(deps: Deps, chunk: ChargeChunk, beat: () => void): Promise<void> {
  const told = new Set<string>();
  await tellHanded(deps, chunk, told, beat);
  beat();
  await Context.current().sleep(HELD_RUN_LOOKS_AGAIN_MS);
  await tellHanded(deps, chunk, told, beat);
}

async function tellHanded(
  deps: Deps,
  chunk: ChargeChunk,
  told: Set<string>,
  beat: () => void,
): Promise<void> {
  const cycles = (
    await findHanded(deps.db, chunk.day, Number.MAX_SAFE_INTEGER, Context.current().info.taskQueue)
  ).filter(({ subscriptionId, cycle }) => !told.has(`${subscriptionId}/${cycle}`));
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < cycles.length; index = next++) {
      if (index % TELLS_PER_HEARTBEAT === 0) beat();
      const { subscriptionId, cycle } = cycles[index]!;
      await signalUnlessEnded(subscriptionId, billingRunHeldSignal, {
        subscriptionId,
        cycle,
        billingRunId: chunk.runId,
      });
      told.add(`${subscriptionId}/${cycle}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TELL_AT_ONCE, cycles.length) }, lane));
}

/**
 * Spaces the chunk's charges at `perSecond`, evenly (no burst), whichever of its concurrent charges asks next.
 * The chunks side by side each get their share, so the run keeps the rate; two days' runs at once would each have it.
 * `alive` is called before a wait, so that a slow rate never looks like a lost worker.
 */
function pacer(perSecond: number | undefined): (alive: () => void) => Promise<void> {
  if (!perSecond) return async () => {};
  const gapMs = 1000 / perSecond;
  let nextAt = 0;
  return async (alive) => {
    const now = Date.now();
    const at = Math.max(nextAt, now);
    nextAt = at + gapMs;
    if (at > now) {
      alive();
      await Context.current().sleep(at - now);
    }
  };
}

/**
 * A success hands the next cycle over in its own write, so no workflow does: the day of that cycle needs its
 * run started here, once per day per chunk attempt (the chunk's cycles mostly share one next day). Started
 * before the workflow is told, so a chunk retried after a crash (which starts after the last cycle told)
 * starts it again; a day whose run is never started still has each workflow's fallback after its grace.
 */
function nextDaysRuns(deps: Deps, chunk: ChargeChunk) {
  const started = new Map<string, Promise<void>>();
  const hour = chunk.billingHourGmt7 ?? DEFAULT_SUBSCRIPTION_TIMING.billingHourGmt7;
  // The delay is counted on the Temporal server's clock (the one its timers keep, and a test server's
  // skipped time): when this attempt was scheduled there, plus what has passed here since it began.
  const scheduledAt = Context.current().info.currentAttemptScheduledTimestampMs;
  const begunAt = Date.now();
  const serverNow = () => scheduledAt + (Date.now() - begunAt);
  return (day: string) => {
    let starting = started.get(day);
    if (!starting) {
      starting = startDaysRun(deps, day, instantOf(day, hour) - serverNow(), hour);
      // A failed start is tried again by the next success, or fails the chunk attempt there.
      starting.catch(() => started.delete(day));
      started.set(day, starting);
    }
    return starting;
  };
}

/**
 * One handed-over cycle: claimed (or found claimed by this run), charged, its workflow told. `held`: a charge
 * hold stops it before its claim (a cycle claimed already may have been sent: it goes on).
 */
async function chargeHanded(
  deps: Deps,
  chunk: ChargeChunk,
  handed: HandedCycle,
  startRunOf: (day: string) => Promise<void>,
): Promise<'charged' | 'skipped' | 'held'> {
  const { db } = deps;
  const orderId = chargeOrderId(handed.subscriptionId, handed.cycle, 0);
  // The worker's view of holds is at most HOLD_STATE_MAX_AGE_MS old: a hold confirmed while the chunk
  // charges stops its next claims within that, not at the next chunk.
  if (await holdStopping(db, 'charge')) {
    const recorded = await getCharge(db, orderId);
    if (!recorded) return 'held';
    if (recorded.billing_run_id !== chunk.runId) return 'skipped';
  }
  const claim = await claimHandedCycle(db, { ...handed, orderId }, (row) => ({
    order_id: orderId,
    subscription_id: handed.subscriptionId,
    cycle: handed.cycle,
    attempt: 0,
    due_date: handed.dueDate,
    amount: handed.amount,
    status: 'submitted',
    request_id: requestIdFor(orderId, 'pay'),
    next_payment_date_sent: nextDateOf(row, handed.cycle),
    billing_run_id: chunk.runId,
    billing_chunk: chunk.chunk,
  }));
  // Another run's order, or the workflow's; or taken back, paused or cancelled before the run reached it.
  if (!claim.subscription || (!claim.claimed && claim.recorded?.billing_run_id !== chunk.runId))
    return 'skipped';
  const row = claim.subscription;
  const charge: CycleCharge = {
    subscriptionId: handed.subscriptionId,
    cycle: handed.cycle,
    attempt: 0,
    amount: handed.amount,
    dueDate: handed.dueDate,
    nextPaymentDate: claim.claimed
      ? claim.charge.next_payment_date_sent!
      : (claim.recorded?.next_payment_date_sent ?? nextDateOf(row, handed.cycle)),
    chargedOn: dayOfGmt7(Date.now()),
    frequency: row.frequency,
    nextCycleOnSuccess: handed.cycle + 1,
  };
  // Claimed now: sent from the row the claim locked. Claimed by this run before (a retried chunk): the
  // workflow's own charge path, where a `submitted` record is sent again as the same order and a recorded
  // answer is answered again. Either way a success moves the next cycle (and its hand-over) with it.
  const charged = claim.claimed
    ? await chargeOwnPath(() => chargeClaimedCycle(deps, row, charge))
    : await chargeOwnPath(async () => ({
        result: await chargeSubscriptionCycle(deps, charge),
        handedNext: undefined,
      }));
  if (!charged) return 'skipped';
  const notice = await noticeOf(deps, chunk, handed, charged.result, charged.handedNext);
  if (notice.handedNext) await startRunOf(notice.handedNext.dueDate);
  // A success is read from the row when the workflow's grace ends (settleHandedCycle); a failure or a
  // pending answer is told now, for the retry, the gateway's pause and the follow-up run from the workflow.
  if (notice.outcome !== 'succeeded' || deps.billingRunSignalsSuccess) await tellWorkflow(notice);
  return 'charged';
}

/**
 * A refusal that concerns one subscription only (above its authorized amount, no token) is not the
 * chunk's failure: that cycle is left to its workflow, which meets the refusal after its grace and
 * records it where an operator sees it. Anything else (the gateway or the database away) fails the
 * attempt, and the retried chunk starts after its heartbeat.
 */
async function chargeOwnPath<T>(charge: () => Promise<T>): Promise<T | undefined> {
  try {
    return await charge();
  } catch (error) {
    if (error instanceof ApplicationFailure && error.nonRetryable) return undefined;
    throw error;
  }
}

const nextDateOf = (row: SubscriptionRow, cycle: number) =>
  cycleDate(
    { anchorDate: row.anchor_date!, anchorCycle: Number(row.anchor_cycle), frequency: row.frequency },
    cycle + 1,
  );

/**
 * What the row says after the charge: whether the next cycle was recorded and handed over with it. The
 * charge's own write says it when it recorded the next cycle (`handedNext` known); a charge not paid moved
 * nothing; otherwise (an answer recorded earlier, a subscription no longer active) the row is read.
 */
async function noticeOf(
  { db }: Deps,
  chunk: Pick<ChargeChunk, 'runId' | 'chunk'>,
  handed: Pick<HandedCycle, 'subscriptionId' | 'cycle'>,
  paid: CycleChargeResult,
  handedNext?: boolean,
): Promise<BillingRunCharge> {
  const about = {
    subscriptionId: handed.subscriptionId,
    cycle: handed.cycle,
    billingRunId: chunk.runId,
    chunk: chunk.chunk,
  };
  if (paid.outcome !== 'succeeded') return { ...paid, ...about };
  if (paid.billed && handedNext !== undefined) {
    const next = { cycle: paid.billed.nextCycle, dueDate: paid.billed.nextPaymentDate };
    return { ...paid, ...about, ...(handedNext && { handedNext: next }) };
  }
  const after = await requireSubscription(db, handed.subscriptionId);
  const billed =
    Number(after.next_cycle) === handed.cycle + 1 && after.next_payment_date
      ? { nextCycle: handed.cycle + 1, nextPaymentDate: after.next_payment_date }
      : undefined;
  return {
    ...paid,
    ...(billed && { billed }),
    ...about,
    ...(billed &&
      after.run_cycle === handed.cycle + 1 &&
      after.run_due_date && { handedNext: { cycle: handed.cycle + 1, dueDate: after.run_due_date } }),
  };
}

/** One signal per charge not paid. */
const tellWorkflow = (notice: BillingRunCharge) =>
  signalUnlessEnded(notice.subscriptionId, billingRunChargeSignal, notice);

/** A workflow that has ended meanwhile has nothing left to learn. */
async function signalUnlessEnded<Args extends unknown[]>(
  subscriptionId: string,
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<void> {
  const handle = Context.current().client.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
  try {
    await handle.signal(signal, ...args);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

export const createBillingRunActivities = (deps: Deps): BillingRunActivities =>
  bindActivities(deps, {
    handOverCycle,
    takeBackCycle,
    settleHandedCycle,
    findHandedCycles,
    chargeHandedChunk,
  });
