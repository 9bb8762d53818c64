/**
 * How a workflow's money-moving gateway step honours the hold switch (contracts/holds). The step's
 * activity throws `held` on its first attempt, before it sends anything, when its kind is held; here the
 * workflow records the item held, waits for the release (a signal carrying the API's proof, admitted by
 * the decision gate) or, as a backstop, finds on a timer that the hold has ended, and runs the step again.
 *
 * The normal path adds no command and no event: the try/catch and nothing else, so histories recorded
 * before the hold switch replay unchanged. Money is never paid twice: the step was refused before any
 * call was sent, and runs again as the same step with the same orderId and requestId.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import { decisionGate } from '../shared/decision-gate';
import {
  HELD,
  HOLD_RELEASE_ACTION,
  holdProofSubject,
  holdReleasedSignal,
  type HeldDetails,
  type HoldActivities,
  type HoldKind,
  type ResumedStep,
} from '../../contracts/holds';

const records = recordsOf<HoldActivities>();

/** How long a held item waits for its release signal before it asks the database whether the hold ended. */
const BACKSTOP = '15 minutes';
/**
 * A release proof is carried to every item of its hold for as long as the release takes (at 1 a minute,
 * days). Its subject names one hold episode, which ends with the release, so an old proof opens nothing.
 */
const RELEASE_PROOF_MAX_AGE_MS = 30 * 24 * 3_600_000;

export interface HoldableStep {
  kind: HoldKind;
  /** What the console counts as held: the item's amount in VND (else the activity's, from its record). */
  amountVnd?: number;
  objectId: string;
}

/**
 * Runs `step`; while its kind is held, waits for the release and runs it again. `onHeld` tells the
 * workflow that it waits (a caller waiting for the step's first answer is answered "held" instead).
 */
export async function whileHeld<T>(
  item: HoldableStep,
  step: (resumed: ResumedStep) => Promise<T>,
  onHeld?: (holding: boolean) => void,
): Promise<T> {
  let resumed: ResumedStep = {};
  for (;;) {
    try {
      return await step(resumed);
    } catch (error) {
      const held = heldOf(error);
      if (!held) throw error;
      onHeld?.(true);
      await waitForRelease(item, held);
      onHeld?.(false);
      resumed = { releasedHold: held.holdId };
    }
  }
}

function heldOf(error: unknown): HeldDetails | undefined {
  // A queued activity's failure arrives wrapped in an ActivityFailure; a local activity's as it was thrown.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure) || cause.type !== HELD) return undefined;
  return cause.details?.[0] as HeldDetails | undefined;
}

async function waitForRelease(item: HoldableStep, held: HeldDetails): Promise<void> {
  const { workflowId } = workflowInfo();
  let released = false;
  const gate = decisionGate(
    { type: 'hold', id: held.holdId },
    { subject: holdProofSubject(held.holdId), maxAgeMs: RELEASE_PROOF_MAX_AGE_MS },
  );
  setHandler(holdReleasedSignal, async (signal) => {
    if (released) return;
    // A signal's fields are anybody's: only the proof, checked against the hold this item waits for, counts.
    const by = { keyId: String(signal?.by?.keyId ?? ''), name: String(signal?.by?.name ?? '') };
    // Refused (forged, another hold's, replayed): the gate wrote it to the audit log; the item stays held.
    if (await gate.admits({ action: HOLD_RELEASE_ACTION, by }, signal?.proof)) released = true;
  });
  setCurrentDetails(
    `Held: ${held.kind} hold ${held.holdId} since ${new Date().toISOString()}; nothing was sent. ` +
      'It resumes when two admins release the hold.',
  );
  const recorded = await records.recordHeldItem({
    holdId: held.holdId,
    kind: held.kind,
    workflowId,
    objectId: item.objectId,
    amountVnd: held.amountVnd ?? item.amountVnd ?? 0,
  });
  // A hold that ended while this step was being refused (a worker's view is up to a second old) has no
  // release left to wait for.
  let waiting = recorded.holdNotEnded;
  while (waiting && !released) {
    if (await condition(() => released, BACKSTOP)) break;
    waiting = await records.holdStillOn({ holdId: held.holdId });
  }
  await condition(allHandlersFinished);
  await records.markHeldItemReleased({ holdId: held.holdId, workflowId });
  setCurrentDetails(`Released from ${held.kind} hold ${held.holdId} at ${new Date().toISOString()}.`);
}
