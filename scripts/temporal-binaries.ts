/**
 * Finds (and when needed builds) every Temporal binary payrun runs, offline:
 *
 *   dev server (Temporal CLI):  TEMPORAL_CLI_PATH → cached binary → `go install` → SDK download
 *   time-skipping test server:  TEMPORAL_TEST_SERVER_PATH → cached → Maven Central + java → SDK download
 *   server for PostgreSQL + SQL schema tool (the production shape): cached → `go install`
 *   standalone Web UI server (the production shape): cached → `go install`
 *
 * Builds land in a per-user cache outside the clone (CI starts from a fresh clone, but the same
 * machine keeps ~/.cache, ~/go and ~/.m2), and the repository's git-ignored `.cache/temporal` links to it.
 *
 * Run directly (`npm run temporal:binaries`) to build them all ahead of time and print where they are.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './cluster/readiness';

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

/**
 * `go install` of Go packages at one version into a staging folder, then moved into the cache
 * together, so a half-finished build never looks like a cached binary.
 */
async function goInstall(
  label: string,
  packages: { path: string; binary: string; target: string }[],
  version: string,
  log: (line: string) => void,
): Promise<void> {
  const home = path.dirname(packages[0]!.target);
  fs.mkdirSync(path.dirname(home), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(home), 'go-build-'));
  log(
    `Building ${label} ${version} with go install (first time only: a few minutes on 2 cores; later runs reuse ${home})`,
  );
  const started = Date.now();
  try {
    await runWithProgress(
      `go install ${label}`,
      'go',
      ['install', ...packages.map((entry) => `${entry.path}@${version}`)],
      { env: { ...process.env, GOBIN: staging }, log },
    );
    for (const entry of packages) {
      fs.mkdirSync(path.dirname(entry.target), { recursive: true });
      fs.renameSync(path.join(staging, entry.binary), entry.target);
    }
    log(`Built ${label} in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

const buildCli = (target: string, log: (line: string) => void) =>
  goInstall(
    'the Temporal CLI',
    [{ path: 'github.com/temporalio/cli/cmd/temporal', binary: 'temporal', target }],
    TEMPORAL_CLI_VERSION,
    log,
  );

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
// The Temporal server for PostgreSQL (the production shape) and its SQL schema tool
// ---------------------------------------------------------------------------------------------

/** The server version the CLI above embeds (its banner says "Server 1.29.1"): one server for both shapes. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';

export interface TemporalServerBinaries {
  /** `server --root DIR --config CONFIG_DIR --env NAME --allow-no-auth start` */
  server: string;
  /** The SQL schema tool: `create`, `setup-schema -v 0.0`, `update-schema -d <schema>/versioned`. */
  schemaTool: string;
  /** PostgreSQL schemas shipped with the server: `<schemaDir>/temporal`, `<schemaDir>/visibility`. */
  schemaDir: string;
  /** The server's own example configuration for PostgreSQL, a starting point for ours. */
  exampleConfigDir: string;
}

export function cachedServerBinaries(env: NodeJS.ProcessEnv = process.env): TemporalServerBinaries {
  const home = path.join(cacheDir(env), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  return {
    server: path.join(home, 'temporal-server'),
    schemaTool: path.join(home, 'temporal-sql-tool'),
    schemaDir: path.join(home, 'schema', 'postgresql', 'v12'),
    exampleConfigDir: path.join(home, 'config'),
  };
}

/** The schemas and example configuration live in the module's source, in Go's module cache. */
function copyServerFiles(target: TemporalServerBinaries): void {
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const source = path.join(modCache, `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`);
  fs.cpSync(path.join(source, 'schema', 'postgresql', 'v12'), target.schemaDir, { recursive: true });
  fs.cpSync(path.join(source, 'config'), target.exampleConfigDir, { recursive: true });
  // The module cache is read-only; the copies need not be.
  spawnSync('chmod', ['-R', 'u+w', path.dirname(target.schemaDir), target.exampleConfigDir]);
}

export async function resolveTemporalServer(
  options: ResolveOptions = {},
): Promise<TemporalServerBinaries | undefined> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const cached = cachedServerBinaries(env);
  const complete = () =>
    isExecutable(cached.server) && isExecutable(cached.schemaTool) && fs.existsSync(cached.schemaDir);
  if (complete()) return cached;
  if (!options.build || !hasCommand('go')) {
    log('No Temporal server built; run npm run temporal:binaries (needs Go and its module proxy).');
    return undefined;
  }
  await goInstall(
    'the Temporal server and its SQL schema tool',
    [
      { path: `${SERVER_MODULE}/cmd/server`, binary: 'server', target: cached.server },
      { path: `${SERVER_MODULE}/cmd/tools/sql`, binary: 'sql', target: cached.schemaTool },
    ],
    TEMPORAL_SERVER_VERSION,
    log,
  );
  copyServerFiles(cached);
  return cached;
}

// ---------------------------------------------------------------------------------------------
// The standalone Temporal UI server (npm run cluster), the same version docker-compose runs
// ---------------------------------------------------------------------------------------------

/** The UI version the CLI above embeds and docker-compose.yml's `temporalio/ui` image runs. */
export const TEMPORAL_UI_VERSION = 'v2.42.1';
const UI_MODULE = 'github.com/temporalio/ui-server/v2';

export interface TemporalUiBinaries {
  /** `ui-server --root <home> --env docker start`: its web assets are compiled in. */
  server: string;
  /** Holds `config/docker.yaml`, the image's configuration, read from the same environment variables. */
  home: string;
}

export function cachedUiBinaries(env: NodeJS.ProcessEnv = process.env): TemporalUiBinaries {
  const home = path.join(cacheDir(env), `temporal-ui-${TEMPORAL_UI_VERSION}`);
  return { server: path.join(home, 'ui-server'), home };
}

export async function resolveTemporalUi(
  options: ResolveOptions = {},
): Promise<TemporalUiBinaries | undefined> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const cached = cachedUiBinaries(env);
  const configFile = path.join(cached.home, 'config', 'docker.yaml');
  if (isExecutable(cached.server) && fs.existsSync(configFile)) return cached;
  if (!options.build || !hasCommand('go')) {
    log('No Temporal UI server built; run npm run temporal:binaries (needs Go and its module proxy).');
    return undefined;
  }
  await goInstall(
    'the Temporal UI server',
    [{ path: `${UI_MODULE}/cmd/server`, binary: 'server', target: cached.server }],
    TEMPORAL_UI_VERSION,
    log,
  );
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  fs.mkdirSync(path.dirname(configFile), { recursive: true });
  fs.copyFileSync(
    path.join(modCache, `${UI_MODULE}@${TEMPORAL_UI_VERSION}`, 'config', 'docker.yaml'),
    configFile,
  );
  fs.chmodSync(configFile, 0o644);
  return cached;
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
const TEST_SERVER_JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss512k'];
const TEST_SERVER_MAIN = 'io.temporal.testserver.TestServer';

function wrapperScript(javaPath: string, libDir: string, logFile: string, classArchive?: string): string {
  // -Xshare:auto: a JVM that cannot use the archive (another Java build) starts without it.
  const archive = classArchive ? ` -XX:SharedArchiveFile="${classArchive}" -Xshare:auto` : '';
  return `#!/bin/sh
# Generated by payrun scripts/temporal-binaries.ts: Temporal's time-skipping test server.
exec "${javaPath}" ${TEST_SERVER_JVM_FLAGS.join(' ')}${archive} -cp "${libDir}/*" \\
  ${TEST_SERVER_MAIN} "$@" >>"${logFile}" 2>&1
`;
}

/**
 * The SDK gives the test server a fixed 5 s to listen, and on a loaded 2-core machine the JVM's class
 * loading alone can take longer. A class-data archive of one start (JDK dynamic AppCDS) lets later
 * starts map those classes instead: 1.4 s → 0.54 s measured at load average 15. Made once per cache.
 */
async function archiveTestServerClasses(target: string, log: (line: string) => void): Promise<void> {
  const home = path.dirname(target);
  const archive = path.join(home, 'classes.jsa');
  if (fs.existsSync(archive)) return;
  const java = spawnSync('sh', ['-c', 'command -v java']).stdout.toString().trim();
  if (!java) return;
  const libDir = path.join(home, 'lib');
  const port = await freePort();
  const training = spawn(
    java,
    [
      `-XX:ArchiveClassesAtExit=${archive}`,
      ...TEST_SERVER_JVM_FLAGS,
      '-cp',
      `${libDir}/*`,
      TEST_SERVER_MAIN,
      String(port),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => training.once('exit', () => resolve()));
  try {
    await waitFor('the test server to listen', () => tcpAnswers(port), 60_000);
  } finally {
    // The archive is written while the JVM exits after SIGTERM.
    training.kill('SIGTERM');
    await exited;
  }
  if (!fs.existsSync(archive)) {
    log('The test server class archive was not written; the test server starts without it.');
    return;
  }
  fs.writeFileSync(target, wrapperScript(java, libDir, path.join(home, 'test-server.log'), archive), {
    mode: 0o755,
  });
  log(`Archived the test server's classes for faster starts (${archive})`);
}

function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
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
  if (isExecutable(cached)) {
    if (options.build) await archiveTestServerClasses(cached, log);
    return { type: 'existing-path', path: cached };
  }
  if (options.build && hasCommand('java') && hasCommand('mvn')) {
    try {
      await buildTestServer(cached, log);
      await archiveTestServerClasses(cached, log);
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
  const server = await resolveTemporalServer({ build: true, log });
  log(`Temporal server (PostgreSQL):  ${server?.server ?? 'not built'}`);
  log(`Temporal SQL schema tool:      ${server?.schemaTool ?? 'not built'}`);
  const ui = await resolveTemporalUi({ build: true, log });
  log(`Temporal UI server:            ${ui?.server ?? 'not built'}`);
  log(`Temporal binaries ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  if (!server) throw new Error('The Temporal server for PostgreSQL could not be built (see above).');
  if (!ui) throw new Error('The Temporal UI server could not be built (see above).');
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
