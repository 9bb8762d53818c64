/**
 * Carries out a fault plan on a running cluster: the sandbox's gateway and notification rules for the
 * fault window, and each process fault at its moment — SIGKILL, a few seconds down for the services (a
 * worker is started again at once, as a supervisor would), start again, then measure until the stack
 * serves a client end to end (probe.ts).
 */
import type { Cluster } from '../cluster/cluster';
import type { SandboxAdminClient } from '../cluster/sandbox-admin';
import type { FaultRule, ListedFaultRule } from '../../sandbox/faults';
import type { Probe } from './probe';
import type { FaultPlan, ProcessFault, ProcessFaultKind } from './schedule';
import { sleep } from './workload/context';

export interface InjectedFault extends ProcessFault {
  /** When it actually happened (ms after the workload started). */
  startedMs: number;
  /** From the kill until the process was started again and serving. */
  restartedAfterMs: number;
  /** From the kill until the stack served a client end to end (undefined: not within the deadline). */
  recoveredAfterMs?: number;
}

export interface FaultRun {
  injected: InjectedFault[];
  /** The sandbox's rules as they stood when the window closed, with how often each applied. */
  gatewayRules: ListedFaultRule[];
}

/** Seconds a service stays down before it is started again (a worker is restarted at once). */
const DOWN_MS: Record<ProcessFaultKind, number> = { worker: 0, api: 3_000, temporal: 3_000, postgres: 3_000 };

export interface FaultRunner {
  /** Processes being started again by the runner: their exits while starting are expected. */
  restarting: Set<string>;
  run(): Promise<FaultRun>;
}

export function faultRunner(input: {
  plan: FaultPlan;
  windowMs: number;
  workers: number;
  cluster: Cluster;
  sandbox: SandboxAdminClient;
  probe: Probe;
  startedAt: number;
  deadline: number;
  log(line: string): void;
}): FaultRunner {
  const { plan, cluster, sandbox, probe, startedAt, log } = input;
  const restarting = new Set<string>();
  const injected: InjectedFault[] = [];
  const inWindow = () => Date.now() - startedAt <= input.windowMs;
  const until = async (fault: ProcessFault) => {
    const wait = startedAt + fault.atMs - Date.now();
    if (wait > 0) await sleep(wait);
  };

  /** API, Temporal and PostgreSQL faults one after the other, each measured until the stack serves. */
  const services = async (faults: ProcessFault[]) => {
    for (const fault of faults) {
      if (!inWindow()) return;
      await until(fault);
      injected.push(await inject(fault, fault.target));
    }
  };

  /**
   * Worker kills at their planned moments, without waiting for the last one to come back (a worker
   * takes 10–30 s to start here): the planned worker, or another one when it is still starting. One
   * worker is always left running, so a kill never stops all the work on its own.
   */
  const workers = async (faults: ProcessFault[]) => {
    const pending: Promise<void>[] = [];
    const names = Array.from({ length: input.workers }, (_, i) => `worker-${i + 1}`);
    for (const fault of faults) {
      await until(fault);
      if (!inWindow()) break;
      const up = names.filter((name) => !restarting.has(name));
      if (up.length <= 1) {
        log(
          `fault: worker kill at ${(fault.atMs / 1000).toFixed(0)}s skipped: only ${up.join('') || 'no worker'} is up`,
        );
        continue;
      }
      const target = up.includes(fault.target) ? fault.target : up[fault.atMs % up.length]!;
      restarting.add(target);
      pending.push(
        inject(fault, target).then((done) => {
          injected.push(done);
        }),
      );
    }
    await Promise.all(pending);
  };

  const inject = async (fault: ProcessFault, target: string): Promise<InjectedFault> => {
    const killedAt = Date.now();
    restarting.add(target);
    log(`fault: ${fault.kind === 'postgres' ? 'stopping PostgreSQL hard' : `SIGKILL ${target}`}`);
    try {
      await cluster
        .kill(target)
        .catch((error: unknown) => log(`  could not kill ${target}: ${String(error)}`));
      await sleep(DOWN_MS[fault.kind]);
      await restart(target);
    } finally {
      restarting.delete(target);
    }
    const restartedAfterMs = Date.now() - killedAt;
    const healthy = await probe.untilHealthy(input.deadline);
    const recoveredAfterMs = healthy ? Date.now() - killedAt : undefined;
    log(
      `  ${target} back after ${(restartedAfterMs / 1000).toFixed(1)}s, serving after ${recoveredAfterMs === undefined ? '—' : `${(recoveredAfterMs / 1000).toFixed(1)}s`}`,
    );
    return {
      ...fault,
      target,
      startedMs: killedAt - startedAt,
      restartedAfterMs,
      ...(recoveredAfterMs !== undefined && { recoveredAfterMs }),
    };
  };

  /** A process that cannot start yet (a worker while Temporal is down) is started again until it serves. */
  const restart = async (name: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await cluster.restart(name);
        return;
      } catch (error) {
        if (Date.now() > input.deadline) throw error;
        log(`  ${name} did not start (attempt ${attempt}): ${String(error).split('\n')[0]}`);
        await sleep(1_000);
      }
    }
  };

  return {
    restarting,
    async run() {
      await sandbox.setFaults(plan.gatewayRules);
      const window = sleep(input.windowMs - (Date.now() - startedAt)).then(async () => {
        const left = await sandbox.faults();
        await sandbox.clearFaults();
        log('fault window closed: gateway and notification faults off');
        return appliedCounts(plan.gatewayRules, left);
      });
      const [gatewayRules] = await Promise.all([
        window,
        workers(plan.processFaults.filter((fault) => fault.kind === 'worker')),
        services(plan.processFaults.filter((fault) => fault.kind !== 'worker')),
      ]);
      return { injected: injected.sort((a, b) => a.startedMs - b.startedMs), gatewayRules };
    },
  };
}

/**
 * How often each planned rule applied. The sandbox lists the rules still active; a rule with `times`
 * leaves the list once used up, so a planned rule missing from it applied all its `times`.
 */
function appliedCounts(planned: FaultRule[], left: ListedFaultRule[]): ListedFaultRule[] {
  const identity = (rule: FaultRule) =>
    JSON.stringify({ ...rule, times: undefined, applied: undefined, matched: undefined });
  const remaining = new Map(left.map((rule) => [identity(rule), rule]));
  return planned.map((rule) => {
    const listed = remaining.get(identity(rule));
    return listed
      ? { ...rule, applied: listed.applied, matched: listed.matched }
      : { ...rule, applied: rule.times ?? 0, matched: rule.times ?? 0 };
  });
}
