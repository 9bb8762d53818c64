/** Waiting for a process to serve: polled, with the last failure in the error when time runs out. */
import net from 'node:net';

const POLL_MS = 250;

export async function waitFor<T>(
  what: string,
  check: () => Promise<T | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`Timed out after ${timeoutMs / 1000}s waiting for ${what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export const httpAnswers = (url: string) => async () => {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return response.status < 500;
};

export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A free port in [low, high): the Temporal server stores membership ports in a smallint column, so those
 * must stay below 32768, under the ephemeral range the operating system hands out.
 */
export async function freePortBetween(
  low: number,
  high: number,
  taken: Set<number> = new Set(),
): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!taken.has(port) && (await portIsFree(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`No free port between ${low} and ${high}`);
}
