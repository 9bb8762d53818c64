import { operationNames, type OperationName } from '../gateway/operations';

/** Calls per second allowed for each limited gateway operation; an operation not named is not limited. */
export type GatewayRateLimits = Partial<Record<OperationName, number>>;

/**
 * Reads `subscription.pay=50,disbursement.pay=20`. Returns the problems instead of throwing so the
 * configuration schema can report them beside every other setting's.
 */
export function parseGatewayRateLimits(text: string): { limits: GatewayRateLimits; problems: string[] } {
  const limits: GatewayRateLimits = {};
  const problems: string[] = [];
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z.]+)\s*=\s*(\d+(?:\.\d+)?)$/.exec(entry);
    if (!match) {
      problems.push(`"${entry}" is not operation=callsPerSecond`);
      continue;
    }
    const [, name, rate] = match as unknown as [string, string, string];
    if (!(operationNames as string[]).includes(name)) {
      problems.push(`"${name}" is not a gateway operation`);
      continue;
    }
    if (Number(rate) <= 0) {
      problems.push(`${name}: the rate must be above 0 (leave the operation out for no limit)`);
      continue;
    }
    if (limits[name as OperationName] !== undefined) problems.push(`${name} is named twice`);
    limits[name as OperationName] = Number(rate);
  }
  return { limits, problems };
}
