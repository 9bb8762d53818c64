/**
 * The API's side of the payment desk (PAYMENT_DESK; docs/payments.md, "The payment desk"): a create queued for
 * the desk needs the desk running, and its call waits for the chunk's announcement that the gateway answered.
 * The announcements arrive by LISTEN on a connection of this process's own (outside the pool: a listening
 * connection must stay open), one for every create call waiting here. Nothing polls: a create that is not
 * announced within its bound answers from the record as it is (202 while `created`), as before the desk.
 */
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import type { Logger } from 'pino';
import { DEFAULT_PAYMENT_DESK, paymentDeskWorkflowId, type PaymentTiming } from '../../contracts/payments';
import { PAYMENT_ANSWERED_CHANNEL } from '../../db/payments/payment-desk';
import type { Db } from '../../db/shared/knex';
import { listenOn, type ChannelListener } from '../../db/shared/listen';
import { startWorkflow } from '../workflow-starts';
import { deskStarter } from '../desk-starter';

export interface PaymentDesk {
  deskWorkflowId: string;
  /** Resolves once the desk is running (started now, or seen lately). */
  ensureRunning(): Promise<void>;
  answers: PaymentAnswers;
}

export function paymentDesk(temporal: Client, db: Db, taskQueue: string, timing: PaymentTiming): PaymentDesk {
  const deskWorkflowId = paymentDeskWorkflowId(taskQueue);
  return {
    deskWorkflowId,
    ensureRunning: deskStarter(() =>
      startWorkflow(temporal, 'paymentDesk', {
        taskQueue,
        workflowId: deskWorkflowId,
        args: [{ timing, ...DEFAULT_PAYMENT_DESK }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        staticSummary: 'One-time payments created in chunks (docs/payments.md)',
      }),
    ),
    answers: paymentAnswersOf(db),
  };
}

export interface AnswerWait {
  /** True once the desk announced the payment; false when the bound passed or the listening stopped. */
  answered: Promise<boolean>;
  cancel(): void;
}

export interface PaymentAnswers {
  /** A create can wait here only while the LISTEN connection is open; otherwise it is not queued for the desk. */
  listening(): boolean;
  /** Registered at once: call it before the record is committed, so no announcement comes before the wait. */
  waitFor(paymentId: string, ms: number): AnswerWait;
  start(logger: Logger): void;
  stop(): Promise<void>;
}

/** How long after a lost connection it listens again. */
const RELISTEN_MS = 1_000;

/** One listener per database handle, shared by the routes (which wait) and the relay's start and stop. */
const listeners = new WeakMap<Db, PaymentAnswers>();

export function paymentAnswersOf(db: Db): PaymentAnswers {
  let answers = listeners.get(db);
  if (!answers) {
    answers = paymentAnswers(db);
    listeners.set(db, answers);
  }
  return answers;
}

function paymentAnswers(db: Db): PaymentAnswers {
  const waiting = new Map<string, Set<(answered: boolean) => void>>();
  let listener: ChannelListener | undefined;

  const settleAll = (answered: boolean) => {
    for (const settles of waiting.values()) for (const settle of settles) settle(answered);
    waiting.clear();
  };
  const heard = (payload: string) => {
    for (const paymentId of payload.split(',')) {
      const settles = waiting.get(paymentId);
      if (!settles) continue;
      waiting.delete(paymentId);
      for (const settle of settles) settle(true);
    }
  };

  return {
    listening: () => listener?.listening() ?? false,
    waitFor(paymentId, ms) {
      let settle: (answered: boolean) => void = () => undefined;
      const answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => settle(false), ms);
        settle = (value) => {
          clearTimeout(timer);
          const settles = waiting.get(paymentId);
          settles?.delete(settle);
          if (settles?.size === 0) waiting.delete(paymentId);
          resolve(value);
        };
      });
      const settles = waiting.get(paymentId) ?? new Set();
      settles.add(settle);
      waiting.set(paymentId, settles);
      return { answered, cancel: () => settle(false) };
    },
    start(logger) {
      if (listener) return;
      const log = logger.child({ component: 'payment-desk' });
      listener = listenOn(
        db,
        PAYMENT_ANSWERED_CHANNEL,
        {
          notified: heard,
          lost: (error, when) => {
            // Whatever was announced meanwhile is not heard: the waiting calls answer from their records now.
            settleAll(false);
            if (when === 'opening')
              log.warn(
                { err: error },
                'The payment desk could not LISTEN; payments get workflows of their own meanwhile',
              );
            else if (error)
              log.warn(
                { err: error },
                'The payment desk lost its LISTEN connection; listening again shortly',
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
