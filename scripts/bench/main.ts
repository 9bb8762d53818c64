/**
 * `npm run bench -- [NAME …|all] [--shape dev|cluster|both] [--previous] [--repeat N]`. Prints figures; never
 * fails on a duration. `--repeat N` runs each benchmark N times, each on a fresh stack, and prints the runs' spread
 * (scripts/bench/repeat.ts). After each benchmark it prints what an item cost in writes (scripts/bench/costs.ts);
 * `--previous` runs each benchmark that has a comparison switch again on a stack of its own with the
 * switch set (the design before), and prints the same figures for it.
 * The dev shape is one process on the dev server; the cluster shape is `npm run cluster` (separate
 * processes, the Temporal server on PostgreSQL); both runs one after the other. A name the issue lists
 * whose benchmark does not exist yet is reported as such, never with a figure, and the exit code is 2.
 */
import { benchBillingDay } from './billing-day';
import { activeBillingDay } from './active-billing-day';
import { benchHeldBillingDay } from './held-billing-day';
import { startClusterBenchStack } from './cluster-stack';
import { startBenchStack, type BenchStack } from './harness';
import { benchDisbursements } from './disbursements';
import { benchIpn } from './ipn';
import { benchPayments } from './payments';
import { benchPayoutFile } from './payout-file';
import { benchPayouts } from './payouts';
import { benchSubscriptions } from './subscriptions';
import { benchUploads } from './uploads';
import { benchRateLimits } from './rate-limits';
import { workflowFloor } from './workflow-floor';
import { cpuCounters } from './process-cpu';
import { costLines, measureCosts, type BenchItems, type Measured } from './costs';
import { repeatsOf, spreadLines } from './repeat';

/**
 * A benchmark whose set-up is not what it measures: `prepare` runs before the counters are read and
 * answers the part that is timed and counted (its items say which already-running workflows worked in it).
 */
interface PreparedBench {
  prepare(stack: BenchStack): Promise<() => Promise<BenchItems>>;
}
type Bench = ((stack: BenchStack) => Promise<void | BenchItems>) | PreparedBench;

const suites: Record<string, Bench> = {
  'billing-day': benchBillingDay,
  'active-billing-day': activeBillingDay,
  'held-billing-day': benchHeldBillingDay,
  payouts: benchPayouts,
  'payout-file': benchPayoutFile,
  disbursements: benchDisbursements,
  payments: benchPayments,
  ipn: benchIpn,
  subscriptions: benchSubscriptions,
  uploads: benchUploads,
  'rate-limits': benchRateLimits,
  'workflow-floor': workflowFloor,
};

/**
 * A benchmark's previous design, selectable by configuration only for this comparison (`--previous`):
 * the settings that switch it back, given to the API and workers of a second stack. One line per switch.
 */
const previousDesigns: Record<string, { switches: Record<string, string>; what: string }> = {
  payments: {
    switches: { PAYMENT_DESK: 'false' },
    what: 'a workflow for each payment, its create made in its first workflow task and its result signalled to it (PAYMENT_DESK=false)',
  },
  disbursements: {
    switches: { DISBURSEMENT_DESK: 'false' },
    what: 'a workflow for each payout, the payout made in its first workflow task (DISBURSEMENT_DESK=false)',
  },
  subscriptions: {
    switches: { SUBSCRIPTION_DESK: 'false' },
    what: "each subscription's workflow starts at its create and makes the authorization's start in its first workflow task (SUBSCRIPTION_DESK=false)",
  },
  'billing-day': {
    switches: {
      SUBSCRIPTION_BILLING_PATH: 'self',
      STEPS_AS_QUEUED_ACTIVITIES: 'true',
      SUBSCRIPTION_DESK: 'false',
    },
    what: 'each subscription charges itself, no billing run (SUBSCRIPTION_BILLING_PATH=self), its workflow started at the create (SUBSCRIPTION_DESK=false), its onboarding in queued activities (STEPS_AS_QUEUED_ACTIVITIES)',
  },
  'active-billing-day': {
    switches: { BILLING_RUN_SIGNALS_SUCCESS: 'true' },
    what: "the run signals each success to its workflow at once (BILLING_RUN_SIGNALS_SUCCESS); the design before it, each cycle charged from its workflow's own timer, cannot be brought forward: from stored histories it costs 11 events, 2 workflow tasks, 1 activity per billed cycle (docs/performance.md)",
  },
};

/**
 * Benchmarks that need settings of their own, on a stack of their own: active-billing-day's workflows read
 * the run's success at the end of their grace, which its set-up waits for (the default is 180 minutes).
 */
const ownStacks: Record<string, Record<string, string>> = {
  'active-billing-day': { SUBSCRIPTION_RUN_GRACE_MINUTES: '3' },
};

/** Benchmarks whose previous design cannot be run the same way, and where its figures are instead. */
const notComparable: Record<string, string> = {};

/**
 * Benchmarks that compare the previous design themselves, on a second API process of the same stack under
 * the same load (`ipn`: IPN_SIGNAL_BEFORE_ANSWER), so `--previous` starts no second stack for them.
 */
const comparesItself = new Set(['ipn']);

/** Benchmarks issue 19 asks for that are not written yet, and the nearest figure that exists. */
const notYet: Record<string, string> = {};

const EXIT_NOT_IMPLEMENTED = 2;

const startStack = (shape: 'dev' | 'cluster', switches: Record<string, string> = {}) =>
  shape === 'cluster' ? startClusterBenchStack(undefined, switches) : startBenchStack(switches);

/** One benchmark, then what its items cost. */
async function runMeasured(stack: BenchStack, name: string, label: string): Promise<Measured> {
  const suite = suites[name]!;
  let run: () => Promise<void | BenchItems>;
  if (typeof suite === 'function') run = () => suite(stack);
  else run = await suite.prepare(stack);
  // The benchmark's own process: on the dev shape it is also the API, the worker and the sandbox.
  const self =
    stack.processes().find(({ pid }) => pid === process.pid)?.name ?? 'benchmark process (its clients)';
  const cpu = cpuCounters(() => stack.processes(), self);
  const measured = await measureCosts({ ...stack.costs, cpu }, run, stack.costs.settleMs);
  for (const line of costLines(label, measured)) console.log(line);
  await measured.items?.afterwards?.();
  return measured;
}

/** Each run's figures by benchmark and design, for the spread printed after the last run. */
type Runs = Map<string, { name: string; label: string; measured: Measured[] }>;
function keep(runs: Runs, name: string, label: string, measured: Measured): void {
  const key = `${label}/${name}`;
  const kept = runs.get(key) ?? { name, label, measured: [] };
  kept.measured.push(measured);
  runs.set(key, kept);
}

/** `runNote`: which of the `--repeat` runs this is ("" for a single run). */
async function runShape(
  shape: 'dev' | 'cluster',
  names: string[],
  previous: boolean,
  runs: Runs,
  runNote: string,
): Promise<void> {
  const shared = names.filter((name) => !ownStacks[name]);
  if (shared.length) {
    const stack = await startStack(shape);
    console.log(`Shape: ${stack.shape}${runNote}`);
    try {
      for (const name of shared)
        keep(runs, name, 'this design', await runMeasured(stack, name, 'this design'));
    } finally {
      await stack.close();
    }
  }
  for (const name of names.filter((name) => ownStacks[name])) {
    const settings = ownStacks[name]!;
    const stack = await startStack(shape, settings);
    console.log(
      `Shape: ${stack.shape}, for ${name}: ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    try {
      keep(runs, name, 'this design', await runMeasured(stack, name, 'this design'));
    } finally {
      await stack.close();
    }
  }
  if (!previous) return;
  for (const name of names) {
    const design = previousDesigns[name];
    if (comparesItself.has(name)) continue;
    if (!design) {
      console.log(
        `${name}: ${notComparable[name] ?? 'no previous design to compare (no comparison switch)'}`,
      );
      continue;
    }
    // A stack of its own: the switch is configuration the API and workers read at start.
    const old = await startStack(shape, { ...ownStacks[name], ...design.switches });
    console.log(`Shape: ${old.shape}, previous design of ${name}: ${design.what}`);
    try {
      keep(runs, name, 'previous design', await runMeasured(old, name, 'previous design'));
    } finally {
      await old.close();
    }
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const shapeAt = args.indexOf('--shape');
  const given = shapeAt === -1 ? 'dev' : args[shapeAt + 1];
  if (given !== 'dev' && given !== 'cluster' && given !== 'both')
    throw new Error(`--shape must be dev, cluster or both, got "${given ?? ''}"`);
  const shapes: ('dev' | 'cluster')[] = given === 'both' ? ['dev', 'cluster'] : [given];
  const shapeValueAt = shapeAt === -1 ? -1 : shapeAt + 1;
  // A number is a flag's value (`ipn --rate 500 --seconds 60`), never a benchmark's name.
  const requested = args.filter(
    (arg, index) => !arg.startsWith('--') && index !== shapeValueAt && !/^\d+(\.\d+)?$/.test(arg),
  );
  const previous = args.includes('--previous');
  const repeat = repeatsOf(args);
  const all = requested.length === 0 || requested.includes('all');
  const names = all ? [...Object.keys(suites), ...Object.keys(notYet)] : requested;
  const unknown = names.filter((name) => !suites[name] && !notYet[name]);
  if (unknown.length)
    throw new Error(
      `Unknown benchmark ${unknown.join(', ')}; choose from ${[...Object.keys(suites), ...Object.keys(notYet)].join(', ')}, all`,
    );
  const missing = names.filter((name) => notYet[name]);
  for (const name of missing) console.log(`${name}: ${notYet[name]}`);
  const runnable = names.filter((name) => suites[name]);
  for (const shape of shapes) {
    if (!runnable.length) continue;
    const runs: Runs = new Map();
    for (let run = 1; run <= repeat; run += 1)
      await runShape(shape, runnable, previous, runs, repeat > 1 ? `, run ${run} of ${repeat}` : '');
    if (repeat > 1)
      for (const { name, label, measured } of runs.values())
        for (const line of spreadLines(`${name}, ${shape}`, label, measured)) console.log(line);
  }
  return missing.length ? EXIT_NOT_IMPLEMENTED : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
