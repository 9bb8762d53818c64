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

/** Why `text` cannot be a webhook URL, in words for the caller; undefined when it can. */
export function webhookUrlProblem(text: string, policy: WebhookUrlPolicy): string | undefined {
  if (text.length > MAX_LENGTH) return `at most ${MAX_LENGTH} characters`;
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
  if (isInternalAddress(host) && !(policy.allowLoopbackHttp && isLoopback(host)))
    return 'a public host, not loopback, private or link-local addresses';
  return undefined;
}
