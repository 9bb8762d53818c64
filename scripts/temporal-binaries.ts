/**
 * Finds (and when needed builds) the two Temporal servers the SDK would otherwise download:
 *
 *   dev server (Temporal CLI):  TEMPORAL_CLI_PATH → cached binary → `go install` → SDK download
 *   time-skipping test server:  TEMPORAL_TEST_SERVER_PATH → cached → Maven Central + java → SDK download
 *
 * Builds land in a per-user cache outside the clone (CI starts from a fresh clone, but the same
 * machine keeps ~/.cache, ~/go and ~/.m2), and the repository's git-ignored `.cache/temporal` links to it.
 *
 * Run directly (`npm run temporal:binaries`) to build both ahead of time and print where they are.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_TEST_SERVER_VERSION = '1.38.0';
const SLF4J_NOP_VERSION = '2.0.17';

export type ServerExecutable = { type: 'existing-path'; path: string } | { type: 'cached-download' };

export interface ResolveOptions {
  /** Build a missing binary when the toolchain is present (slow the first time). */
  build?: boolean;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const preferred = env.PAYRUN_CACHE_DIR ?? path.join(env.HOME ?? os.homedir(), '.cache', 'payrun');
  const repoFolder = path.join(repoRoot, '.cache', 'temporal');
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
  } catch {
    fs.mkdirSync(repoFolder, { recursive: true });
    return repoFolder;
  }
  linkRepoFolder(repoFolder, preferred);
  return preferred;
}

function linkRepoFolder(link: string, target: string): void {
  try {
    if (fs.readlinkSync(link) === target) return;
  } catch {
    // not a link yet
  }
  try {
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(target, link);
  } catch {
    // the link is a convenience for humans; the cache works without it
  }
}

function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Runs a long command, relaying its output and a heartbeat so a first build never looks hung. */
async function runWithProgress(
  label: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; log: (line: string) => void },
): Promise<void> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lastLine = '';
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim()) lastLine = line.trim();
    }
  };
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  const heartbeat = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    options.log(`  ${label}: ${seconds}s${lastLine ? ` — ${lastLine.slice(0, 100)}` : ''}`);
  }, 15_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`${label} failed (exit ${code}): ${lastLine}`);
  } finally {
    clearInterval(heartbeat);
  }
}

// ---------------------------------------------------------------------------------------------
// Dev server: the Temporal CLI
// ---------------------------------------------------------------------------------------------

export function cachedCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), `temporal-cli-${TEMPORAL_CLI_VERSION}`, 'temporal');
}

async function buildCli(target: string, log: (line: string) => void): Promise<void> {
  const staging = fs.mkdtempSync(path.join(path.dirname(path.dirname(target)), 'cli-build-'));
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (first time only: a few minutes on 2 cores; ` +
      `later runs reuse ${target})`,
  );
  const started = Date.now();
  try {
    await runWithProgress(
      'go install temporal',
      'go',
      ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`],
      { env: { ...process.env, GOBIN: staging }, log },
    );
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(path.join(staging, 'temporal'), target);
    log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

export async function resolveDevServer(options: ResolveOptions = {}): Promise<ServerExecutable> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return { type: 'existing-path', path: path.resolve(explicit) };
  }
  const cached = cachedCliPath(env);
  if (isExecutable(cached)) return { type: 'existing-path', path: cached };
  if (options.build && hasCommand('go')) {
    try {
      await buildCli(cached, log);
      return { type: 'existing-path', path: cached };
    } catch (error) {
      log(`Could not build the Temporal CLI: ${(error as Error).message}`);
    }
  }
  log('No Temporal CLI found or built; the SDK will try to download the dev server.');
  return { type: 'cached-download' };
}

// ---------------------------------------------------------------------------------------------
// Time-skipping test server: the Java one from Maven Central
// ---------------------------------------------------------------------------------------------

export function cachedTestServerPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(
    cacheDir(env),
    `temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}`,
    'temporal-test-server',
  );
}

function fetchPom(): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>payrun</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${TEMPORAL_TEST_SERVER_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>${SLF4J_NOP_VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;
}

/**
 * The SDK spawns the executable with the port as its only argument and SIGKILLs it at teardown, so
 * the wrapper must `exec` the JVM (a surviving shell would orphan it). The JVM flags trade peak
 * speed for start-up time, which is what a test server needs.
 */
function wrapperScript(javaPath: string, libDir: string, logFile: string): string {
  return `#!/bin/sh
# Generated by payrun scripts/temporal-binaries.ts: Temporal's time-skipping test server.
exec "${javaPath}" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -cp "${libDir}/*" \\
  io.temporal.testserver.TestServer "$@" >>"${logFile}" 2>&1
`;
}

async function buildTestServer(target: string, log: (line: string) => void): Promise<void> {
  const home = path.dirname(target);
  const staging = fs.mkdtempSync(path.join(path.dirname(home), 'test-server-build-'));
  log(
    `Fetching io.temporal:temporal-test-server:${TEMPORAL_TEST_SERVER_VERSION} from Maven Central (first time only)`,
  );
  const started = Date.now();
  try {
    fs.writeFileSync(path.join(staging, 'pom.xml'), fetchPom());
    await runWithProgress(
      'mvn dependency:copy-dependencies',
      'mvn',
      ['-B', '-q', 'dependency:copy-dependencies', '-DincludeScope=runtime', '-DoutputDirectory=lib'],
      { cwd: staging, log },
    );
    const java = spawnSync('sh', ['-c', 'command -v java']).stdout.toString().trim();
    fs.rmSync(home, { recursive: true, force: true });
    fs.renameSync(staging, home);
    fs.writeFileSync(
      target,
      wrapperScript(java, path.join(home, 'lib'), path.join(home, 'test-server.log')),
      {
        mode: 0o755,
      },
    );
    log(`Fetched the test server in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

export async function resolveTestServer(options: ResolveOptions = {}): Promise<ServerExecutable> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const explicit = env.TEMPORAL_TEST_SERVER_PATH;
  if (explicit) {
    if (!isExecutable(explicit))
      throw new Error(`TEMPORAL_TEST_SERVER_PATH=${explicit} is not an executable file`);
    return { type: 'existing-path', path: path.resolve(explicit) };
  }
  const cached = cachedTestServerPath(env);
  if (isExecutable(cached)) return { type: 'existing-path', path: cached };
  if (options.build && hasCommand('java') && hasCommand('mvn')) {
    try {
      await buildTestServer(cached, log);
      return { type: 'existing-path', path: cached };
    } catch (error) {
      log(`Could not fetch the test server: ${(error as Error).message}`);
    }
  }
  log('No time-skipping test server found or built; the SDK will try to download it.');
  return { type: 'cached-download' };
}

function describe(executable: ServerExecutable): string {
  return executable.type === 'existing-path' ? executable.path : 'SDK download (no local binary)';
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const started = Date.now();
  const devServer = await resolveDevServer({ build: true, log });
  log(`Temporal dev server:          ${describe(devServer)}`);
  const testServer = await resolveTestServer({ build: true, log });
  log(`Temporal time-skipping server: ${describe(testServer)}`);
  log(`Temporal binaries ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  if (devServer.type !== 'existing-path' || testServer.type !== 'existing-path') {
    log('Warning: a server will be downloaded by the SDK, which needs internet access.');
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
