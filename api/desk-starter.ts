/**
 * A desk (the disbursement desk, the payment desk) must be running before anything is queued for it. Starting
 * it costs a call to Temporal, so a process that saw it running skips the call for a while: a desk never ends
 * on its own (it continues as new), so "running a moment ago" is a safe reading, and a desk an operator
 * terminated is started again by the next item after the pause.
 */
const DESK_SEEN_FOR_MS = 10_000;

/** `start` starts the desk with USE_EXISTING (a running desk answers as started, nothing added to its history). */
export function deskStarter(start: () => Promise<unknown>): () => Promise<void> {
  let seenUntil = 0;
  let starting: Promise<void> | undefined;
  return async () => {
    if (Date.now() < seenUntil) return;
    starting ??= start()
      .then(() => {
        seenUntil = Date.now() + DESK_SEEN_FOR_MS;
      })
      .finally(() => {
        starting = undefined;
      });
    await starting;
  };
}
