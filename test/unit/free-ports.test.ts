/**
 * Ports chosen for clusters and test stacks must not be ones the kernel hands out as source ports of
 * outgoing connections: a CI run lost its sandbox port to one between choosing and binding it.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FETCH_BLOCKED_PORTS,
  freePort,
  freePortBetween,
  freePortRun,
  portIsFree,
} from '../../scripts/cluster/readiness';

const [ephemeralLow, ephemeralHigh] = fs
  .readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
  .trim()
  .split(/\s+/)
  .map(Number) as [number, number];
const ephemeral = (port: number) => port >= ephemeralLow && port <= ephemeralHigh;

describe('free ports', () => {
  it('are free, outside the ephemeral range, and never handed out twice by one process', async () => {
    const ports = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(ports.filter(ephemeral)).toEqual([]);
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(await portIsFree(port)).toBe(true);
  });

  it("are never one that fetch refuses (10080 is in the range): a provider there was out of reach, 'bad port'", async () => {
    expect(await portIsFree(10080)).toBe(true);
    await expect(freePortBetween(10080, 10081)).rejects.toThrow(/No 1 free consecutive ports/);
    const refused = (await fetch('http://127.0.0.1:10080/').catch((error: unknown) => error)) as Error;
    expect((refused.cause as Error | undefined)?.message).toBe('bad port');
    const near = await freePortBetween(10079, 10082);
    expect(FETCH_BLOCKED_PORTS.has(near)).toBe(false);
  });

  it('come as a consecutive run for workers that serve metrics on base + index, apart from the others', async () => {
    const single = await freePort();
    const run = await freePortRun(5);
    expect(run).toEqual([run[0], run[0]! + 1, run[0]! + 2, run[0]! + 3, run[0]! + 4]);
    expect(run.filter(ephemeral)).toEqual([]);
    expect(run).not.toContain(single);
  });
});
