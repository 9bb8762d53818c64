/**
 * Seeded randomness: the same seed and the same sequence of requests give the same transIds,
 * mTokens and exchange rates, so scenarios and benchmarks are repeatable.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Whole number in [min, max]. */
  int(min: number, max: number): number;
  hex(length: number): string;
}

/** mulberry32: tiny, fast and good enough for simulated identifiers (not for secrets). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    hex: (length) => Array.from({ length }, () => Math.floor(next() * 16).toString(16)).join(''),
  };
}

/** Gateway transaction ids: increasing, unique, starting at a seeded base (like the real ones). */
export function createTransIdSource(random: Random): () => number {
  let current = 4_000_000_000 + random.int(0, 999_999_999);
  return () => {
    current += random.int(1, 9);
    return current;
  };
}
