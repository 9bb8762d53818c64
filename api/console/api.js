// @ts-check
/**
 * Calls to payrun's API as the person signed in through the identity provider: the browser sends payrun's
 * HttpOnly session cookie, and every mutating call carries the session's CSRF token. The console holds
 * no API key (keys are for machines).
 */

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** A refusal by the API, with its stable code, its message, the request id and each problem. */
export class ApiProblem extends Error {
  /**
   * @param {number} status
   * @param {ApiRecord | undefined} error The answer's `error` object, when it had one.
   */
  constructor(status, error) {
    super(error?.message ?? `The API answered ${status}.`);
    this.status = status;
    /** @type {string} */
    this.code = error?.code ?? 'http_error';
    /** @type {string | undefined} */
    this.requestId = error?.requestId;
    /** @type {Array<{ field?: string, rule?: string, message: string }>} */
    this.problems = Array.isArray(error?.problems) ? error.problems : [];
  }
}

/**
 * A person signed in through the identity provider holds no key: the browser sends payrun's HttpOnly
 * session cookie, and every mutating call carries the session's CSRF token, kept only in memory.
 * @type {{ csrfToken: string | null }}
 */
export const providerSession = { csrfToken: null };

/** Called when the API refuses the session (ended, timed out): the app sends the user to sign in. */
/** @type {(problem: ApiProblem) => void} */
let onUnauthorized = () => {};
/** @param {(problem: ApiProblem) => void} handler */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/**
 * @typedef {object} RequestOptions
 * @property {string} [method]
 * @property {unknown} [body] JSON, unless `contentType` says the body is sent as it is (a file).
 * @property {string} [contentType]
 * @property {Record<string, string>} [headers]
 * @property {'json' | 'blob'} [as]
 */

/**
 * request('/v1/payout-runs') → parsed JSON. `as: 'blob'` for downloads. A non-2xx answer throws an
 * ApiProblem carrying the API's code, message and problems.
 * @overload
 * @param {string} path
 * @param {RequestOptions & { as: 'blob' }} options
 * @returns {Promise<Blob>}
 */
/**
 * @overload
 * @param {string} path
 * @param {RequestOptions & { as?: 'json' }} [options]
 * @returns {Promise<ApiRecord>}
 */
/**
 * @param {string} path
 * @param {RequestOptions} [options]
 * @returns {Promise<ApiRecord | Blob>}
 */
export async function request(path, { method = 'GET', body, contentType, headers = {}, as = 'json' } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      ...(providerSession.csrfToken && method !== 'GET' && method !== 'HEAD'
        ? { 'x-csrf-token': providerSession.csrfToken }
        : {}),
      ...(body !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}),
      ...headers,
    },
    body:
      body === undefined ? undefined : contentType ? /** @type {BodyInit} */ (body) : JSON.stringify(body),
  });
  if (!response.ok) {
    /** @type {ApiRecord | undefined} */
    let error;
    try {
      error = (await response.json()).error;
    } catch {
      error = undefined;
    }
    const problem = new ApiProblem(response.status, error);
    if (response.status === 401) onUnauthorized(problem);
    throw problem;
  }
  if (as === 'blob') return response.blob();
  if (response.status === 204) return {};
  return response.json();
}

/**
 * POSTs a JSON body; the answer's JSON.
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 */
export const post = (path, body = {}, headers = {}) => request(path, { method: 'POST', body, headers });

/** Random UUID; crypto.randomUUID exists only on https and localhost, getRandomValues everywhere. */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
