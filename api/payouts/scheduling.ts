/**
 * Scheduled runs at the API (docs/payout-runs.md, "Scheduling"): which times an approval may name, and the
 * cancel story. The workflow alone decides whether a run is still cancellable; this only asks it, with proof.
 */
import { MAX_SCHEDULE_AHEAD_DAYS } from '../../contracts/payouts';

const DAY_MS = 86_400_000;

/** Why a time cannot be a run's time to pay (past, or further ahead than a year and a few days), if it cannot. */
export function executeAtProblem(
  executeAt: string,
  now: number,
): { rule: string; message: string } | undefined {
  const at = Date.parse(executeAt);
  if (at <= now)
    return {
      rule: 'execute_at_in_future',
      message: `executeAt ${executeAt} has passed; name a time still ahead.`,
    };
  if (at - now > MAX_SCHEDULE_AHEAD_DAYS * DAY_MS)
    return {
      rule: 'execute_at_within_370_days',
      message: `executeAt ${executeAt} is more than ${MAX_SCHEDULE_AHEAD_DAYS} days ahead.`,
    };
  return undefined;
}

/** One spelling of an instant (UTC, milliseconds): what is signed and stored is the same text everywhere. */
export const utcInstant = (executeAt: string) => new Date(Date.parse(executeAt)).toISOString();
