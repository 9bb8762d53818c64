/**
 * Standalone sandbox: `npm run sandbox` (tsx sandbox/main.ts). Listens on SANDBOX_PORT (8950) and
 * keeps its merchant credentials and RSA key pair in `$PAYRUN_DATA_DIR/sandbox/sandbox.json`.
 */
import path from 'node:path';
import pino from 'pino';
import { loadOrCreateSandboxIdentity, startSandbox } from './index';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { service: 'sandbox' } });
const port = Number(process.env.SANDBOX_PORT ?? 8950);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`SANDBOX_PORT must be a port number, got ${process.env.SANDBOX_PORT}`);
  process.exit(1);
}
const dataDir = process.env.PAYRUN_DATA_DIR || '.data';
const identity = loadOrCreateSandboxIdentity(path.join(dataDir, 'sandbox'));
const sandbox = await startSandbox({
  port,
  host: process.env.SANDBOX_HOST ?? '127.0.0.1',
  merchant: identity.merchant,
  keyPair: identity.keyPair,
  logger,
  // Demos and benchmarks: the simulated customer approves every order by itself.
  autoApprove: process.env.SANDBOX_AUTO_APPROVE === '1',
  ...(process.env.SANDBOX_UNBIND_URL ? { unbindUrl: process.env.SANDBOX_UNBIND_URL } : {}),
});

console.log(`payrun gateway sandbox is running
  Gateway      ${sandbox.url}            (GATEWAY_BASE_URL)
  Admin API    ${sandbox.url}/__sandbox/
  partnerCode  ${identity.merchant.partnerCode}
  Credentials  ${identity.file}   (accessKey, secretKey, RSA public key; mode 0600)
Press Ctrl-C to stop.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => process.exit(0));
  });
}
