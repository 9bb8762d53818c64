/**
 * The fast layer's harness: the real workflow code on the time-skipping server, with fake activities.
 *
 * One server and one worker per test file. The worker registers every activity name; each call is
 * routed to the fakes (`Partial<Activities>`) the test registered for the calling workflow's id, and
 * recorded (name, input, attempt, workflow time), so a test asserts what the workflow asked for, in
 * which order, how often and when — with no database, no gateway and no fixed sleeps.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PayrunWorker } from '../../workers/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createActivities, type Activities } from '../../activities';
import { asActivityFailure } from '../../activities/shared/gateway-calls';
import { classifyResult, GatewayResultError, GatewayTransportError, type OperationName } from '../../gateway';
import { outcomeOf } from '../../gateway/result-codes';
import { createTestWorker, createTimeSkippingEnv, testCodecKeyring } from './temporal';
import { eventually } from './wait';
import { freshId } from './ids';

export type ActivityName = keyof Activities;
export type Fakes = Partial<Activities>;
/** The input a workflow passed to activity `N`. */
export type InputOf<N extends ActivityName> = Parameters<Activities[N]>[0];

/** One activity attempt as the worker saw it. */
export interface Call {
  name: ActivityName;
  input: unknown;
  /** 1 for the first attempt; a retry re-sends the same input with the next number. */
  attempt: number;
  /** Workflow time (server clock, skipped by the test server) when this attempt was scheduled. */
  scheduledAt: number;
  /** The workflow run that asked (continue-as-new starts another). */
  runId: string;
}

/** Every activity name the worker registers: the factory's keys (nothing runs until called). */
const ACTIVITY_NAMES = Object.keys(
  createActivities({
    db: undefined as never,
    gateway: undefined as never,
    publicBaseUrl: 'http://fake.invalid',
    merchantSecrets: { merchantSecretKey: 'unused', keyring: testCodecKeyring },
    webhooks: { keyring: testCodecKeyring, allowLoopbackHttp: false },
    decisionKey: 'unused: workflow tests fake or sign their own',
  }),
) as ActivityName[];

// ---- what the real activities throw, built by the same code (activities/shared/gateway-calls.ts)

/** A final gateway answer the activity does not return as a value: non-retryable `GatewayRejected`. */
export function gatewayRejected(operation: OperationName, resultCode: number, message = 'refused') {
  return asActivityFailure(
    new GatewayResultError(operation, resultCode, message, classifyResult(operation, resultCode), {}),
  ) as ApplicationFailure;
}

/** No answer (timeout, network): retryable, so Temporal re-sends the same input. */
export function lostAnswer(operation: OperationName) {
  return asActivityFailure(
    new GatewayTransportError(operation, 'timeout', 'no answer within the attempt timeout'),
  ) as Error;
}

/** `fake`, except that its first `times` attempts lose the answer (a retry must re-send the same input). */
export function losingFirst<A extends unknown[], R>(
  operation: OperationName,
  fake: (...args: A) => Promise<R>,
  times = 1,
): (...args: A) => Promise<R> {
  return async (...args) => {
    if (Context.current().info.attempt <= times) throw lostAnswer(operation);
    return fake(...args);
  };
}

/** What activity `N` answers. */
export type AnswerOf<N extends ActivityName> = Awaited<ReturnType<Activities[N]>>;

/**
 * Answers in turn, the last one repeated: `inTurn(pending, pending, paid)`. Answers of different
 * shapes name their type: `inTurn<AnswerOf<'createBatch'>>(short, accepted)`.
 */
export function inTurn<R>(...answers: R[]): () => Promise<R> {
  let next = 0;
  return async () => answers[Math.min(next++, answers.length - 1)]!;
}

/** Gates not opened yet: opened after each test, so a failed test leaves no activity hanging. */
const closedGates = new Set<() => void>();

/** A promise the test resolves: an activity that takes as long as the test says. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  const openNow = () => open(undefined as T);
  closedGates.add(openNow);
  return {
    opened,
    open: (value: T) => {
      closedGates.delete(openNow);
      open(value);
    },
  };
}

export const ok = async () => undefined;

/** The typed failure an update (or a validator) refused with: its type says why. */
export async function refusal(update: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await update.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error, 'the update was expected to be refused').toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

// ---- one started workflow

export class Run<W extends Workflow> {
  constructor(
    readonly handle: WorkflowHandle<W>,
    private readonly log: Call[],
  ) {}

  get workflowId() {
    return this.handle.workflowId;
  }

  /** The result; time skips while the test waits for it. */
  result(): Promise<Awaited<ReturnType<W>>> {
    return this.handle.result() as Promise<Awaited<ReturnType<W>>>;
  }

  /** The failure that ended the workflow (its innermost cause), for "why did it fail" assertions. */
  async failure(): Promise<ApplicationFailure> {
    const error = await this.handle.result().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    let cause = (error as WorkflowFailedError).cause as Error | undefined;
    while (cause?.cause) cause = cause.cause as Error;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return cause as ApplicationFailure;
  }

  calls(name?: ActivityName): Call[] {
    return this.log.filter((call) => name === undefined || call.name === name);
  }

  /** Activity names in call order, one entry per attempt. */
  names(): ActivityName[] {
    return this.log.map((call) => call.name);
  }

  /** Inputs of every attempt of `name`, in order (records written, orders sent). */
  inputs<N extends ActivityName>(name: N): Array<InputOf<N>> {
    return this.calls(name).map((call) => call.input as InputOf<N>);
  }

  /** Waits until `name` was called `count` times (the workflow reached that step). */
  async reached(name: ActivityName, count = 1): Promise<Call> {
    return eventually(() => {
      const calls = this.calls(name);
      if (calls.length < count) throw new Error(`${name} called ${calls.length} of ${count} times`);
      return calls[count - 1]!;
    });
  }

  /**
   * Waits until the workflow is blocked (no activity out, no workflow task to run): whatever it was
   * going to do on its own, it has done. For "nothing more happens until …" assertions.
   */
  async blocked(): Promise<void> {
    await eventually(async () => {
      const { raw } = await this.handle.describe();
      expect(raw.pendingActivities ?? []).toEqual([]);
      expect(raw.pendingWorkflowTask ?? undefined).toBeUndefined();
    });
  }

  /** The kinds of the workflow's history events, in order (`timerFired`, `activityTaskCompleted`, …). */
  async events(): Promise<string[]> {
    const { events } = await this.handle.fetchHistory();
    return (events ?? []).map((event) => {
      const kind = Object.keys(event).find(
        (key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key],
      );
      return kind?.replace(/EventAttributes$/, '') ?? 'unknown';
    });
  }

  /** Workflow time between the first attempts of two calls (`from` may be an index into calls()). */
  gap(from: Call, to: Call): number {
    return to.scheduledAt - from.scheduledAt;
  }
}

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

// ---- one test file's server and worker

export interface StartOptions<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  fakes: Fakes;
  /** Other workflow ids whose activities these fakes serve (a run's child batches). */
  alsoFor?: string[];
}

/**
 * Call at the top of a test file: one time-skipping server and one worker for the file's tests, which
 * run one after another (time skipping is global to the server). Workflows a test leaves running are
 * terminated after it.
 */
export function useWorkflowHarness() {
  let env: TestWorkflowEnvironment;
  let worker: PayrunWorker;
  let running: Promise<void>;
  let taskQueue: string;
  const routes = new Map<string, { fakes: Fakes; log: Call[] }>();
  const started: Array<WorkflowHandle<Workflow>> = [];

  const dispatcher = Object.fromEntries(
    ACTIVITY_NAMES.map((name) => [
      name,
      async (...args: unknown[]) => {
        const info = Context.current().info;
        const workflowId = info.workflowExecution?.workflowId ?? '';
        const route = routes.get(workflowId);
        if (!route)
          throw ApplicationFailure.nonRetryable(`No fakes for workflow ${workflowId}`, 'TestHasNoFakes');
        route.log.push({
          name,
          input: args[0],
          attempt: info.attempt,
          // A local activity's timestamps are the worker's clock; the server's (skipped) clock stands still
          // while the workflow task that runs it is out.
          scheduledAt: info.isLocal ? await env.currentTimeMs() : info.currentAttemptScheduledTimestampMs,
          runId: info.workflowExecution?.runId ?? '',
        });
        const fake = (route.fakes[name] ?? composedOf(name)) as
          ((...a: unknown[]) => Promise<unknown>) | undefined;
        if (!fake)
          throw ApplicationFailure.nonRetryable(
            `The test gave no fake for ${name} (workflow ${workflowId})`,
            'TestHasNoFake',
          );
        return fake(...args);
      },
    ]),
  ) as Fakes;

  /**
   * An activity made of others (activities/subscriptions/activation.ts): without a fake of its own it calls the
   * fakes of its parts, each logged as a call of its own, so a test states what the gateway and the records do.
   */
  const composedOf = (name: string): Fakes[keyof Fakes] | undefined =>
    name === 'activateAndRecord'
      ? ((async (input: Parameters<Activities['activateAndRecord']>[0]) => {
          const answer = await dispatcher.activateSubscription!({
            subscriptionId: input.subscriptionId,
            callbackToken: input.callbackToken,
          });
          if (outcomeOf(answer.resultCode) !== 'succeeded') return answer;
          if (input.authorizationCharge)
            await dispatcher.recordSubscriptionCharge!(input.authorizationCharge);
          await dispatcher.recordSubscription!(input.activation);
          if (input.handOver) await dispatcher.handOverCycle!(input.handOver);
          return answer;
        }) as Fakes['activateAndRecord'])
      : undefined;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    ({ worker, taskQueue } = await createTestWorker(env, dispatcher));
    running = worker.run();
  });

  afterEach(async () => {
    for (const open of [...closedGates]) open();
    closedGates.clear();
    for (const handle of started.splice(0)) {
      // The test server keeps time from skipping while an activity runs; an activity that finishes after
      // its workflow was terminated (a record still in flight when the test had seen enough) never gives
      // that back, and every later test of the file hangs. Let running attempts finish first.
      await eventually(
        async () => {
          const { raw, status } = await handle.describe();
          if (status.name !== 'RUNNING') return;
          expect((raw.pendingActivities ?? []).filter((activity) => activity.state === STARTED)).toEqual([]);
        },
        { timeout: 10_000 },
      ).catch(() => undefined);
      await handle.terminate('test over').catch(() => undefined);
    }
  });

  afterAll(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await env?.teardown();
  });

  return {
    get env() {
      return env;
    },
    /** A fresh business id for one test. */
    id: (prefix: string) => freshId(`${prefix}-`, 8),

    async start<W extends Workflow>(workflow: W, options: StartOptions<W>): Promise<Run<W>> {
      const log: Call[] = [];
      for (const id of [options.workflowId, ...(options.alsoFor ?? [])])
        routes.set(id, { fakes: options.fakes, log });
      const handle = await env.client.workflow.start(workflow, {
        taskQueue,
        workflowId: options.workflowId,
        args: options.args,
      } as unknown as Parameters<typeof env.client.workflow.start<W>>[1]);
      started.push(handle as WorkflowHandle<Workflow>);
      return new Run(handle, log);
    },

    /** Moves workflow time on (timers fire) without waiting for a result. */
    skip: (ms: number) => env.sleep(ms),
    /** The server's clock: earlier tests have skipped it ahead of the wall clock. */
    now: () => env.currentTimeMs(),
  };
}
