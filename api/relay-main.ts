/**
 * A standalone relay process: the notification inbox's relay (and the notice requests and API-key owner
 * checks that ride with it) without an HTTP API, for deployments whose API processes run with
 * API_RUNS_RELAY=false, so the receiver's thread never runs signals. On one host shared with Temporal and
 * PostgreSQL it made the receiver slower while the relays signalled through bursts (Temporal writing while the
 * receiver's commits waited); since they give way to a burst, both ways meet the receiver's target there
 * (docs/performance.md). It reads
 * the API's configuration (the same channels, lease and concurrency) and serves /metrics and /healthz on
 * RELAY_METRICS_PORT. Any number may run: a sweep claims rows atomically, so each row goes to one relay,
 * and one that dies leaves claims that lapse.
 */
import http from 'node:http';
import { ConfigError, loadConfig } from '../platform/config';
import { metricsRegistry } from '../platform/metrics';
import { buildRelay } from './build';
import { connectProcessServices } from './process-services';

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await connectProcessServices(config, 'payrun-relay');
  const log = services.logger;
  const relay = buildRelay(config, services);
  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    void metricsRegistry
      .metrics()
      .then((text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text));
  });
  server.listen(config.RELAY_METRICS_PORT, '0.0.0.0', () => {
    log.info({ metricsPort: config.RELAY_METRICS_PORT }, 'Relay started');
    relay.start();
  });
  server.once('error', (error) => {
    log.error({ err: error }, 'The relay could not listen for /metrics');
    process.exit(1);
  });
  const stop = () => {
    server.close();
    void relay
      .stop()
      .then(() => services.close())
      .then(() => {
        log.info('Relay stopped');
        process.exit(0);
      });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
