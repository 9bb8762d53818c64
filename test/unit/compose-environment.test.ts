/**
 * docker-compose.yml and `npm run cluster` describe the same deployment: each payrun service, and the
 * Temporal UI, gets the same set of variables from both. A variable added to one and not the other is
 * a setting that works in rehearsal and is missing in production (or the reverse).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterEnvironment, DEFAULT_API_TUNABLES } from '../../scripts/cluster/environment';

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
    ['worker', Object.keys(cluster.worker(0))],
    ['temporal-ui', Object.keys(cluster.temporalUi(8080))],
    ['identity', Object.keys(cluster.identity(8955, '/data'))],
    ['codec-tls', Object.keys(cluster.codecTls(3343, '/data', '0.0.0.0'))],
  ])('%s', (service, fromCluster) => {
    expect(variablesOf(service).length).toBeGreaterThan(0);
    expect(variablesOf(service)).toEqual([...fromCluster].sort());
  });
});
