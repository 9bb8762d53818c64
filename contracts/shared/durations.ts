import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';

/** Milliseconds of a Temporal duration ('2 minutes', 5000, …), for arithmetic on waits. */
export const durationMs = (duration: Duration): number => msToNumber(duration);
