/**
 * A Temporal dev server of a test file's own that the test can stop and start again, as an outage does:
 * its state lives in a SQLite file, so workflows started before the stop are there after the start, on the
 * same address. The run's shared dev server cannot be stopped (other files use it), and the time-skipping
 * server keeps its state in memory only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort } from '../../scripts/cluster/readiness';
import { resolveDevServer } from '../../scripts/temporal-binaries';
import { installQuietRuntime } from './temporal';

export interface StoppableTemporal {
  /** host:port, the same across stops and starts. */
  address: string;
  /** Kills the server (SIGKILL, as a crash); resolves once it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same address and state; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it if running and removes its state. */
  teardown(): Promise<void>;
}

export async function startStoppableTemporal(): Promise<StoppableTemporal> {
  installQuietRuntime();
  const executable = await resolveDevServer({ build: false });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-stoppable-temporal-'));
  const port = await freePort();
  let env: TestWorkflowEnvironment | undefined;
  const start = async () => {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable,
        ip: '127.0.0.1',
        port,
        dbFilename: path.join(folder, 'temporal.db'),
      },
    });
  };
  const stop = async () => {
    const running = env;
    env = undefined;
    await running?.teardown();
  };
  await start();
  return {
    address: `127.0.0.1:${port}`,
    stop,
    start,
    async teardown() {
      await stop();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
