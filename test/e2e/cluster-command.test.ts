/**
 * `npm run cluster` as an operator uses it: start it, read the processes it reports (banner and
 * processes.json), find each alive and serving, press Ctrl-C, and find none of them still running.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../../scripts/cluster/process-group';
import { eventually } from '../support/wait';

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);

describe('npm run cluster', () => {
  it('starts every part as its own process, records them, and stops them all on Ctrl-C', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-cluster-cmd-'));
    fs.chmodSync(dataDir, 0o755);
    // What `npm run cluster` runs; npm's and npx's wrappers would exit on Ctrl-C before the cluster has stopped.
    const args = ['--import', 'tsx', 'scripts/cluster/main.ts', '--workers', '3', '--free-ports'];
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYRUN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let records: ProcessRecord[] = [];
    try {
      await eventually(
        () => {
          if (child.exitCode !== null)
            throw new Error(`npm run cluster exited with ${child.exitCode}:\n${output}`);
          expect(output).toContain('payrun cluster is running');
        },
        { timeout: 180_000 },
      );
      records = JSON.parse(fs.readFileSync(path.join(dataDir, 'cluster', 'processes.json'), 'utf8'));
      expect(records.map((r) => r.role).sort()).toEqual(
        [
          'api',
          'codec-tls',
          'identity',
          'postgres',
          'sandbox',
          'temporal',
          'temporal-ui',
          'worker',
          'worker',
          'worker',
        ].sort(),
      );
      for (const record of records) {
        expect(alive(record.pid), record.name).toBe(true);
        expect(output).toContain(`pid ${record.pid}`);
      }
      const api = records.find((r) => r.role === 'api')!;
      const ready = await fetch(`http://127.0.0.1:${api.port}/readyz`);
      expect(await ready.json()).toMatchObject({ checks: { database: 'ok', temporal: 'ok' } });
      const ui = records.find((r) => r.role === 'temporal-ui')!;
      expect((await fetch(`http://127.0.0.1:${ui.port}/`)).status).toBe(200);

      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('Stopped; no process left running.');
      await eventually(() => expect(records.filter((r) => alive(r.pid)).map((r) => r.name)).toEqual([]));
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      for (const record of records) if (alive(record.pid)) process.kill(record.pid, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
