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
/** SANDBOX_TIMING: JSON over the default delays, e.g. {"ipnDelayMs":0} (benchmarks, tests). */
let timing: Record<string, number> | undefined;
try {
  timing = process.env.SANDBOX_TIMING
    ? (JSON.parse(process.env.SANDBOX_TIMING) as Record<string, number>)
    : undefined;
} catch {
  console.error(`SANDBOX_TIMING must be a JSON object of delays in ms, got ${process.env.SANDBOX_TIMING}`);
  process.exit(1);
}
const identity = loadOrCreateSandboxIdentity(path.join(dataDir, 'sandbox'));
const sandbox = await startSandbox({
  port,
  host: process.env.SANDBOX_HOST ?? '127.0.0.1',
  merchant: identity.merchant,
  keyPair: identity.keyPair,
  logger,
  ...(timing && { timing }),
  // Demos and benchmarks: the simulated customer approves every order by itself.
  autoApprove: process.env.SANDBOX_AUTO_APPROVE === '1',
  ...(process.env.SANDBOX_UNBIND_URL ? { unbindUrl: process.env.SANDBOX_UNBIND_URL } : {}),
});

console.log(`payrun gateway sandbox is running
  Gateway      ${sandbox.url}            (GATEWAY_BASE_URL)
  Admin API    ${sandbox.url}/__sandbox/
  partnerCode  ${identity.merchant.partnerCode}
  Credentials  ${identity.file}   (accessKey, secretKey, RSA public key; mode 0600)

Point any client at it (payrun, the gateway's samples and SDKs, curl):
  base URL     ${sandbox.url}  (paths as the real gateway's: /v2/gateway/api/create, /api/query, ...)
  keys         partnerCode above; accessKey, secretKey and the RSA public key from the credentials file
  scenarios    GET ${sandbox.url}/__sandbox/  (amount and receiver endings that pick each outcome)
  customer     open a payUrl to approve or decline, or POST /__sandbox/payments/<orderId>/approve
  faults       PUT /__sandbox/faults  {"operation":"payment.captureWallet","dropResponse":true,"times":1}
  differences  sandbox/README.md, "Differences from the real gateway"
Press Ctrl-C to stop.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => process.exit(0));
  });
}
