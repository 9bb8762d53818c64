/**
 * `npm run dev` as a developer uses it: start it, see the URLs, reach the UI and the API, press
 * Ctrl-C (SIGINT to the whole foreground process group), and find nothing it started still running.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/global-setup';
import { eventually } from '../support/wait';

function processTable(): Array<{ pid: number; ppid: number; pgid: number }> {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        // Fields after the parenthesised command name: state ppid pgrp ...
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid) }];
      } catch {
        return [];
      }
    });
}

function descendantsOf(root: number): number[] {
  const table = processTable();
  const found = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of table) {
      if (found.has(entry.ppid) && !found.has(entry.pid)) {
        found.add(entry.pid);
        grew = true;
      }
    }
  }
  found.delete(root);
  return [...found];
}

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);

describe('npm run dev', () => {
  it('prints the URLs, serves the Temporal UI and the API, and leaves no process after Ctrl-C', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-dev-'));
    fs.chmodSync(dataDir, 0o755);
    const [apiPort, temporalPort, uiPort, pgPort, sandboxPort, identityPort, mailPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const env = {
      ...process.env,
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      PAYRUN_DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      EMBEDDED_PG_PORT: String(pgPort),
      SANDBOX_PORT: String(sandboxPort),
      IDENTITY_PORT: String(identityPort),
      OIDC_ISSUER: '',
      MAIL_CATCHER_PORT: String(mailPort),
      SMTP_URL: '',
      GATEWAY_BASE_URL: '',
    };
    const dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
      env,
      detached: true, // its own process group, as a terminal gives a foreground job
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    dev.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    dev.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => dev.on('exit', (code) => resolve(code)));

    try {
      // A whole stack starting (PostgreSQL, Temporal, the sandbox, the API) is the one long wait.
      await eventually(
        () => {
          if (dev.exitCode !== null) throw new Error(`npm run dev exited with ${dev.exitCode}:\n${output}`);
          expect(output).toContain('payrun dev stack is running');
          // The self-check reports a moment after the banner.
          expect(output).toContain('Stack self-check passed');
        },
        { timeout: 90_000 },
      );
      expect(output).toContain(`Temporal UI  http://127.0.0.1:${uiPort}`);
      expect(output).toContain('Stack self-check passed');
      // The mail catcher on MAIL_CATCHER_PORT, and its inbox at GET /v1/dev/mail (admin only).
      expect(output).toContain(`Mail         smtp://127.0.0.1:${mailPort}`);
      const openApi = (await (await fetch(`http://127.0.0.1:${apiPort}/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(openApi.paths)).toContain('/v1/dev/mail');

      const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
      expect(ui.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        checks: { database: 'ok', temporal: 'ok' },
      });

      // People sign in through the provider npm run dev runs: the console's sign-in leads there.
      const signIn = await fetch(`http://127.0.0.1:${apiPort}/auth/login`, { redirect: 'manual' });
      expect(signIn.status).toBe(302);
      expect(signIn.headers.get('location')).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:${identityPort}/auth\\?`),
      );

      const started = descendantsOf(dev.pid!);
      expect(started.length).toBeGreaterThanOrEqual(2); // PostgreSQL and the Temporal server at least

      process.kill(-dev.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      await eventually(() => expect(started.filter(alive)).toEqual([]));
    } finally {
      if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
