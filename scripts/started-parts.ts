/**
 * What `npm run dev` has started so far, stopped newest first however it ends: Ctrl-C once it runs,
 * Ctrl-C in the middle of its start-up, or a part that fails to start. A part still starting when the
 * stop comes (PostgreSQL running initdb, the Temporal dev server coming up) is waited for and then
 * stopped with the rest: leaving early would orphan the processes it is spawning.
 */
import type { Started } from './stack';

/** Thrown by a start asked for after the stop began: the start-up ends there, quietly. */
export class StartInterrupted extends Error {
  constructor(part: string) {
    super(`Not starting ${part}: stopping`);
  }
}

export class StartedParts {
  private readonly parts: Array<{ name: string; stop: () => Promise<void> }> = [];
  private readonly starting = new Set<Promise<unknown>>();
  private stopped: Promise<void> | undefined;

  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  /**
   * Starts a part, keeping its stop the moment it has started, and returns its value. After the stop
   * began it starts nothing, and a part that finishes starting meanwhile is stopped with the others
   * but its value is not handed on: either way it throws StartInterrupted.
   */
  async start<T>(name: string, start: () => Promise<Started<T>>): Promise<T> {
    if (this.stopping) throw new StartInterrupted(name);
    const kept = start().then((part) => {
      this.parts.push({ name, stop: part.stop });
      return part.value;
    });
    this.starting.add(kept);
    try {
      const value = await kept;
      if (this.stopping) throw new StartInterrupted(name);
      return value;
    } finally {
      this.starting.delete(kept);
    }
  }

  /** Waits for the parts still starting, then stops every part, newest first; each failure is reported. */
  stopAll(onError: (name: string, error: unknown) => void): Promise<void> {
    this.stopped ??= (async () => {
      await Promise.allSettled([...this.starting]);
      for (const { name, stop } of this.parts.splice(0).reverse()) {
        await stop().catch((error: unknown) => onError(name, error));
      }
    })();
    return this.stopped;
  }
}
