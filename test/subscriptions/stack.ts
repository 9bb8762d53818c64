/**
 * Subscription billing for one test file: the sandbox over real HTTP (its clock follows the
 * time-skipping server, so expiry and "today" agree with workflow time), payrun's API with the
 * subscription IPN channel, and a worker that can be stopped and started again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { useScratchDatabase } from '../support/database';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { subscriptionSettingsFrom, type SubscriptionSettings } from '../../api/subscriptions/settings';
import { loadConfig } from '../../platform/config';
import { callApi } from '../support/api';
import { testMerchant } from '../support/settings';
import { useStack, type StackFixture, type StackOptions } from '../support/stack';
import type { NoticeChannel } from '../../platform/notice-channel';

/** The channel is made when the first notice goes: the catcher it points at starts in the test's beforeAll. */
const lazyChannel = (make: () => NoticeChannel): NoticeChannel => {
  let channel: NoticeChannel | undefined;
  return { send: (notice) => (channel ??= make()).send(notice) };
};

export type SubscriptionFixture = StackFixture<'billingKey' | 'viewerKey'> & {
  settings: SubscriptionSettings;
};

export function useSubscriptionStack(
  createEnv: () => Promise<TestWorkflowEnvironment>,
  options: {
    sandbox?: StackOptions<string>['sandbox'];
    /** Environment variables the settings are built from, as `api/main.ts` builds them. */
    environment?: Record<string, string>;
    /** Rate limits of the operation queues and how many workers poll them. */
    workers?: Pick<StackOptions<string>, 'operationRateLimits' | 'workers'>;
    /** Where notices to subscribers go (a mail catcher's SMTP channel); unset: recorded failed. */
    notices?: () => NoticeChannel;
    /**
     * Workflows the worker caches: by default the smallest production allows (WORKER_CACHED_WORKFLOWS ≥ 2),
     * since the onboarding's local activities need their run cached until its workflow task completes
     * (without a cache that task can time out, 10 s, and run them again). 0 for a file that restarts the
     * worker on the time-skipping server, which holds a stopped worker's sticky tasks without timing them out.
     */
    workerCache?: number;
    /** A database of the file's own, named after this label: for a file that places a hold (every file's rows obey one). */
    scratchDatabase?: string;
  } = {},
): SubscriptionFixture {
  const database = options.scratchDatabase ? useScratchDatabase(options.scratchDatabase) : undefined;
  const taskQueue = `subscriptions-${randomUUID()}`;
  const config = loadConfig(options.environment ?? {});
  const fromConfig = subscriptionSettingsFrom(config, taskQueue);
  const settings: SubscriptionSettings = {
    ...fromConfig,
    // The desk's chunks run for seconds of real time, which the time-skipping server does not skip: these files
    // run without it unless their environment names it (test/subscriptions/subscription-desk.test.ts runs it).
    desk: fromConfig.desk === true && options.environment?.SUBSCRIPTION_DESK !== undefined,
    linksWaitMs: 10_000,
    timing: {
      ...fromConfig.timing,
      authorizationIpnWait: '10 minutes',
      gatewayAttemptTimeout: '3 seconds',
      pendingCheckInterval: '1 minute',
      cyclesPerRun: 4,
    },
  };
  const fixture = useStack(createEnv, {
    taskQueue,
    // Before each call the sandbox's clock catches up with the Temporal test server's.
    clock: 'server',
    app: { subscriptions: settings },
    activities: {
      merchantSecrets: {
        merchantSecretKey: testMerchant.secretKey,
        keyring: { currentKeyId: 'test', keys: new Map([['test', randomBytes(32)]]) },
      },
      ...(options.notices && { notices: lazyChannel(options.notices) }),
      // A worker setting, as workers/build.ts passes it.
      billingRunSignalsSuccess: config.BILLING_RUN_SIGNALS_SUCCESS,
      billingRunParallelChunks: config.BILLING_RUN_PARALLEL_CHUNKS,
      // The workers' own limit, as workers/build.ts passes it with their queues' rates.
      subscriptionPayPerSecond: options.workers?.operationRateLimits?.['subscription.pay'],
    },
    keys: {
      billingKey: { name: 'billing', roles: ['billing'] },
      viewerKey: { name: 'viewer', roles: ['viewer'] },
    },
    workerTuning: { maxCachedWorkflows: options.workerCache ?? 2 },
    ...(database && { database }),
    ...(options.sandbox && { sandbox: options.sandbox }),
    ...options.workers,
  });
  return Object.assign(fixture, { settings });
}

export const call = (
  fixture: SubscriptionFixture,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
) => callApi(fixture.api, key ?? fixture.billingKey, method, path, body);
