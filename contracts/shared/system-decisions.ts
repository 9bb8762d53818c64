/**
 * Decisions payrun takes by itself, with no person behind them (issue 36: the balance watcher resuming runs
 * that wait for funds once the balance covers them). The worker that takes one signs it with the same key as
 * the API, under a `system:` subject no API key can have, and the decision gate admits such a subject only
 * for the actions listed here: a stolen or buggy system decision can never approve, release or cancel.
 */
import type { DecisionMaker } from './decision-proof';

export const SYSTEM_SUBJECT_PREFIX = 'system:';

/** The balance watcher, as it signs the resumes it takes (PAYOUT_AUTO_RESUME_FUNDED). */
export const BALANCE_WATCH_SUBJECT: DecisionMaker = {
  keyId: `${SYSTEM_SUBJECT_PREFIX}balance-watch`,
  name: 'balance watcher',
};

/** What each system subject may decide: resuming only lets a refused batch ask the gateway again. */
const SYSTEM_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  [BALANCE_WATCH_SUBJECT.keyId]: ['resume'],
};

export const isSystemSubject = (by: { keyId?: unknown } | undefined) =>
  typeof by?.keyId === 'string' && by.keyId.startsWith(SYSTEM_SUBJECT_PREFIX);

/** Whether a system subject may take this action (false for any subject not listed). */
export const systemMayDecide = (keyId: string, action: string) =>
  (SYSTEM_ACTIONS[keyId] ?? []).includes(action);
