/**
 * Column values as event snapshots carry them. Each record's snapshot lives beside its row type (names,
 * personal ids, receiver details, tokens and links the customer pays through never appear in one).
 */
export const iso = (value: Date | null) => (value ? value.toISOString() : null);
export const numberOrNull = (value: string | null) => (value === null ? null : Number(value));
