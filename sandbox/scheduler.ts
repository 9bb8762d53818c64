/**
 * Every deferred action of the sandbox goes through one scheduler, so that `close()` and `reset()`
 * can cancel all of them: no IPN or state change ever happens after the sandbox is stopped.
 */
export interface Scheduler {
  /** Runs `task` after `delayMs`; the returned function cancels it. */
  after(delayMs: number, task: () => void): () => void;
  /** Resolves after `delayMs`, or never when cancelled (the caller's continuation is dropped). */
  sleep(delayMs: number): Promise<void>;
  cancelAll(): void;
  readonly stopped: boolean;
  stop(): void;
}

export function createScheduler(onError: (error: unknown) => void): Scheduler {
  const timers = new Map<NodeJS.Timeout, () => void>();
  let stopped = false;

  function after(delayMs: number, task: () => void): () => void {
    if (stopped) return () => undefined;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (stopped) return;
        try {
          task();
        } catch (error) {
          onError(error);
        }
      },
      Math.max(0, delayMs),
    );
    const cancel = () => {
      clearTimeout(timer);
      timers.delete(timer);
    };
    timers.set(timer, cancel);
    return cancel;
  }

  return {
    after,
    sleep: (delayMs) => new Promise((resolve) => after(delayMs, resolve)),
    cancelAll() {
      for (const cancel of [...timers.values()]) cancel();
    },
    get stopped() {
      return stopped;
    },
    stop() {
      stopped = true;
      for (const cancel of [...timers.values()]) cancel();
    },
  };
}
