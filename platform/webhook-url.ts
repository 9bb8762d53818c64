/**
 * Where payrun may send webhooks. Only an admin's request to the webhook-endpoints API sets a URL (never
 * the gateway, never another route), and it must be https to a public host. A development setting
 * (`WEBHOOK_ALLOW_LOOPBACK_HTTP`) also lets http reach this machine's loopback, for a local receiver.
 */
import { isIP } from 'node:net';

export interface WebhookUrlPolicy {
  allowLoopbackHttp: boolean;
}

const MAX_LENGTH = 2048;
export const URL_SYNTAX =
  'an https URL to a host name or IPv4 address, with an optional port, path and query (no user name, no #fragment)';
/** The one rule the OpenAPI document cannot state: where the host is. */
export const PUBLIC_HOST = 'a public host, not loopback, private or link-local addresses';

const isLoopback = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Addresses a webhook must never reach in production: this machine, private and link-local networks. */
function isInternalAddress(host: string): boolean {
  if (isLoopback(host)) return true;
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    );
  }
  if (isIP(host) === 6) {
    const lower = host.toLowerCase();
    return (
      lower === '::' ||
      lower.startsWith('fc') ||
      lower.startsWith('fd') ||
      lower.startsWith('fe8') ||
      lower.startsWith('fe9') ||
      lower.startsWith('fea') ||
      lower.startsWith('feb') ||
      lower.startsWith('::ffff:')
    );
  }
  return false;
}

// The syntax every accepted URL has, stated once for the check below and the OpenAPI document, so that
// what the document allows the URL parser takes, and what it does not allow is refused: host names of
// letters and digits joined by single hyphens (a last label starting with a letter; "xn--" labels, which
// the parser may refuse, are not written so), or an IPv4 address; a port up to 65535; a path and query
// of URL characters; no user name, no fragment. IPv6 hosts are not taken over https.
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const HOST_NAME = `(?:${LABEL}\\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*`;
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const PORT = '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
const PATH_AND_QUERY = "(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]*)*(?:\\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?";

/** The syntax of a webhook URL under `policy`, as a regular expression's source (JSON Schema `pattern`). */
export function webhookUrlPattern(policy: WebhookUrlPolicy): string {
  const https = `https://(?:${HOST_NAME}|${IPV4})${PORT}${PATH_AND_QUERY}`;
  const loopbackHttp = `http://(?:localhost|127\\.0\\.0\\.1|\\[::1\\])${PORT}${PATH_AND_QUERY}`;
  return policy.allowLoopbackHttp ? `^(?:${https}|${loopbackHttp})$` : `^${https}$`;
}

/** Why `text` cannot be a webhook URL, in words for the caller; undefined when it can. */
export function webhookUrlProblem(text: string, policy: WebhookUrlPolicy): string | undefined {
  if (text.length > MAX_LENGTH) return `at most ${MAX_LENGTH} characters`;
  if (!new RegExp(webhookUrlPattern(policy)).test(text)) return URL_SYNTAX;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'an absolute URL, like https://example.com/payrun-events';
  }
  if (url.username || url.password) return 'no user name or password in the URL';
  if (url.hash) return 'no #fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:') {
    if (policy.allowLoopbackHttp && isLoopback(host)) return undefined;
    return policy.allowLoopbackHttp
      ? 'https, or http to this machine (127.0.0.1, ::1, localhost)'
      : 'https (http is allowed only to loopback, with WEBHOOK_ALLOW_LOOPBACK_HTTP=true in development)';
  }
  if (url.protocol !== 'https:') return 'https';
  if (isInternalAddress(host) && !(policy.allowLoopbackHttp && isLoopback(host))) return PUBLIC_HOST;
  return undefined;
}
