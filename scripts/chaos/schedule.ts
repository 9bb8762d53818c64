/**
 * The fault plan of one chaos run, a pure function of the seed and the size: the same `--seed` gives
 * the same kills at the same moments and the same gateway rules (whose per-call decisions the sandbox
 * seeds too), so a run that found something can be run again.
 */
import type { OperationName } from '../../gateway';
import { createRandom, type Random } from '../../sandbox/random';
import { FORGERY_KINDS, type FaultRule } from '../../sandbox/faults';
import type { ChaosSize } from './sizes';

export type ProcessFaultKind = 'worker' | 'api' | 'temporal' | 'postgres';

export interface ProcessFault {
  /** Milliseconds after the workload starts. */
  atMs: number;
  kind: ProcessFaultKind;
  /** The cluster's process name: worker-N, api, temporal, postgres. */
  target: string;
}

export interface FaultPlan {
  seed: number;
  processFaults: ProcessFault[];
  /** Sandbox fault rules, set when the workload starts and cleared when the window ends. */
  gatewayRules: FaultRule[];
}

/** Payment, binding, token and subscription workflows wait 2 minutes for a notification before asking. */
export const CUSTOMER_IPN_TIMEOUT_SECONDS = 120;

export interface PlanInput {
  seed: number;
  size: ChaosSize;
  /** PAYOUT_IPN_TIMEOUT_SECONDS the cluster runs with: a delayed notification comes after it. */
  payoutIpnTimeoutSeconds: number;
}

export function faultPlan({ seed, size, payoutIpnTimeoutSeconds }: PlanInput): FaultPlan {
  const random = createRandom(seed);
  const windowMs = size.faults.windowSeconds * 1000;
  return {
    seed,
    processFaults: [...workerKills(random, size, windowMs), ...serviceFaults(random, size, windowMs)].sort(
      (a, b) => a.atMs - b.atMs,
    ),
    gatewayRules: gatewayRules(seed, size, payoutIpnTimeoutSeconds),
  };
}

function workerKills(random: Random, size: ChaosSize, windowMs: number): ProcessFault[] {
  const [low, high] = size.faults.workerKillEverySeconds;
  const pick = () => `worker-${random.int(1, size.workers)}`;
  if (high === 0) return [{ atMs: random.int(3_000, windowMs - 3_000), kind: 'worker', target: pick() }];
  const kills: ProcessFault[] = [];
  for (let at = random.int(low * 1000, high * 1000); at < windowMs; at += random.int(low * 1000, high * 1000))
    kills.push({ atMs: at, kind: 'worker', target: pick() });
  return kills;
}

/**
 * API, Temporal and PostgreSQL faults, each in its own slot of the window (seeded order, seeded
 * moment in the first half of the slot) so that each one's recovery can be measured on its own.
 */
function serviceFaults(random: Random, size: ChaosSize, windowMs: number): ProcessFault[] {
  const kinds: ProcessFaultKind[] = [
    ...Array<ProcessFaultKind>(size.faults.apiKills).fill('api'),
    ...Array<ProcessFaultKind>(size.faults.temporalKills).fill('temporal'),
    ...Array<ProcessFaultKind>(size.faults.postgresStops).fill('postgres'),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const start = 5_000;
  const slot = (windowMs - start) / Math.max(kinds.length, 1);
  return kinds.map((kind, index) => ({
    atMs: Math.round(start + index * slot + random.next() * (slot / 2)),
    kind,
    target: kind,
  }));
}

function gatewayRules(seed: number, size: ChaosSize, payoutIpnTimeoutSeconds: number): FaultRule[] {
  const calls = size.faults.gatewayCallShare / 4;
  const gateway: FaultRule[] = [
    { probability: calls, seed, httpStatus: 503 },
    { probability: calls, seed, hang: true },
    { probability: calls, seed, dropResponse: true },
    { probability: calls, seed, resultCode: 10 },
  ];
  if (size.name === 'full') {
    // Every notification may be disturbed; a lost or late one is asked about after its workflow's
    // timeout: 2 minutes for customer flows, PAYOUT_IPN_TIMEOUT_SECONDS for payouts.
    const share = size.faults.notificationShare / 5;
    const delayMs = Math.max(payoutIpnTimeoutSeconds, CUSTOMER_IPN_TIMEOUT_SECONDS) * 1000 + 5_000;
    return [
      ...gateway,
      { probability: share, seed, ipn: { copies: 5 } },
      { probability: share, seed, ipn: { reorder: true } },
      { probability: share, seed, ipn: { delayMs } },
      { probability: share, seed, ipn: { drop: true } },
      ...FORGERY_KINDS.map((forge) => ({ probability: share / FORGERY_KINDS.length, seed, ipn: { forge } })),
    ];
  }
  // The small run (inside npm test) has few notifications: each disturbance happens once, on a seeded
  // pick among the first ones. Losing, holding back or delaying one is aimed at the payout flows, whose
  // workflows ask after PAYOUT_IPN_TIMEOUT_SECONDS (a customer flow would wait 2 minutes).
  const once = (ipn: NonNullable<FaultRule['ipn']>, operation?: OperationName, times = 1): FaultRule => ({
    ...(operation && { operation }),
    // A batch has one or two notifications of each kind: aimed ones are picked more eagerly.
    probability: Math.min(1, size.faults.notificationShare * (operation ? 3 : 1)),
    seed,
    times,
    ipn,
  });
  return [
    ...gateway,
    // Three copied notifications, not one: a single one may fall while the API is down (every copy then
    // fails and is redelivered singly) or on an unbind call, and the run would show no duplicates at all.
    once({ copies: 5 }, undefined, 3),
    once({ reorder: true }),
    ...FORGERY_KINDS.map((forge) => once({ forge })),
    once({ drop: true }, 'batch.create'),
    once({ delayMs: payoutIpnTimeoutSeconds * 1000 + 5_000 }, 'batch.pay'),
  ];
}
