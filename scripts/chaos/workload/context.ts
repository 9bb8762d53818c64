/** What every workload driver gets: the patient API client, the sandbox's customer side, ids, keys. */
import type { Db } from '../../../db/shared/knex';
import type { Random } from '../../../sandbox/random';
import type { SandboxAdminClient } from '../../cluster/sandbox-admin';
import type { ChaosApi } from '../api-client';

export interface ChaosKeys {
  maker: string;
  approver: string;
  billing: string;
  payments: string;
  remittance: string;
  viewer: string;
}

export interface WorkloadContext {
  api: ChaosApi;
  sandbox: SandboxAdminClient;
  /** payrun's database, read to wait for outcomes (cheaper than polling every object over HTTP). */
  db: Db;
  keys: ChaosKeys;
  /** Prefix of every business id of this run, derived from the seed. */
  tag: string;
  random: Random;
  /** Epoch ms after which drivers stop waiting for outcomes. */
  deadline: number;
  log(line: string): void;
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function inPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let index = next++; index < items.length; index = next++) await work(items[index]!, index);
    }),
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns a value or the deadline passes (then undefined). */
export async function waitUntil<T>(
  deadline: number,
  check: () => Promise<T | undefined>,
  everyMs = 2000,
): Promise<T | undefined> {
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch {
      // PostgreSQL or the API is down for a moment: ask again.
    }
    if (Date.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

/** A client-side failure to drive an item (the API refused it, or never answered): reported, never hidden. */
export interface DriveFailure {
  id: string;
  step: string;
  detail: string;
}

export const describeAnswer = (answer: { status: number; body: unknown }) =>
  `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
