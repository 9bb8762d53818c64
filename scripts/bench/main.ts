/** `npm run bench -- payouts` (and later other suites). Prints figures; never fails on a duration. */
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
  const requested = process.argv.slice(2);
  const names = requested.length ? requested : Object.keys(suites);
  const unknown = names.filter((name) => !suites[name]);
  if (unknown.length)
    throw new Error(`Unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(suites).join(', ')}`);
  const stack = await startBenchStack();
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
