/**
 * One chaos run: the production shape (`startCluster`, as `npm run cluster` runs it) with 3 workers,
 * the workload driven at once through payrun's API, the fault plan carried out meanwhile, then the
 * verdict from the sandbox's ledger, payrun's records and Temporal. `npm run chaos` and the test in
 * `npm test` both call `runChaos`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../../db/shared/api-keys';
import { createDb } from '../../db/shared/knex';
import { loadConfig } from '../../platform/config';
import { createDataConverter } from '../../platform/data-converter';
import { loadOrCreateDevCodecKeys } from '../../platform/payload-codec';
import { createRandom } from '../../sandbox/random';
import { freeClusterPorts, startCluster, type Cluster } from '../cluster/cluster';
import { sandboxAdminClient } from '../cluster/sandbox-admin';
import { ChaosApi } from './api-client';
import { collectEvidence } from './evidence';
import { faultRunner, type FaultRunner } from './faults';
import { checkMoney } from './ledger-check';
import { checkNotifications } from './notification-check';
import { createProbe } from './probe';
import { checkProcesses } from './process-check';
import { startWebhookWitness, type WebhookWitness } from './webhook-check';
import { buildReport, type ChaosReport } from './report';
import { faultPlan } from './schedule';
import type { ChaosSize } from './sizes';
import { driveFailures, driveWorkload, type ChaosKeys, type WorkloadContext } from './workload';
import { settle } from './workload/settle';

export interface ChaosOptions {
  seed: number;
  size: ChaosSize;
  /** Keep the cluster's data folder (logs, databases) for a post-mortem. */
  keepData?: boolean;
  log?: (line: string) => void;
}

/**
 * The payrun settings the cluster runs with: production's, except what makes a run finish in minutes —
 * a notification is asked about after 10 s, a lost gateway call is retried after 30 s (the spec's
 * minimum), subscriptions due today are billed at once and an insufficient-funds retry comes after 10 s.
 */
const PAYOUT_IPN_TIMEOUT_SECONDS = 10;
const CHAOS_API_SETTINGS = {
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 0,
  RATE_LIMIT_PER_KEY_PER_MINUTE: 0,
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 0,
  RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: 0,
  RATE_LIMIT_FORGERIES_PER_MINUTE: 0,
  SUBSCRIPTION_BILLING_HOUR: 0,
  SUBSCRIPTION_RETRY_DELAY_HOURS: 10 / 3600,
  PAYOUT_IPN_TIMEOUT_SECONDS,
  DISBURSEMENT_IPN_TIMEOUT_SECONDS: PAYOUT_IPN_TIMEOUT_SECONDS,
  REMITTANCE_IPN_TIMEOUT_SECONDS: PAYOUT_IPN_TIMEOUT_SECONDS,
  PAYOUT_GATEWAY_ATTEMPT_SECONDS: 30,
};

/**
 * How long, after everything settled, the webhook witness waits for the last deliveries: a refused or
 * unanswered attempt is retried after 10 s, doubling, so a few in a row (the harness itself is busiest
 * while it reads the evidence) take minutes. Usually all is delivered within 2–3 minutes.
 */
const WEBHOOK_DRAIN_MS = 600_000;

/** Clusters of runs in progress, so that Ctrl-C stops them instead of leaving their processes behind. */
const running = new Set<Cluster>();

export async function stopRunningClusters(): Promise<void> {
  await Promise.all([...running].map((cluster) => cluster.stop().catch(() => undefined)));
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { seed, size } = options;
  const started = Date.now();
  const log = (line: string) =>
    (options.log ?? ((text) => process.stderr.write(`${text}\n`)))(
      `[chaos ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`,
    );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-chaos-'));
  const unexpectedExits: string[] = [];
  let faults: FaultRunner | undefined;
  let cluster: Cluster | undefined;
  let connection: Connection | undefined;
  let witness: WebhookWitness | undefined;
  const plan = faultPlan({ seed, size, payoutIpnTimeoutSeconds: PAYOUT_IPN_TIMEOUT_SECONDS });
  log(
    `seed ${seed}, size ${size.name}: ${plan.processFaults.length} process faults planned, data in ${dataDir}`,
  );
  try {
    cluster = await startCluster({
      dataDir,
      workers: size.workers,
      ports: await freeClusterPorts(size.workers),
      logLevel: 'warn',
      apiSettings: CHAOS_API_SETTINGS,
      loopbackWebhooks: true,
      log: (line) => log(`cluster: ${line}`),
      onUnexpectedExit: (name, code) => {
        // A worker started while Temporal is down exits; the fault runner starts it again.
        if (faults?.restarting.has(name)) return;
        unexpectedExits.push(`${name} (code ${code})`);
        log(`${name} exited by itself (code ${code})`);
      },
    });
    running.add(cluster);
    // The harness stops PostgreSQL on purpose: its own pool's complaints meanwhile are expected noise.
    const quiet = () => undefined;
    const db = createDb(cluster.urls.database, {
      poolMax: 10,
      log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
    });
    const sandbox = sandboxAdminClient(cluster.urls.sandbox);
    await sandbox.setAutoApprove(true);
    const key = async (name: string, role: Parameters<typeof createApiKey>[2][number]) =>
      (await createApiKey(db, `chaos-${name}`, [role])).key;
    const keys: ChaosKeys = {
      maker: await key('maker', 'payouts-maker'),
      approver: await key('approver', 'payouts-approver'),
      billing: await key('billing', 'billing'),
      payments: await key('payments', 'payments'),
      remittance: await key('remittance', 'remittance'),
      viewer: await key('viewer', 'viewer'),
    };
    const adminKey = await key('admin', 'admin');
    connection = await Connection.connect({ address: cluster.urls.temporal });
    const temporal = new Client({
      connection,
      dataConverter: createDataConverter(loadOrCreateDevCodecKeys(dataDir)),
    });
    const startedAt = Date.now();
    const windowMs = size.faults.windowSeconds * 1000;
    const deadline = startedAt + windowMs + size.settleSeconds * 1000;
    const api = new ChaosApi(cluster.urls.api, deadline);
    const ctx: WorkloadContext = {
      api,
      sandbox,
      db,
      keys,
      tag: `k${seed}`,
      random: createRandom(seed ^ 0x5eed),
      deadline,
      log,
    };
    witness = await startWebhookWitness(createRandom(seed ^ 0x3eb));
    await witness.register(api, adminKey);
    log('workload and faults start');
    faults = faultRunner({
      plan,
      windowMs,
      workers: size.workers,
      cluster,
      sandbox,
      probe: createProbe(cluster.urls.api, temporal, loadConfig({}).TEMPORAL_TASK_QUEUE),
      startedAt,
      deadline,
      log,
    });
    const [injected, workload] = await Promise.all([faults.run(), driveWorkload(ctx, size.workload)]);
    log('workload driven; waiting for everything to settle');
    await settle(ctx, workload);
    log('settled; reading the ledger, the records and Temporal');
    const evidence = await collectEvidence(db, sandbox, temporal, workload);
    const webhooks = await witness.check(db, Date.now() + WEBHOOK_DRAIN_MS);
    log(`webhooks: ${webhooks.delivered} of ${webhooks.recorded} events delivered`);
    const report = buildReport({
      seed,
      size: size.name,
      workers: size.workers,
      startedAt: started,
      workload,
      evidence,
      money: checkMoney(workload, evidence.records, evidence.ledger),
      processes: checkProcesses(workload, evidence),
      notifications: checkNotifications(evidence.ipnLog, evidence.storedNotifications),
      webhooks,
      planned: plan.processFaults.map((fault) => fault.kind),
      injected: injected.injected,
      rules: injected.gatewayRules,
      retries: api.retries,
      unanswered: api.unanswered,
      driveFailures: [
        ...driveFailures(workload),
        ...unexpectedExits.map((exit) => ({
          id: exit,
          step: 'process',
          detail: 'exited without being killed',
        })),
      ],
    });
    await db.destroy();
    return report;
  } finally {
    await connection?.close().catch(() => undefined);
    await witness?.close().catch(() => undefined);
    if (cluster) running.delete(cluster);
    await cluster?.stop().catch((error: unknown) => log(`stopping the cluster: ${String(error)}`));
    if (options.keepData) log(`data kept in ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
