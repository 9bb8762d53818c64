/**
 * The Temporal SDK's own metrics (workflow cache hits and misses, slots in use, poll and task latencies),
 * served beside payrun's on the worker's /metrics. The SDK's exporter listens on a loopback port of its
 * own; /metrics reads it and appends it, so one scrape of a worker shows both.
 */
import net from 'node:net';
import { Runtime } from '@temporalio/worker';

async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Installs the SDK runtime with its exporter; call once, before the worker's connection is made. */
export async function installSdkMetrics(): Promise<() => Promise<string>> {
  const address = `127.0.0.1:${await freeLoopbackPort()}`;
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: address } } } });
  return async () => {
    try {
      const answer = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(2000) });
      return answer.ok ? await answer.text() : '';
    } catch {
      // A scrape still shows payrun's own metrics when the SDK's exporter does not answer.
      return '';
    }
  };
}
