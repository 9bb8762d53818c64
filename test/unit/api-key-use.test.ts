/**
 * A key's last use is written at most once a minute (db/shared/api-keys.ts): every request of a busy key
 * wrote the same row before, and concurrent requests of one key queued on its lock.
 */
import { describe, expect, it } from 'vitest';
import { LAST_USED_RESOLUTION_MS, useIsWorthRecording } from '../../db/shared/api-keys';

const now = new Date('2026-11-30T03:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('recording an API key’s use', () => {
  it('writes the first use of a key', () => {
    expect(useIsWorthRecording(null, now)).toBe(true);
  });

  it('skips a use within the minute after the last written one', () => {
    expect(useIsWorthRecording(ago(0), now)).toBe(false);
    expect(useIsWorthRecording(ago(LAST_USED_RESOLUTION_MS - 1), now)).toBe(false);
  });

  it('writes again once the last written use is a minute old', () => {
    expect(useIsWorthRecording(ago(LAST_USED_RESOLUTION_MS), now)).toBe(true);
    expect(useIsWorthRecording(ago(3_600_000), now)).toBe(true);
  });
});
