/**
 * 1,000 batch items from init to final states through payrun's own gateway client:
 * init → create → (8003 IPN) → pay → (result IPN) → query every page. `npx tsx sandbox/bench-batch.ts`
 * Timing defaults to zero delays (measures the sandbox, not its simulated waits); pass --realistic
 * for the default SandboxTiming.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient, parseNotification } from '../gateway';
import { generateSandboxKeyPair, startSandbox } from './index';

const ITEMS = 1000;
const PAGE_SIZE = 50;
const realistic = process.argv.includes('--realistic');

const merchant = {
  partnerCode: 'BENCH',
  accessKey: 'bench-access',
  secretKey: 'bench-secret-key-0123456789abcdef',
};
const keys = { accessKey: merchant.accessKey, secretKey: merchant.secretKey };
const keyPair = generateSandboxKeyPair();

const notifications: { kind: 'batch.created' | 'batch.paid'; resultCode: number }[] = [];
const waiters: (() => void)[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks);
    const resultCode = (JSON.parse(raw.toString()) as { resultCode: number }).resultCode;
    const kind = resultCode === 8003 ? 'batch.created' : 'batch.paid';
    parseNotification(kind, raw, keys); // throws on a bad signature
    notifications.push({ kind, resultCode });
    response.writeHead(204).end();
    waiters.splice(0).forEach((wake) => wake());
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const ipnUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ipn`;

async function notification(kind: 'batch.created' | 'batch.paid'): Promise<void> {
  while (!notifications.some((n) => n.kind === kind)) await new Promise<void>((wake) => waiters.push(wake));
}

const sandbox = await startSandbox({
  merchant,
  keyPair,
  timing: realistic
    ? {}
    : { ipnDelayMs: 0, batchValidationMs: 0, batchPaymentMs: 0, pendingSettleMs: 60_000 },
});
const client = createGatewayClient({
  baseUrl: sandbox.url,
  ...merchant,
  gatewayPublicKey: keyPair.publicKeyPem,
});

const disbursements = Array.from({ length: ITEMS }, (_, i) => ({
  id: `item-${i}`,
  method: { walletId: `09${String(10_000_000 + i).padStart(8, '0')}`, walletName: `Receiver ${i}` },
  amount: 10_000 + i,
}));
const amount = disbursements.reduce((sum, item) => sum + item.amount, 0);
const orderId = 'bench-batch-1';
const marks: [string, number][] = [];
const started = performance.now();
const mark = (label: string) => marks.push([label, performance.now() - started]);

const init = await client.call('batch.init', {
  requestId: 'bench-init',
  orderId,
  amount,
  orderInfo: 'bench',
  ipnUrl,
});
mark('init');
await client.call('batch.create', {
  requestId: 'bench-create',
  orderId,
  mToken: String(init.body.mToken),
  amount,
  disbursements,
  ipnUrl,
});
mark('create answered');
await notification('batch.created');
mark('8003 IPN received');
await client.call('batch.pay', { requestId: 'bench-pay', orderId });
mark('pay answered');
await notification('batch.paid');
mark('result IPN received');
let states = 0;
for (let page = 1, pages = 1; page <= pages; page += 1) {
  const result = await client.call('batch.query', {
    requestId: `bench-q-${page}`,
    orderId,
    pageSize: PAGE_SIZE,
    pageNum: page,
  });
  pages = Number(result.body.totalPages);
  states += result.body.disbursements?.length ?? 0;
}
mark(`queried ${states} items`);
const elapsed = performance.now() - started;

for (const [label, at] of marks) console.log(`${at.toFixed(1).padStart(8)} ms  ${label}`);
console.log(
  `${ITEMS} batch items, init → final states → all ${ITEMS / PAGE_SIZE} pages: ${elapsed.toFixed(0)} ms` +
    (realistic ? ' (default timing)' : ' (zero simulated delays)'),
);
await sandbox.close();
receiver.close();
