/** A standalone API process (production: docker-compose, `npm run cluster`). */
import { ConfigError, loadConfig } from '../platform/config';
import { buildApi } from './build';
import { connectProcessServices } from './process-services';

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await connectProcessServices(config, 'payrun-api');
  const log = services.logger;
  const { app, relay, listeners } = buildApi(config, services);
  const server = app.listen(config.API_PORT, config.API_HOST, () => {
    log.info(
      {
        host: config.API_HOST,
        port: config.API_PORT,
        relay: config.API_RUNS_RELAY ? 'in this process' : 'elsewhere',
      },
      'API listening',
    );
    listeners.start();
    // API_RUNS_RELAY=false: relay processes (api/relay-main.ts) signal what this one stores.
    if (config.API_RUNS_RELAY) relay.start();
  });
  server.once('error', (error) => {
    log.error({ err: error }, 'The API could not listen');
    process.exit(1);
  });
  const stop = () => {
    server.close(() => {
      void Promise.all([relay.stop(), listeners.stop()])
        .then(() => services.close())
        .then(() => process.exit(0));
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
