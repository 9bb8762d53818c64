import { isIP } from 'node:net';

/**
 * Whose `X-Forwarded-For` the API believes, as Express's `trust proxy` takes it: a number of proxy hops in
 * front of the API, or the addresses (and CIDR ranges, or Express's names for the private ranges) of the
 * proxies. Nothing configured: the header is ignored and a client is its socket's address, so a client
 * cannot choose its own address by writing the header.
 */
export type TrustedProxies = number | string[];

/** Express's names for address ranges (proxy-addr). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function addressProblem(entry: string): string | undefined {
  if (NAMED_RANGES.has(entry)) return undefined;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (!family || rest.length)
    return `"${entry}" is not an address, a CIDR range or ${[...NAMED_RANGES].join('/')}`;
  if (bits === undefined) return undefined;
  const width = family === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && Number(bits) <= width
    ? undefined
    : `"${entry}": the prefix must be 0 to ${width}`;
}

/**
 * Reads `2` (hops) or `10.0.0.5, 10.1.0.0/16, loopback`. Returns the problems instead of throwing so the
 * configuration schema reports them beside every other setting's.
 */
export function parseTrustedProxies(text: string): {
  trusted: TrustedProxies | undefined;
  problems: string[];
} {
  const trimmed = text.trim();
  if (!trimmed) return { trusted: undefined, problems: [] };
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return hops > 0
      ? { trusted: hops, problems: [] }
      : { trusted: undefined, problems: ['0 hops trusts nobody: leave it unset instead'] };
  }
  const entries = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const problems = entries.map(addressProblem).filter((problem): problem is string => problem !== undefined);
  return { trusted: problems.length ? undefined : entries, problems };
}
