import type { Duration } from '@temporalio/common';
import { durationMs } from './durations';

/** Waits that grow: the first, then `growth` times the one before, never past `max` (the first is as given). */
export interface Backoff {
  first: Duration;
  growth: number;
  max?: Duration;
}

/**
 * The wait before try `attempt` (1: the first wait). The one backoff formula: the ask loop of every
 * workflow (workflows/shared/wait-or-ask.ts) waits by it, and Temporal retries an activity by the same
 * one (initialInterval × backoffCoefficient^(n−1), capped at maximumInterval). Pure, for workflows too.
 */
export function backoffMs(backoff: Backoff, attempt: number): number {
  const first = durationMs(backoff.first);
  // A first wait longer than the cap is kept: stored histories waited it (a disbursement started before
  // its ipnTimeout existed waits resultWait first, then asks hourly).
  if (attempt <= 1) return first;
  const max = backoff.max === undefined ? Infinity : durationMs(backoff.max);
  return Math.min(max, first * backoff.growth ** (attempt - 1));
}

/** How Temporal tries a gateway call again, with the same requestId (workflows/shared/activity-profiles.ts). */
export const GATEWAY_RETRY_BACKOFF = {
  first: '2 seconds',
  growth: 2,
  max: '5 minutes',
} as const satisfies Backoff;
