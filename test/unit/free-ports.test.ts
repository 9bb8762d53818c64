/**
 * Ports chosen for clusters and test stacks must not be ones the kernel hands out as source ports of
 * outgoing connections: a CI run lost its sandbox port to one between choosing and binding it.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort, freePortRun, portIsFree } from '../../scripts/cluster/readiness';

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

  it('come as a consecutive run for workers that serve metrics on base + index, apart from the others', async () => {
    const single = await freePort();
    const run = await freePortRun(5);
    expect(run).toEqual([run[0], run[0]! + 1, run[0]! + 2, run[0]! + 3, run[0]! + 4]);
    expect(run.filter(ephemeral)).toEqual([]);
    expect(run).not.toContain(single);
  });
});
