/**
 * `npm run fuzz:schemathesis [-- --max-examples 20 --seed 1 --checks not_a_server_error]`: schemathesis against a whole
 * started stack. It starts `npm run dev` on free ports with a throwaway data folder and no rate limits (the
 * sandbox as the gateway, a worker, the API), creates an admin key, runs schemathesis with every check
 * over /openapi.json, prints its summary, and stops everything it started; its exit code is schemathesis's
 * (0: no failure). Schemathesis (Python, pinned) is installed once into ~/.cache/payrun/ from PyPI with
 * pip. `test/api/schemathesis.test.ts` runs it in `npm test` with few examples; `test/api/fuzz.test.ts`
 * is the node fuzz run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../cluster/readiness';

const SCHEMATHESIS_VERSION = '4.32.5';

function ensureSchemathesis(): string {
  const home = path.join(os.homedir(), '.cache', 'payrun', `schemathesis-${SCHEMATHESIS_VERSION}`);
  const st = path.join(home, 'bin', 'st');
  // A venv copied from elsewhere keeps its first interpreter's path: a cached `st` must also run.
  if (fs.existsSync(st) && spawnSync(st, ['--version'], { stdio: 'ignore' }).status === 0) return st;
  console.log(`Installing schemathesis ${SCHEMATHESIS_VERSION} into ${home} (once)…`);
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
  };
  run('python3', ['-m', 'venv', '--clear', home]);
  run(path.join(home, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`]);
  return st;
}

async function waitForOutput(read: () => string, text: string, exited: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!read().includes(text)) {
    if (exited()) throw new Error(`npm run dev exited:\n${read()}`);
    if (Date.now() > deadline) throw new Error(`npm run dev did not print "${text}" in ${ms} ms:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'max-examples': { type: 'string', default: '20' },
      seed: { type: 'string', default: '1' },
      // Requests in flight at once. More than one is faster but not safe in schemathesis 4.32.5: two runs
      // of 2 ended with an internal error (hypothesis describing a lambda from two threads at once).
      workers: { type: 'string', default: '1' },
      // Unset: every check (schemathesis's default), with the per-operation settings of schemathesis.toml;
      // a list given here overrides those settings.
      checks: { type: 'string' },
    },
  });
  const st = ensureSchemathesis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-fuzz-'));
  fs.chmodSync(dataDir, 0o755);
  const ports = {
    API_PORT: await freePort(),
    TEMPORAL_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
    EMBEDDED_PG_PORT: await freePort(),
    SANDBOX_PORT: await freePort(),
  };
  const env = {
    ...process.env,
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    GATEWAY_BASE_URL: '',
    PAYRUN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // A fuzzer is one client sending thousands of requests: limits would answer most of them 429.
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
    RATE_LIMIT_NOTIFICATIONS_PER_MINUTE: '0',
    RATE_LIMIT_FORGERIES_PER_MINUTE: '0',
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
  };
  const apiUrl = `http://127.0.0.1:${ports.API_PORT}`;
  const dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  dev.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stopped = new Promise((resolve) => dev.once('exit', resolve));
  let fuzzer: ChildProcess | undefined;
  // Told to stop (a test's time limit, Ctrl-C): schemathesis and the stack go too, not only this process.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      fuzzer?.kill('SIGTERM');
      if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGINT');
      process.exit(1);
    });
  try {
    await waitForOutput(
      () => output,
      'payrun dev stack is running',
      () => dev.exitCode !== null,
      120_000,
    );
    const keys = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/api-keys.ts',
        'create',
        '--name',
        'schemathesis',
        '--roles',
        'admin',
        '--owner',
        'service:schemathesis',
      ],
      { env, encoding: 'utf8' },
    );
    const key = /^\s+(\S+)\s*$/m.exec(keys.stdout)?.[1];
    if (keys.status !== 0 || !key) throw new Error(`Could not create a key:\n${keys.stdout}${keys.stderr}`);
    const reportDir = path.join(dataDir, 'report');
    const args = [
      '--config-file',
      fileURLToPath(new URL('./schemathesis.toml', import.meta.url)),
      'run',
      `${apiUrl}/openapi.json`,
      '--url',
      apiUrl,
      ...(values.checks ? ['--checks', values.checks] : []),
      '--max-examples',
      values['max-examples']!,
      '--seed',
      values.seed!,
      '--workers',
      values.workers!,
      '--request-timeout',
      '30',
      // No example database in the working tree: each run starts from its seed.
      '--generation-database',
      'none',
      '-H',
      `Authorization: Bearer ${key}`,
      '--report',
      'junit',
      '--report-dir',
      reportDir,
    ];
    console.log(
      `schemathesis ${SCHEMATHESIS_VERSION} against ${apiUrl} (${values.checks ?? 'every'} check(s), ${values['max-examples']} examples an operation, seed ${values.seed})`,
    );
    fuzzer = spawn(st, args, {
      stdio: 'inherit',
      // What a payout file contains, which JSON Schema cannot say (payout_files.py explains).
      env: {
        ...process.env,
        NO_COLOR: '1',
        SCHEMATHESIS_HOOKS: fileURLToPath(new URL('./payout_files.py', import.meta.url)),
      },
    });
    const running = fuzzer;
    return await new Promise<number>((resolve) => running.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    if (dev.exitCode === null) {
      process.kill(-dev.pid!, 'SIGINT');
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
