/**
 * docker-compose.yml and `npm run cluster` describe the same deployment: each payrun service, and the
 * Temporal UI, gets the same set of variables from both. A variable added to one and not the other is
 * a setting that works in rehearsal and is missing in production (or the reverse).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterEnvironment, DEFAULT_API_TUNABLES } from '../../scripts/cluster/environment';
import { serverDynamicConfig, SQL_PLUGIN } from '../../scripts/cluster/temporal-server';
import { apiSettingsFrom } from '../../api/settings';
import { loadConfig, type Config } from '../../platform/config';
import { buildActivities, operationRateLimitsOf, workerTuningOf } from '../../workers/build';
import { testCodecKeyring } from '../support/temporal';
import { testMerchant } from '../support/settings';
import { generateSandboxKeyPair } from '../../sandbox';

interface ComposeFile {
  services: Record<string, { environment?: Record<string, unknown> }>;
}

const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as ComposeFile;
const variablesOf = (service: string) => Object.keys(compose.services[service]?.environment ?? {}).sort();

const cluster = clusterEnvironment({
  databaseUrl: 'postgres://u:p@127.0.0.1:5432/payrun',
  temporalAddress: '127.0.0.1:7233',
  logLevel: 'info',
  codecKeys: 'k:AAAA',
  codecKeyId: 'k',
  gateway: {
    baseUrl: 'http://127.0.0.1:1',
    partnerCode: 'P',
    accessKey: 'a',
    secretKey: 's',
    publicKey: 'p',
  },
  publicBaseUrl: 'http://127.0.0.1:3000',
  apiPort: 3000,
  relayPort: 9465,
  relayProcess: true,
  uiUrl: 'http://127.0.0.1:8080',
  customerKeySecret: 'c'.repeat(32),
  decisionKey: 'd'.repeat(32),
  apiSettings: DEFAULT_API_TUNABLES,
  metricsPort: (index) => 9464 + index,
  identity: { issuer: 'http://identity:8955', consoleClientSecret: 'c', uiClientSecret: 'u', password: 'p' },
});

describe('docker-compose.yml and npm run cluster pass the same variables', () => {
  it.each([
    ['migrate', Object.keys(cluster.migrate)],
    ['api', Object.keys(cluster.api)],
    ['relay', Object.keys(cluster.relay)],
    ['worker', Object.keys(cluster.worker(0))],
    ['temporal-ui', Object.keys(cluster.temporalUi(8080))],
    ['identity', Object.keys(cluster.identity(8955, '/data'))],
    ['codec-tls', Object.keys(cluster.codecTls(3343, '/data', '0.0.0.0'))],
  ])('%s', (service, fromCluster) => {
    expect(variablesOf(service).length).toBeGreaterThan(0);
    expect(variablesOf(service)).toEqual([...fromCluster].sort());
  });
});

/** The settings `use` reads from a configuration (every key it touches). */
function settingsRead(use: (config: Config) => unknown): Set<string> {
  const read = new Set<string>();
  const config = loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32) });
  use(
    new Proxy(config, {
      get(target, key) {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key);
      },
    }),
  );
  return read;
}

describe('a setting both the API and the workers read reaches both', () => {
  // Each process decides from its own copy: GATEWAY_RATE_LIMITS, given to the workers only, once left the API
  // sending new subscriptions to the billing run, whose charges that limit does not spread.
  const byWorker = new Set([
    ...settingsRead(workerTuningOf),
    ...settingsRead(operationRateLimitsOf),
    ...settingsRead((config) =>
      buildActivities(config, {
        db: undefined as never,
        gateway: {
          baseUrl: 'http://127.0.0.1:1',
          ...testMerchant,
          publicKey: generateSandboxKeyPair().publicKeyPem,
        },
        keyring: testCodecKeyring,
        publicBaseUrl: 'http://127.0.0.1:3000',
      }),
    ),
  ]);
  const shared = [...settingsRead((config) => apiSettingsFrom(config))].filter((name) => byWorker.has(name));

  it.each([
    ['api', Object.keys(cluster.api)],
    ['worker', Object.keys(cluster.worker(0))],
  ])('%s, from docker-compose.yml and npm run cluster', (service, fromCluster) => {
    expect(shared.length).toBeGreaterThan(0);
    for (const name of shared) {
      expect(variablesOf(service), `${name} in docker-compose.yml's ${service}`).toContain(name);
      expect(fromCluster, `${name} in npm run cluster's ${service}`).toContain(name);
    }
  });
});

describe("the Temporal server's dynamic config", () => {
  it('is the same in docker-compose.yml as in npm run cluster', () => {
    const temporal = compose.services.temporal as {
      environment?: Record<string, string>;
      volumes?: string[];
    };
    const mounted = temporal.volumes?.find((volume) => volume.startsWith('./temporal-dynamicconfig.yaml:'));
    expect(mounted?.split(':')[1]).toBe(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH);
    expect(fs.readFileSync('temporal-dynamicconfig.yaml', 'utf8')).toBe(serverDynamicConfig());
  });

  it('stores through the same PostgreSQL driver in docker-compose.yml as in npm run cluster', () => {
    const temporal = compose.services.temporal as { environment?: Record<string, string> };
    expect(temporal.environment?.DB).toBe(SQL_PLUGIN);
  });
});
