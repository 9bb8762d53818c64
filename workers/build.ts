/**
 * How every worker is built: `workers/main.ts`, `npm run dev` and the bench harness call this, so a
 * dependency a capability needs (the merchant secret for aesTokens, the keyring for tokens at rest)
 * cannot be left out of one of them. The tests build activities with the same typed `createActivities`.
 */
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

/** The worker's sizes (docs/capacity.md says how they were chosen). */
export function workerTuningOf(config: Config): PayrunWorkerOptions['tuning'] {
  return {
    ...(config.WORKER_CACHED_WORKFLOWS !== undefined && {
      maxCachedWorkflows: config.WORKER_CACHED_WORKFLOWS,
    }),
    maxConcurrentWorkflowTaskExecutions: config.WORKER_WORKFLOW_TASK_SLOTS,
    maxConcurrentActivityTaskExecutions: config.WORKER_ACTIVITY_TASK_SLOTS,
    workflowTaskPollerBehavior: {
      type: 'simple-maximum',
      maximum: Math.min(config.WORKER_WORKFLOW_TASK_POLLERS, config.WORKER_WORKFLOW_TASK_SLOTS),
    },
  };
}
