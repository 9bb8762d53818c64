/**
 * What a desk's create call waits on: the chunk's announcement that the gateway answered, heard by LISTEN on a
 * connection of this process's own (outside the pool: a listening connection must stay open), one for every
 * create call waiting here. The payment desk and the subscription desk each have a channel.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/shared/knex';
import { listenOn, type ChannelListener } from '../db/shared/listen';

export interface AnswerWait {
  /** True once the desk announced the item; false when the bound passed or the listening stopped. */
  answered: Promise<boolean>;
  cancel(): void;
}

export interface DeskAnswers {
  /** A create can wait here only while the LISTEN connection is open; otherwise it is not queued for the desk. */
  listening(): boolean;
  /** Registered at once: call it before the record is committed, so no announcement comes before the wait. */
  waitFor(id: string, ms: number): AnswerWait;
  start(logger: Logger): void;
  stop(): Promise<void>;
}

/** How long after a lost connection it listens again. */
const RELISTEN_MS = 1_000;

/** One listener per database handle and channel, shared by the routes (which wait) and the process's start and stop. */
const listeners = new WeakMap<Db, Map<string, DeskAnswers>>();

/** `meanwhile`: what happens to new items while the channel is not heard (logged when listening fails). */
export function deskAnswersOf(db: Db, channel: string, meanwhile: string): DeskAnswers {
  const ofDb = listeners.get(db) ?? new Map<string, DeskAnswers>();
  listeners.set(db, ofDb);
  let answers = ofDb.get(channel);
  if (!answers) {
    answers = deskAnswers(db, channel, meanwhile);
    ofDb.set(channel, answers);
  }
  return answers;
}

function deskAnswers(db: Db, channel: string, meanwhile: string): DeskAnswers {
  const waiting = new Map<string, Set<(answered: boolean) => void>>();
  let listener: ChannelListener | undefined;

  const settleAll = (answered: boolean) => {
    for (const settles of waiting.values()) for (const settle of settles) settle(answered);
    waiting.clear();
  };
  const heard = (payload: string) => {
    for (const id of payload.split(',')) {
      const settles = waiting.get(id);
      if (!settles) continue;
      waiting.delete(id);
      for (const settle of settles) settle(true);
    }
  };

  return {
    listening: () => listener?.listening() ?? false,
    waitFor(id, ms) {
      let settle: (answered: boolean) => void = () => undefined;
      const answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => settle(false), ms);
        settle = (value) => {
          clearTimeout(timer);
          const settles = waiting.get(id);
          settles?.delete(settle);
          if (settles?.size === 0) waiting.delete(id);
          resolve(value);
        };
      });
      const settles = waiting.get(id) ?? new Set();
      settles.add(settle);
      waiting.set(id, settles);
      return { answered, cancel: () => settle(false) };
    },
    start(logger) {
      if (listener) return;
      const log = logger.child({ component: 'desk-answers', channel });
      listener = listenOn(
        db,
        channel,
        {
          notified: heard,
          lost: (error, when) => {
            // Whatever was announced meanwhile is not heard: the waiting calls answer from their records now.
            settleAll(false);
            if (when === 'opening')
              log.warn({ err: error }, `A desk could not LISTEN on ${channel}; ${meanwhile}`);
            else if (error)
              log.warn(
                { err: error },
                `A desk lost its LISTEN connection on ${channel}; listening again shortly`,
              );
          },
        },
        RELISTEN_MS,
      );
    },
    async stop() {
      const stopping = listener;
      listener = undefined;
      settleAll(false);
      await stopping?.stop();
    },
  };
}
