/**
 * Carries out a fault plan on a running cluster: the sandbox's gateway and notification rules for the
 * fault window, and each process fault at its moment — SIGKILL, a few seconds down for the services a
 * supervisor would restart anyway, start again, then measure until the stack serves (probe.ts).
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

export async function runFaults(input: {
  plan: FaultPlan;
  windowMs: number;
  cluster: Cluster;
  sandbox: SandboxAdminClient;
  probe: Probe;
  startedAt: number;
  deadline: number;
  log(line: string): void;
}): Promise<FaultRun> {
  const { plan, cluster, sandbox, probe, startedAt, log } = input;
  await sandbox.setFaults(plan.gatewayRules);
  const injected: InjectedFault[] = [];
  const timeline = async (faults: ProcessFault[]) => {
    for (const fault of faults) {
      // Each fault waits for the previous one's recovery: a kill planned meanwhile comes late, and one
      // that would come after the window is not made (the report counts planned and injected).
      if (Date.now() - startedAt > input.windowMs) return;
      const wait = startedAt + fault.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      injected.push(await inject(fault));
    }
  };
  const inject = async (fault: ProcessFault): Promise<InjectedFault> => {
    const killedAt = Date.now();
    log(`fault: ${fault.kind === 'postgres' ? 'stopping PostgreSQL hard' : `SIGKILL ${fault.target}`}`);
    await cluster
      .kill(fault.target)
      .catch((error: unknown) => log(`  could not kill ${fault.target}: ${String(error)}`));
    await sleep(DOWN_MS[fault.kind]);
    await restart(fault.target);
    const restartedAfterMs = Date.now() - killedAt;
    const healthy = await probe.untilHealthy(input.deadline);
    const recoveredAfterMs = healthy ? Date.now() - killedAt : undefined;
    log(
      `  ${fault.target} back after ${(restartedAfterMs / 1000).toFixed(1)}s, serving after ${recoveredAfterMs === undefined ? '—' : `${(recoveredAfterMs / 1000).toFixed(1)}s`}`,
    );
    return {
      ...fault,
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
  const window = sleep(input.windowMs - (Date.now() - startedAt)).then(async () => {
    const left = await sandbox.faults();
    await sandbox.clearFaults();
    log('fault window closed: gateway and notification faults off');
    return appliedCounts(plan.gatewayRules, left);
  });
  const [gatewayRules] = await Promise.all([
    window,
    timeline(plan.processFaults.filter((fault) => fault.kind === 'worker')),
    timeline(plan.processFaults.filter((fault) => fault.kind !== 'worker')),
  ]);
  return { injected, gatewayRules };
}

/**
 * How often each planned rule applied. The sandbox lists the rules still active; a rule with `times`
 * leaves the list once used up, so a planned rule missing from it applied all its `times`.
 */
function appliedCounts(planned: FaultRule[], left: ListedFaultRule[]): ListedFaultRule[] {
  const identity = (rule: FaultRule) => JSON.stringify({ ...rule, times: undefined, applied: undefined });
  const remaining = new Map(left.map((rule) => [identity(rule), rule]));
  return planned.map((rule) => {
    const listed = remaining.get(identity(rule));
    return { ...rule, applied: listed ? listed.applied : (rule.times ?? 0) };
  });
}
