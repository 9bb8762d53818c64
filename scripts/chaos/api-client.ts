/**
 * payrun's HTTP API as a patient client sees it during chaos: the API process may be dead, restarting,
 * or unable to reach PostgreSQL or Temporal for a while. Such answers (no connection, 5xx, 429, an
 * Idempotency-Key still held by a request the dead process was serving) are retried with the same
 * Idempotency-Key until a deadline, so a retried create never creates twice; every other answer is
 * the caller's to judge. What had to be retried is counted for the report.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiAnswer {
  status: number;
  body: Json;
}

export interface CallOptions {
  body?: unknown;
  contentType?: string;
  idempotencyKey?: string;
  /** Give up retrying after this long (default: until the run's deadline); the last answer is returned or thrown. */
  patienceMs?: number;
}

const REQUEST_TIMEOUT_MS = 60_000;

export class ChaosApi {
  /** Retries by reason: `network`, `http 503`, `idempotency_request_in_progress`, … */
  readonly retries = new Map<string, number>();
  /** Requests that never got a usable answer within their patience. */
  readonly unanswered: string[] = [];

  constructor(
    private readonly baseUrl: string,
    /** Epoch ms after which nothing is retried any more. */
    private readonly deadline: number,
  ) {}

  async call(key: string, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> {
    const deadline = options.patienceMs === undefined ? this.deadline : Date.now() + options.patienceMs;
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let last: ApiAnswer | undefined;
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': options.contentType ?? 'application/json',
            ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
          },
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await response.text();
        last = { status: response.status, body: parse(text) };
        const code: unknown = last.body?.error?.code;
        if (response.status >= 500 || response.status === 429) reason = `http ${response.status}`;
        else if (code === 'idempotency_request_in_progress') reason = code;
        else return last;
      } catch (error) {
        reason = `network: ${(error as Error).name === 'TimeoutError' ? 'timeout' : 'no answer'}`;
      }
      this.retries.set(reason, (this.retries.get(reason) ?? 0) + 1);
      if (Date.now() > deadline) {
        this.unanswered.push(`${method} ${path.split('?')[0]}: ${reason}`);
        if (last) return last;
        throw new Error(`${method} ${path}: no answer before the deadline (${reason})`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** Math.min(attempt, 4), 4000)));
    }
  }
}

function parse(text: string): Json {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { text };
  }
}
