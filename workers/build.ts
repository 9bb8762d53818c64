/**
 * How every worker is built: `workers/main.ts`, `npm run dev` and the bench harness call this, so a
 * dependency a capability needs (the merchant secret for aesTokens, the keyring for tokens at rest)
 * cannot be left out of one of them. The tests build activities with the same typed `createActivities`.
 */
import v8 from 'node:v8';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities } from '../activities';
import type { Db } from '../db/shared/knex';
import { ConfigError, type Config } from '../platform/config';
import { createDataConverter } from '../platform/data-converter';
import type { Logger } from '../platform/logger';
import type { CodecKeyring } from '../platform/payload-codec';
import { requireDecisionKey, type GatewaySettings } from '../platform/require-services';
import { createInstrumentedGateway } from './gateway';
import { QUEUED_OPERATIONS, type QueuedOperation } from '../contracts/shared';
import { createPayrunWorker, type PayrunWorker, type PayrunWorkerOptions } from './worker';
import {
  DEFAULT_NOTICE_FROM,
  smtpNoticeChannel,
  unconfiguredNoticeChannel,
} from '../platform/notice-channel';

export interface WorkerServices {
  db: Db;
  gateway: GatewaySettings;
  keyring: CodecKeyring;
  /** How the gateway reaches payrun's notification receivers (PUBLIC_BASE_URL, or the API under dev). */
  publicBaseUrl: string;
  logger?: Logger;
}

export function buildActivities(config: Config, services: WorkerServices): Activities {
  const decisionKey = requireDecisionKey(config, 'worker');
  return createActivities({
    db: services.db,
    gateway: createInstrumentedGateway(services.gateway, services.logger),
    publicBaseUrl: services.publicBaseUrl,
    merchantSecrets: { merchantSecretKey: services.gateway.secretKey, keyring: services.keyring },
    webhooks: { keyring: services.keyring, allowLoopbackHttp: config.WEBHOOK_ALLOW_LOOPBACK_HTTP },
    decisionKey,
    autoResumeFunded: config.PAYOUT_AUTO_RESUME_FUNDED,
    billingRunSignalsSuccess: config.BILLING_RUN_SIGNALS_SUCCESS,
    billingRunParallelChunks: config.BILLING_RUN_PARALLEL_CHUNKS,
    subscriptionPayPerSecond: config.GATEWAY_RATE_LIMITS['subscription.pay'],
    approvalPolicy: config.APPROVAL_POLICY,
    notices: config.SMTP_URL
      ? smtpNoticeChannel({ url: config.SMTP_URL, from: config.NOTICE_FROM ?? DEFAULT_NOTICE_FROM })
      : unconfiguredNoticeChannel,
  });
}

/**
 * GATEWAY_RATE_LIMITS, checked against the operations that have a queue of their own: a limit on any
 * other operation would be accepted and do nothing, so the process refuses to start instead.
 */
export function operationRateLimitsOf(config: Config): Partial<Record<QueuedOperation, number>> {
  const limits: Partial<Record<QueuedOperation, number>> = {};
  for (const [operation, rate] of Object.entries(config.GATEWAY_RATE_LIMITS)) {
    if (!(QUEUED_OPERATIONS as string[]).includes(operation))
      throw new ConfigError(
        `GATEWAY_RATE_LIMITS: ${operation} cannot be limited; operations with a queue of their own: ${QUEUED_OPERATIONS.join(', ')}`,
      );
    limits[operation as QueuedOperation] = rate;
  }
  return limits;
}

export async function buildWorker(
  config: Config,
  services: WorkerServices & {
    connection: NativeConnection;
    /** A prebuilt bundle (the bench builds one); otherwise the worker bundles `workflows/` itself. */
    workflowBundle?: WorkerOptions['workflowBundle'];
  },
): Promise<PayrunWorker> {
  return createPayrunWorker({
    operationRateLimits: operationRateLimitsOf(config),
    connection: services.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: buildActivities(config, services),
    dataConverter: createDataConverter(services.keyring),
    tuning: workerTuningOf(config),
    ...(services.workflowBundle && { workflowBundle: services.workflowBundle }),
  });
}

/** Heap each cached workflow is allowed, and what the worker needs besides (MiB). */
const MIB_PER_CACHED_WORKFLOW = 0.6;
const MIB_BESIDES_THE_CACHE = 200;

/**
 * The workflows a worker caches when WORKER_CACHED_WORKFLOWS is unset: one per 0.6 MiB of the heap limit
 * above 200 MiB, 6,573 with Node's 4 GiB default. The SDK's own default allows 1.7 MiB each (2,310), three to
 * four times what a cached subscription took here (0.4–0.57 MiB of the worker's RSS at 5,574 and 6,000
 * cached), and at its size 10,000 customers awaiting their authorization on two workers were replayed 0.9 times
 * each on average before they answered (docs/capacity.md).
 */
export const cachedWorkflowsFor = (heapLimitMiB: number): number =>
  Math.max(2, Math.floor((heapLimitMiB - MIB_BESIDES_THE_CACHE) / MIB_PER_CACHED_WORKFLOW));

/** The worker's sizes (docs/capacity.md says how they were chosen). */
export function workerTuningOf(
  config: Config,
  heapLimitMiB = v8.getHeapStatistics().heap_size_limit / 2 ** 20,
): PayrunWorkerOptions['tuning'] {
  return {
    maxCachedWorkflows: config.WORKER_CACHED_WORKFLOWS ?? cachedWorkflowsFor(heapLimitMiB),
    maxConcurrentWorkflowTaskExecutions: config.WORKER_WORKFLOW_TASK_SLOTS,
    maxConcurrentActivityTaskExecutions: config.WORKER_ACTIVITY_TASK_SLOTS,
    nonStickyToStickyPollRatio: config.WORKER_NON_STICKY_POLL_SHARE,
    workflowTaskPollerBehavior: {
      type: 'simple-maximum',
      maximum: Math.min(config.WORKER_WORKFLOW_TASK_POLLERS, config.WORKER_WORKFLOW_TASK_SLOTS),
    },
  };
}
