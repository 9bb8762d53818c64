/**
 * Bursts of 1,000 requests at once against the stack with the configured limits (RATE_LIMIT_*): wrong
 * keys from one address, a valid key, and 200 quote GETs (how many gateway quotes they cost). Prints
 * what each burst was answered and how long it took. A benchmark, not a test. `npm run bench -- rate-limits`
 */
import http from 'node:http';
import type { BenchStack } from './harness';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** A GET from a chosen loopback address, so each burst starts with a fresh per-address budget. */
const get = (stack: BenchStack, path: string, key: string, from: string) => () =>
  new Promise<Answer>((resolve, reject) => {
    http
      .get(
        `${stack.apiUrl}${path}`,
        { headers: { authorization: `Bearer ${key}` }, localAddress: from, agent: false },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (part: string) => (body += part));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: response.headers['retry-after'],
              body,
            }),
          );
        },
      )
      .on('error', reject);
  });

async function burst(count: number, call: () => Promise<Answer>) {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: count }, call));
  const seconds = (performance.now() - started) / 1000;
  const tally: Record<number, number> = {};
  for (const answer of answers) tally[answer.status] = (tally[answer.status] ?? 0) + 1;
  const retryAfter = answers.find((answer) => answer.retryAfter)?.retryAfter;
  return { tally, seconds, retryAfter, answers };
}

export async function benchRateLimits(stack: BenchStack): Promise<void> {
  const show = (name: string, result: Awaited<ReturnType<typeof burst>>) =>
    console.log(
      `  ${name}: ${JSON.stringify(result.tally)} in ${result.seconds.toFixed(2)} s` +
        (result.retryAfter ? `, Retry-After ${result.retryAfter} s` : ''),
    );
  console.log('\nRate limits: bursts of requests sent at once, each burst from its own loopback address');
  show(
    '1,000 wrong keys',
    await burst(1000, get(stack, '/v1/payout-runs', 'payrun_wrong_key_guess', '127.0.0.2')),
  );
  const quotes = await burst(
    200,
    get(stack, '/v1/remittance-quotes?baseCurrency=USD', stack.viewerKey, '127.0.0.4'),
  );
  show('200 quote GETs', quotes);
  const fetched = new Set(
    quotes.answers
      .filter((answer) => answer.status === 200)
      .map((answer) => (JSON.parse(answer.body) as { quotedAt: string }).quotedAt),
  );
  console.log(
    `    gateway quotes behind them: ${fetched.size} (each distinct quotedAt is one quote workflow)`,
  );
  show(
    '1,000 GETs with the same key, right after',
    await burst(1000, get(stack, '/v1/payout-runs', stack.viewerKey, '127.0.0.3')),
  );
}
