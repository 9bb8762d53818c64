/**
 * `npm run bench -- [NAME …|all] [--shape dev|cluster|both] [--previous]`. Prints figures; never fails on a duration.
 * The dev shape is one process on the dev server; the cluster shape is `npm run cluster` (separate
 * processes, the Temporal server on PostgreSQL); both runs one after the other. A name the issue lists
 * whose benchmark does not exist yet is reported as such, never with a figure, and the exit code is 2.
 * --previous runs them first with SUBSCRIPTION_BILLING_PATH=self (each subscription charges itself).
 */
import { benchBillingDay } from './billing-day';
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

const suites: Record<string, (stack: BenchStack) => Promise<void>> = {
  'billing-day': benchBillingDay,
  'held-billing-day': benchHeldBillingDay,
  payouts: benchPayouts,
  'payout-file': benchPayoutFile,
  disbursements: benchDisbursements,
  payments: benchPayments,
  ipn: benchIpn,
  subscriptions: benchSubscriptions,
  uploads: benchUploads,
  'rate-limits': benchRateLimits,
};

/** Benchmarks issue 19 asks for that are not written yet, and the nearest figure that exists. */
const notYet: Record<string, string> = {};

const EXIT_NOT_IMPLEMENTED = 2;

async function runShape(shape: 'dev' | 'cluster', names: string[]): Promise<void> {
  const stack = shape === 'cluster' ? await startClusterBenchStack() : await startBenchStack();
  console.log(`Shape: ${stack.shape}`);
  try {
    for (const name of names) await suites[name]!(stack);
  } finally {
    await stack.close();
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
  const requested = args.filter((arg, index) => !arg.startsWith('--') && index !== shapeValueAt);
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
  // --previous: the billing day also on the design before the billing run, in the same run, first.
  const designs = args.includes('--previous') ? ['self', 'run'] : [undefined];
  for (const shape of shapes)
    for (const design of designs) {
      if (!runnable.length) continue;
      if (design) {
        process.env.SUBSCRIPTION_BILLING_PATH = design;
        console.log(
          `SUBSCRIPTION_BILLING_PATH=${design}${design === 'self' ? ' (the previous design)' : ''}`,
        );
      }
      await runShape(shape, runnable);
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
