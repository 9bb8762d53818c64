/**
 * Releasing one hold episode at the rate two admins chose: the held items in the order they stopped, a
 * page at a time, each told `holdReleased` with the API's proof of the release; then the hold is over.
 * The resumed steps go through the gateway operation queues, whose rate limits still apply.
 */
import { continueAsNew, getExternalWorkflowHandle, sleep } from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import { holdReleasedSignal, type HoldActivities, type HoldReleaseInput } from '../../contracts/holds';

const records = recordsOf<HoldActivities>();

const PAGE = 200;
/** Pages per run before continue-as-new: each signal writes two history events. */
const PAGES_PER_RUN = 10;

export async function holdRelease(input: HoldReleaseInput): Promise<{ signalled: number }> {
  const { holdId } = input;
  // Slices of at most a second's worth, one every slice's share of a minute: the chosen rate, evenly.
  const sliceSize = Math.ceil(input.ratePerMinute / 60);
  const sliceMs = Math.round((sliceSize * 60_000) / input.ratePerMinute);
  let after = input.after;
  let signalled = input.signalled ?? 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const { items } = await records.listHeldItems({ holdId, after, limit: PAGE });
    if (items.length === 0) {
      await records.finishHoldRelease({ holdId });
      return { signalled };
    }
    for (let start = 0; start < items.length; start += sliceSize) {
      const slice = items.slice(start, start + sliceSize);
      await Promise.all(
        slice.map((item) =>
          getExternalWorkflowHandle(item.workflowId)
            .signal(holdReleasedSignal, { holdId, by: input.by, proof: input.proof })
            // A workflow that ended meanwhile (cancelled, terminated) has nothing left to resume.
            .catch(() => undefined),
        ),
      );
      signalled += slice.length;
      await sleep(sliceMs);
    }
    const last = items[items.length - 1]!;
    after = { heldAt: last.heldAt, id: last.id };
  }
  return continueAsNew<typeof holdRelease>({ ...input, after, signalled });
}
