/**
 * What one item of a benchmark cost, apart from how fast this machine is: Temporal's history events,
 * workflow tasks and activities of the workflows the benchmark started, and payrun's round trips to
 * PostgreSQL (on the cluster shape also the Temporal server's own transactions). Printed after every
 * benchmark by scripts/bench/main.ts; docs/performance.md says how to read the figures.
 */
import os from 'node:os';
import type { Client } from '@temporalio/client';
import { isLocalActivity } from '../../platform/local-activity-markers';
import type { Db } from '../../db/shared/knex';

/** What a benchmark says it pushed through: the figures are divided by `count`. */
export interface BenchItems {
  count: number;
  /** Singular noun for the figures' heading ("payment", "disbursement"). */
  noun: string;
  /**
   * Workflows started before the measured window (in a benchmark's `prepare`) that worked in it: their
   * events from the window's start on count too, under their type marked "(already running)".
   */
  running?: { workflowIds: string[]; type: string };
  /** What the benchmark does once the window has closed and its costs are printed (a floor, its checks): not counted. */
  afterwards?: () => Promise<void>;
}

/**
 * Counters that only grow, read before and after a benchmark. `method` names how they were taken: a knex
 * `query` counter is every round trip; pg_stat_database counts transactions (one per statement outside a
 * transaction, one per BEGIN…COMMIT), which is what a process outside this one lets us see.
 */
export interface DatabaseCounters {
  method: string;
  read(): Promise<Record<string, number>>;
}

/** One normalized statement's work in the window (pg_stat_statements), by the database it ran in. */
export interface StatementCost {
  database: string;
  query: string;
  calls: number;
  /** Time the server spent executing it, in ms, summed over its calls. */
  totalMs: number;
}

/** pg_stat_statements, where the PostgreSQL loaded it (`BENCH_STATEMENTS=<n>`, the n busiest printed). */
export interface StatementCounters {
  top: number;
  reset(): Promise<void>;
  read(): Promise<StatementCost[]>;
}

export interface CostProbe {
  temporal: Client;
  database: DatabaseCounters;
  statements?: StatementCounters;
  /** The worker processes' own counters (the SDK's workflow cache), where their /metrics can be read. */
  workers?: DatabaseCounters;
  /** CPU seconds by process (scripts/bench/process-cpu.ts), read at the window's end, before the settle. */
  cpu?: DatabaseCounters;
}

/**
 * Sums, over every label set, the SDK counters in Prometheus text that say how the workflow cache did:
 * a miss is a workflow replayed from its history before its task could run.
 */
export function workflowCacheCounters(text: string): Record<string, number> {
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    'sticky-cache hits': sum('temporal_sticky_cache_hit') + sum('temporal_sticky_cache_hit_total'),
    'sticky-cache misses (replays)':
      sum('temporal_sticky_cache_miss') + sum('temporal_sticky_cache_miss_total'),
    // Evicted to make room (the cache was full): each such workflow is replayed on its next task.
    'forced evictions': sum('temporal_sticky_cache_total_forced_eviction'),
  };
}

/** Counts every query `db` sends from now on (its `query` event fires once per round trip). */
export function queryCounter(db: Db): () => number {
  let queries = 0;
  db.on('query', () => {
    queries += 1;
  });
  return () => queries;
}

/**
 * Committed plus rolled-back transactions of each named database, after making the statistics current:
 * PostgreSQL 15+ backends flush their counts when idle at most every 10 s, so the caller waits that long
 * after the load (`settleMs`) before reading.
 */
export async function transactionsOf(db: Db, databases: readonly string[]): Promise<Record<string, number>> {
  await db.raw('select pg_stat_force_next_flush()');
  const rows = await db('pg_stat_database')
    .whereIn('datname', databases)
    .select('datname', db.raw('xact_commit + xact_rollback as xacts'));
  return Object.fromEntries(
    (rows as Array<{ datname: string; xacts: string }>).map((row) => [row.datname, Number(row.xacts)]),
  );
}

interface WorkflowCost {
  type: string;
  events: number;
  workflowTasks: number;
  /** Queued and local activities together. */
  activities: number;
  /** Of them, local activities (run inside a workflow task: a marker, no activity task of their own). */
  localActivities: number;
}

/**
 * The statements every database ran since the last reset (`resetStatements`, which creates the extension
 * where `db` connects; its view shows every database of the server), most called first.
 */
export async function statementsOf(db: Db): Promise<StatementCost[]> {
  const { rows } = (await db.raw(
    `select d.datname as database, s.query, s.calls, s.total_exec_time as total_ms
       from pg_stat_statements s join pg_database d on d.oid = s.dbid
      order by s.calls desc`,
  )) as { rows: Array<{ database: string; query: string; calls: string; total_ms: number }> };
  return rows.map((row) => ({
    database: row.database,
    query: row.query,
    calls: Number(row.calls),
    totalMs: Number(row.total_ms),
  }));
}

export async function resetStatements(db: Db): Promise<void> {
  await db.raw('create extension if not exists pg_stat_statements');
  await db.raw('select pg_stat_statements_reset()');
}

/** Histories fetched at most; above it a random sample stands for all (and the figures say so). */
const HISTORY_SAMPLE = Number(process.env.BENCH_HISTORY_SAMPLE ?? 300);

async function costOf(
  client: Client,
  workflowId: string,
  runId: string | undefined,
  type: string,
  since?: Date,
): Promise<WorkflowCost> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = (history.events ?? []).filter(
    (event) =>
      !since ||
      Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6 >= since.getTime(),
  );
  return {
    type,
    events: events.length,
    workflowTasks: events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    activities: events.filter((event) => event.activityTaskScheduledEventAttributes || isLocalActivity(event))
      .length,
    localActivities: events.filter(isLocalActivity).length,
  };
}

function sample<T>(items: T[], size: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, size);
}

/**
 * Every workflow started since `since` (visibility), then the histories of all or a sample of them. Those the
 * benchmark counts as already running are left out: the window's second of slack may reach their start.
 */
async function workflowCostsSince(client: Client, since: Date, alreadyRunning: ReadonlySet<string>) {
  const started: Array<{ workflowId: string; runId: string; type: string }> = [];
  for await (const execution of client.workflow.list({ query: `StartTime >= '${since.toISOString()}'` }))
    if (!alreadyRunning.has(execution.workflowId))
      started.push({ workflowId: execution.workflowId, runId: execution.runId, type: execution.type });
  const chosen = started.length > HISTORY_SAMPLE ? sample(started, HISTORY_SAMPLE) : started;
  const costs: WorkflowCost[] = [];
  // A few at a time: the server is the one measured, not to be flooded after the run.
  for (let i = 0; i < chosen.length; i += 16)
    costs.push(
      ...(await Promise.all(
        chosen.slice(i, i + 16).map((one) => costOf(client, one.workflowId, one.runId, one.type)),
      )),
    );
  return { started: started.length, costs };
}

export interface Measured {
  items?: BenchItems;
  workflows: number;
  sampled: number;
  /** By workflow type: how many were started, and the mean of each figure over the fetched histories. */
  byType: Array<{ type: string; started: number } & Omit<WorkflowCost, 'type'>>;
  /** Database counter deltas by counter name. */
  database: Record<string, number>;
  databaseMethod: string;
  /** Worker counter deltas (the SDK's workflow cache), when the stack can read them. */
  workers?: Record<string, number>;
  /** CPU seconds each process spent in the window, and the window's length (Linux only). */
  cpu?: { seconds: Record<string, number>; windowSeconds: number };
  /** The statements the window ran, and how many of them to print (`BENCH_STATEMENTS`). */
  statements?: { top: number; rows: StatementCost[] };
}

/**
 * Runs one benchmark between two readings of the counters. The workflows are found by their start time,
 * so what the same stack ran before is not counted; histories are read when the benchmark returns (a
 * workflow still waiting then, e.g. for a customer, is counted as far as it got).
 */
export async function measureCosts(
  probe: CostProbe,
  run: () => Promise<BenchItems | void>,
  settleMs = 0,
): Promise<Measured> {
  const windowStart = new Date();
  // Workflows started in the window are found by start time, with a second's slack for clock rounding.
  const since = new Date(windowStart.getTime() - 1000);
  const before = await probe.database.read();
  const workersBefore = await probe.workers?.read();
  const cpuBefore = await probe.cpu?.read();
  await probe.statements?.reset();
  const items = (await run()) ?? undefined;
  const cpuAfter = await probe.cpu?.read();
  const windowSeconds = (Date.now() - windowStart.getTime()) / 1000;
  if (settleMs) await new Promise((resolve) => setTimeout(resolve, settleMs));
  const after = await probe.database.read();
  const workersAfter = await probe.workers?.read();
  // Read before the histories are fetched, whose reads are the benchmark's, not the design's.
  const statements = probe.statements && { top: probe.statements.top, rows: await probe.statements.read() };
  const inWindow = await workflowCostsSince(probe.temporal, since, new Set(items?.running?.workflowIds));
  const groups = [{ total: inWindow.started, costs: inWindow.costs }];
  if (items?.running) {
    const { workflowIds, type } = items.running;
    const chosen = sample(workflowIds, HISTORY_SAMPLE);
    const costs: WorkflowCost[] = [];
    for (let i = 0; i < chosen.length; i += 16)
      costs.push(
        ...(await Promise.all(
          chosen
            .slice(i, i + 16)
            .map((id) => costOf(probe.temporal, id, undefined, `${type} (already running)`, windowStart)),
        )),
      );
    groups.push({ total: workflowIds.length, costs });
  }
  const byType = groups.flatMap(({ total, costs }) => {
    const scale = costs.length ? total / costs.length : 0;
    return [...new Set(costs.map((cost) => cost.type))].sort().map((type) => {
      const ofType = costs.filter((cost) => cost.type === type);
      const mean = (pick: (cost: WorkflowCost) => number) =>
        ofType.reduce((sum, cost) => sum + pick(cost), 0) / ofType.length;
      return {
        type,
        started: Math.round(ofType.length * scale),
        events: mean((cost) => cost.events),
        workflowTasks: mean((cost) => cost.workflowTasks),
        activities: mean((cost) => cost.activities),
        localActivities: mean((cost) => cost.localActivities),
      };
    });
  });
  const grown = (later: Record<string, number>, earlier: Record<string, number>) =>
    Object.fromEntries(Object.entries(later).map(([name, value]) => [name, value - (earlier[name] ?? 0)]));
  const database = grown(after, before);
  return {
    ...(items && { items }),
    workflows: groups.reduce((sum, group) => sum + group.total, 0),
    sampled: groups.reduce((sum, group) => sum + group.costs.length, 0),
    byType,
    database,
    databaseMethod: probe.database.method,
    ...(workersBefore && workersAfter && { workers: grown(workersAfter, workersBefore) }),
    ...(cpuBefore &&
      cpuAfter &&
      Object.keys(cpuAfter).length > 0 && {
        cpu: { seconds: grown(cpuAfter, cpuBefore), windowSeconds },
      }),
    ...(statements && { statements }),
  };
}

const fixed = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const localNote = (local: number) => (local > 0 ? ` (${fixed(local)} of them local)` : '');

/** The figures as lines: per item when the benchmark named its items, per workflow otherwise. */
export function costLines(label: string, measured: Measured): string[] {
  const { items } = measured;
  const per = items ? items.noun : 'workflow';
  const divisor = items?.count ?? measured.workflows;
  const lines = [`  writes per ${per} (${label}):`];
  if (!divisor) return [...lines, '    nothing was started or counted'];
  const total = (pick: (type: Measured['byType'][number]) => number) =>
    measured.byType.reduce((sum, type) => sum + pick(type) * type.started, 0) / divisor;
  const sampledNote =
    measured.sampled < measured.workflows ? `, histories of a random ${measured.sampled} of them` : '';
  lines.push(
    `    Temporal: ${fixed(total((type) => type.events))} history events, ` +
      `${fixed(total((type) => type.workflowTasks))} workflow tasks, ` +
      `${fixed(total((type) => type.activities))} activities${localNote(total((type) => type.localActivities))} ` +
      `(${measured.workflows} workflows ${items?.running ? 'started or already running' : 'started'}${sampledNote}${items ? `, ${items.count} ${items.noun}s` : ''})`,
  );
  for (const type of measured.byType)
    lines.push(
      `      ${type.type} ×${type.started}: ${fixed(type.events)} events, ${fixed(type.workflowTasks)} workflow tasks, ${fixed(type.activities)} activities${localNote(type.localActivities)} each`,
    );
  const database = Object.entries(measured.database)
    .map(([name, value]) => `${fixed(value / divisor)} ${name}`)
    .join(', ');
  lines.push(`    PostgreSQL: ${database} (${measured.databaseMethod})`);
  if (measured.workers)
    lines.push(
      `    Workers: ${Object.entries(measured.workers)
        .map(([name, value]) => `${fixed(value / divisor)} ${name}`)
        .join(', ')} (the SDK's counters on every worker's /metrics)`,
    );
  if (measured.cpu) lines.push(...cpuLines(measured.cpu, divisor));
  if (measured.statements) lines.push(...statementLines(measured.statements, divisor));
  return lines;
}

/** Longest statement text printed: enough to tell which table and which operation. */
const STATEMENT_TEXT = 140;

/**
 * Each database's statements per item (calls and the server's execution time), its busiest `top` by calls:
 * where a database's transactions per item come from. BEGIN and COMMIT count as statements of their own.
 */
function statementLines(statements: NonNullable<Measured['statements']>, divisor: number): string[] {
  const lines = ["    Statements per item (pg_stat_statements; the benchmark's own reads included):"];
  const databases = [...new Set(statements.rows.map((row) => row.database))].sort();
  for (const database of databases) {
    const rows = statements.rows.filter((row) => row.database === database);
    const calls = rows.reduce((sum, row) => sum + row.calls, 0);
    const ms = rows.reduce((sum, row) => sum + row.totalMs, 0);
    lines.push(
      `      ${database}: ${fixed(calls / divisor)} statements, ${(ms / divisor).toFixed(2)} ms executing, in ${rows.length} kinds`,
    );
    for (const row of rows.slice(0, statements.top)) {
      const text = row.query.replace(/\s+/g, ' ').slice(0, STATEMENT_TEXT);
      lines.push(
        `        ${fixed(row.calls / divisor)} × ${(row.totalMs / Math.max(row.calls, 1)).toFixed(3)} ms  ${text}`,
      );
    }
  }
  return lines;
}

/**
 * CPU per item by process, busiest first, and the share of the machine's cores the window used: a design
 * that spends less CPU where the sum is highest is the one that moves a rate on shared cores.
 */
function cpuLines(cpu: NonNullable<Measured['cpu']>, divisor: number): string[] {
  const entries = Object.entries(cpu.seconds)
    .filter(([, seconds]) => seconds >= 0.005)
    .sort(([, a], [, b]) => b - a);
  const total = entries.reduce((sum, [, seconds]) => sum + seconds, 0);
  const cores = os.cpus().length;
  const busy = (100 * total) / (cpu.windowSeconds * cores);
  return [
    `    CPU per item: ${fixed((1000 * total) / divisor)} ms in all (${fixed(busy)} % of ${cores} cores over the ${fixed(cpu.windowSeconds)} s window): ` +
      entries.map(([name, seconds]) => `${name} ${fixed((1000 * seconds) / divisor)}`).join(', ') +
      ' ms (/proc, each process with its children)',
  ];
}
