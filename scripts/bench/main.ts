/**
 * `npm run bench -- payouts [--shape dev|cluster]`. Prints figures; never fails on a duration. The dev
 * shape is one process on the dev server; the cluster shape is `npm run cluster` (separate processes,
 * the Temporal server on PostgreSQL).
 */
import { startClusterBenchStack } from './cluster-stack';
import { startBenchStack } from './harness';
import { benchPayouts } from './payouts';
import { benchSubscriptions } from './subscriptions';
import { benchUploads } from './uploads';
import { benchRateLimits } from './rate-limits';

const suites: Record<string, (stack: Awaited<ReturnType<typeof startBenchStack>>) => Promise<void>> = {
  payouts: benchPayouts,
  subscriptions: benchSubscriptions,
  uploads: benchUploads,
  'rate-limits': benchRateLimits,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const shapeAt = args.indexOf('--shape');
  const shape = shapeAt === -1 ? 'dev' : args[shapeAt + 1];
  if (shape !== 'dev' && shape !== 'cluster')
    throw new Error(`--shape must be dev or cluster, got "${shape ?? ''}"`);
  const shapeValueAt = shapeAt === -1 ? -1 : shapeAt + 1;
  const requested = args.filter((arg, index) => !arg.startsWith('--') && index !== shapeValueAt);
  const names = requested.length ? requested : Object.keys(suites);
  const unknown = names.filter((name) => !suites[name]);
  if (unknown.length)
    throw new Error(`Unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(suites).join(', ')}`);
  const stack = shape === 'cluster' ? await startClusterBenchStack() : await startBenchStack();
  console.log(`Shape: ${stack.shape}`);
  try {
    for (const name of names) await suites[name]!(stack);
  } finally {
    await stack.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
