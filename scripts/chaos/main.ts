/**
 * `npm run chaos [-- --seed N] [--size full|small] [--json [file]] [--keep-data]`: drives the full
 * workload on the production shape while faults are injected on a seeded schedule, prints the figures,
 * and exits 1 only when money was paid twice or lost (never because something was slow). `--json`
 * alone prints the JSON document instead of the table; with a file it writes it there as well.
 */
import fs from 'node:fs';
import { formatReport } from './report';
import { runChaos, stopRunningClusters } from './run';
import { SIZES } from './sizes';

function option(args: string[], name: string): string | undefined {
  const at = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (at === -1) return undefined;
  if (args[at]!.includes('=')) return args[at]!.split('=')[1];
  const next = args[at + 1];
  return next && !next.startsWith('--') ? next : '';
}

async function main(): Promise<number> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the cluster, newest process first`);
      void stopRunningClusters().then(() => process.exit(130));
    });
  const args = process.argv.slice(2);
  const seedText = option(args, '--seed');
  const seed = seedText ? Number(seedText) : Math.floor(Math.random() * 1_000_000);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`--seed must be a whole number ≥ 0, got "${seedText}"`);
  const sizeName = option(args, '--size') ?? 'full';
  if (!(sizeName in SIZES)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  const json = option(args, '--json');
  const report = await runChaos({
    seed,
    size: SIZES[sizeName as keyof typeof SIZES],
    keepData: args.includes('--keep-data'),
  });
  const document = `${JSON.stringify(report, null, 2)}\n`;
  if (json) fs.writeFileSync(json, document);
  process.stdout.write(json === '' ? document : `${formatReport(report)}\n`);
  return report.verdict.moneySafe ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
