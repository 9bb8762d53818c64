import type { SandboxWorld } from '../world';

/**
 * Card/QR terminals. Every store has terminals except a storeId containing "nodevice" (the spec's
 * "not mapped to a terminal"). A serialNumber seen for the first time is mapped to the store it came
 * with; later it must come with that store (the spec validates the pair). Without a serialNumber the
 * store's most recent terminal is used, `EDC-<storeId>` when it has none yet.
 */
export const UNMAPPED_STORE_MARKER = 'nodevice';

export function terminalFor(
  world: SandboxWorld,
  storeId: string,
  serialNumber: string | undefined,
): { serialNumber: string } | { refusal: string } {
  if (storeId.toLowerCase().includes(UNMAPPED_STORE_MARKER))
    return { refusal: `storeId ${storeId} is not mapped to a terminal` };
  const terminals = world.state.terminals;
  const serials = terminals.get(storeId) ?? [];
  terminals.set(storeId, serials);
  if (serialNumber === undefined || serialNumber === '') {
    if (serials.length === 0) serials.push(`EDC-${storeId}`);
    return { serialNumber: serials[serials.length - 1]! };
  }
  const owner = [...terminals].find(([, list]) => list.includes(serialNumber))?.[0];
  if (owner !== undefined && owner !== storeId)
    return { refusal: `serialNumber ${serialNumber} is mapped to store ${owner}, not ${storeId}` };
  if (owner === undefined) serials.push(serialNumber);
  return { serialNumber };
}

/** card/settle needs a pair the sandbox knows. */
export function isMappedPair(world: SandboxWorld, storeId: string, serialNumber: string): boolean {
  return world.state.terminals.get(storeId)?.includes(serialNumber) ?? false;
}
