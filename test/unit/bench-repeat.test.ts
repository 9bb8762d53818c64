/**
 * `npm run bench -- NAME --repeat N`: the argument and the spread it prints (scripts/bench/repeat.ts). The runs
 * themselves are the benchmark's; what is checked here is that the spread says what the runs measured.
 */
import { describe, expect, it } from 'vitest';
import type { Measured } from '../../scripts/bench/costs';
import { median, repeatsOf, spreadLines } from '../../scripts/bench/repeat';

/** A run of `count` items in `windowSeconds`, the processes' CPU seconds as given. */
const run = (count: number, windowSeconds: number, seconds: Record<string, number>): Measured => ({
  items: { count, noun: 'subscription' },
  workflows: count,
  sampled: count,
  byType: [],
  database: {},
  databaseMethod: 'test',
  cpu: { seconds, windowSeconds },
});

describe('bench --repeat', () => {
  it('reads the count of runs, 1 without the flag, and names the rule when it is wrong', () => {
    expect(repeatsOf(['subscriptions', '--shape', 'cluster'])).toBe(1);
    expect(repeatsOf(['subscriptions', '--repeat', '5'])).toBe(5);
    for (const bad of [[], ['0'], ['2.5'], ['21'], ['five']])
      expect(() => repeatsOf(['subscriptions', '--repeat', ...bad])).toThrow(
        /--repeat must be a whole number from 1 to 20/,
      );
  });

  it('prints each run in order, then the median and the range of the rate and of the CPU per item', () => {
    const lines = spreadLines('subscriptions, cluster', 'this design', [
      run(1000, 40, { api: 10, workers: 60 }),
      run(1000, 32, { api: 8, workers: 52 }),
      run(1000, 36, { api: 9, workers: 56 }),
    ]);
    expect(lines).toEqual([
      'subscriptions, cluster (this design), 3 runs on fresh stacks:',
      '  subscriptions per second of the measured window: 25.0, 31.3, 27.8; median 27.8, range 25.0–31.3',
      '  CPU per subscription: 70.0, 60.0, 65.0 ms; median 65.0, range 60.0–70.0',
    ]);
  });

  it('says so when a run counted nothing, rather than a figure that hides it', () => {
    const empty: Measured = { ...run(1000, 40, {}), items: undefined, workflows: 0, cpu: undefined };
    expect(spreadLines('payments, dev', 'previous design', [run(100, 4, { all: 2 }), empty])).toEqual([
      'payments, dev (previous design), 2 runs on fresh stacks:',
      '  subscriptions per second of the measured window: 25.0; median 25.0, range 25.0–25.0',
      '  CPU per subscription: 20.0 ms; median 20.0, range 20.0–20.0',
      '  1 run(s) counted no items or CPU',
    ]);
    expect(spreadLines('payments, dev', 'this design', [empty])).toEqual([
      'payments, dev (this design), 1 run on fresh stacks: no run counted items and CPU, no spread to show',
    ]);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});
